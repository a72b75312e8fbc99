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
const DEADLINE_MS = 180_000;
const commands = demoCommands(readFileSync(`${root}docs/datasets.md`, "utf8"));

/** docs/datasets.md's checked shell blocks, pasted into bash against a fresh platform on Postgres. */
describe("docs/datasets.md's shell blocks print what their comments say", () => {
  let platform: RunningPlatform;
  let outputs: DemoOutput[] = [];

  beforeAll(async () => {
    platform = await startTestPlatform("postgres");
    outputs = await runDemoInBash(commands, {
      cwd: root,
      port: new URL(platform.url).port,
      deadlineMs: DEADLINE_MS,
    });
  }, PLATFORM_START_TIMEOUT_MS + DEADLINE_MS);
  afterAll(async () => platform?.close());

  it("keeps every promise", () => {
    expect(commands.filter((c) => c.promise).length).toBeGreaterThan(10);
    expect(brokenPromises(outputs)).toEqual([]);
  });
});
