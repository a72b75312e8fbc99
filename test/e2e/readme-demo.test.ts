import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningPlatform } from "@svc/all-in-one";
import { brokenPromise, demoCommands, type DemoCommand } from "../support/readme-demo.js";
import { PLATFORM_START_TIMEOUT_MS, startTestPlatform } from "../support/test-platform.js";

const root = fileURLToPath(new URL("../../", import.meta.url));
const commands = demoCommands(readFileSync(`${root}README.md`, "utf8"));

/**
 * The README's checked demo, pasted into bash against a fresh platform (embedded PGlite in
 * memory, the port of SVC_PORT) as a person would: each command's output must keep the promise
 * its comment makes.
 */
describe("the README demo prints what its comments say", () => {
  let platform: RunningPlatform;
  let outputs: { command: DemoCommand; output: string }[] = [];

  beforeAll(async () => {
    platform = await startTestPlatform("pglite");
    outputs = await runInBash(commands, new URL(platform.url).port);
  }, PLATFORM_START_TIMEOUT_MS + 90_000);
  afterAll(async () => platform?.close());

  it("has checked commands, most of them with a promise", () => {
    expect(commands.length).toBeGreaterThan(15);
    expect(commands.filter((c) => c.promise).length).toBeGreaterThan(10);
  });

  it("keeps every promise", () => {
    const broken = outputs
      .filter(({ command }) => command.promise)
      .map(({ command, output }) => {
        const why = brokenPromise(command.promise!, output);
        return (
          why &&
          `README line ${command.line}: ${command.shell.split("\n")[0]}\n  ${why}\n  printed: ${output.slice(0, 600)}`
        );
      })
      .filter(Boolean);
    expect(broken).toEqual([]);
  });
});

/** Runs the commands in one bash (so variables carry over), output cut at a marker per command. */
async function runInBash(
  list: DemoCommand[],
  port: string,
): Promise<{ command: DemoCommand; output: string }[]> {
  const marker = "@@demo-command";
  // curl prints no newline after a body: each marker starts a line of its own.
  const script = [
    "set -e",
    ...list.map((c, i) => `printf '\\n${marker} ${i}\\n'\n${c.shell}`),
    `printf '\\n${marker} end\\n'`,
  ].join("\n");
  const child = spawn("bash", ["-c", script], {
    cwd: root,
    env: { ...process.env, SVC_PORT: port },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
  child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
  const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
  const pieces = stdout.split(new RegExp(`^${marker} `, "m")).slice(1);
  const last = pieces.at(-1)?.trim();
  if (code !== 0 || last !== "end") {
    const stoppedAt = list[Number(last?.split("\n")[0])];
    throw new Error(
      `the demo stopped (exit ${code}) at README line ${stoppedAt?.line}: ${stoppedAt?.shell}\n${stderr.slice(-2000)}\n${stdout.slice(-2000)}`,
    );
  }
  return pieces.slice(0, -1).map((piece) => {
    const newline = piece.indexOf("\n");
    return { command: list[Number(piece.slice(0, newline))]!, output: piece.slice(newline + 1) };
  });
}
