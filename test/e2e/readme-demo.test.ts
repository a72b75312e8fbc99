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
      deadlineMs: 90_000,
    });
  }, PLATFORM_START_TIMEOUT_MS + 90_000);
  afterAll(async () => platform?.close());

  it("has checked commands, most of them with a promise", () => {
    expect(commands.length).toBeGreaterThan(15);
    expect(commands.filter((c) => c.promise).length).toBeGreaterThan(10);
  });

  it("keeps every promise", () => {
    expect(brokenPromises(outputs)).toEqual([]);
  });
});
