import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningPlatform } from "@svc/all-in-one";
import {
  brokenPromises,
  demoCommands,
  runDemoInBash,
  type DemoOutput,
} from "../support/readme-demo.js";
import { PLATFORM_START_TIMEOUT_MS, startTestPlatform } from "../support/test-platform.js";

const root = fileURLToPath(new URL("../../", import.meta.url));
const DEMO_DEADLINE_MS = 300_000;
const commands = demoCommands(readFileSync(`${root}README.md`, "utf8"));

/**
 * The README's checked demo, pasted into bash against a fresh platform (embedded PGlite in
 * memory, the port of SVC_PORT) as a person would: each command's output must keep the promise
 * its comment makes.
 */
describe("the README demo prints what its comments say", () => {
  let platform: RunningPlatform;
  let outputs: DemoOutput[] = [];

  beforeAll(async () => {
    platform = await startTestPlatform("pglite");
    outputs = await runDemoInBash(commands, {
      cwd: root,
      port: new URL(platform.url).port,
      // Only stops a hung demo: its waits (backtests, a paper session, a kill switch, strategy code
      // checked and run, eight starts of svc) took 3 minutes at a load average of 15 on 2 cores.
      deadlineMs: DEMO_DEADLINE_MS,
    });
  }, PLATFORM_START_TIMEOUT_MS + DEMO_DEADLINE_MS);
  afterAll(async () => platform?.close());

  it("has checked commands, most of them with a promise", () => {
    expect(commands.length).toBeGreaterThan(15);
    expect(commands.filter((c) => c.promise).length).toBeGreaterThan(10);
  });

  it("keeps every promise", () => {
    expect(brokenPromises(outputs)).toEqual([]);
  });
});
