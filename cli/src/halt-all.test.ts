import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningPlatform } from "@svc/all-in-one";
import { startTestPlatform } from "../../test/support/test-platform.js";

const run = promisify(execFile);

describe("svc halt-all", () => {
  let p: RunningPlatform;
  beforeAll(async () => {
    p = await startTestPlatform("pglite");
  });
  afterAll(async () => {
    await p?.close();
  });

  it("calls every halt route in parallel and prints each result", async () => {
    const main = fileURLToPath(new URL("./main.ts", import.meta.url));
    const { stdout } = await run(
      process.execPath,
      ["--import", "tsx", main, "halt-all", "--reason", "quarterly drill"],
      { env: { ...process.env, SVC_API_URL: p.url } },
    );
    const lines = stdout.trim().split("\n");
    expect(lines).toHaveLength(6);
    for (const route of [
      "/agents/halt",
      "/quant-agents/halt",
      "/paper/stop-all",
      "/bots/halt-all",
      "/rl/halt-all",
      "/workflows/halt",
    ]) {
      expect(lines.find((l) => l.includes(route))).toMatch(/^ok {3}200 /);
    }
  });

  it("exits non-zero and says why when the platform cannot be reached", async () => {
    const main = fileURLToPath(new URL("./main.ts", import.meta.url));
    const failed = await run(process.execPath, ["--import", "tsx", main, "halt-all"], {
      env: { ...process.env, SVC_API_URL: "http://127.0.0.1:1" },
    }).catch((e) => e);
    expect(failed.code).toBe(1);
    expect(failed.stdout).toMatch(/FAIL 0 +\/agents\/halt +unreachable/);
  });
});
