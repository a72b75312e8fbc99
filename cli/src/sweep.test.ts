import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningPlatform } from "@svc/all-in-one";
import {
  call,
  PLATFORM_START_TIMEOUT_MS,
  startTestPlatform,
} from "../../test/support/test-platform.js";
import { parameterOf, type Sweep } from "./commands/sweep.js";
import { svcIn } from "./testing.js";

// `svc sweep` against a platform on real Postgres, as a person runs it.
describe("svc sweep", () => {
  let p: RunningPlatform;
  const svc = (args: string[]) => svcIn(p.url, args);

  beforeAll(async () => {
    p = await startTestPlatform("postgres");
    const bot = await call(p.url, "POST", "/bots", {
      name: "cli sweep",
      slug: "cli-sweep",
      kind: "trading",
      strategy: { family: "ma_crossover", parameters: { fast: 10, slow: 40 } },
    });
    expect(bot.status).toBe(201);
  }, PLATFORM_START_TIMEOUT_MS);
  afterAll(async () => {
    await p?.close();
  }, 60_000);

  it("reads --param as values or a range", () => {
    expect(parameterOf("fast=5,10,20")).toEqual({ name: "fast", values: [5, 10, 20] });
    expect(parameterOf("slow=20:60:10")).toEqual({ name: "slow", min: 20, max: 60, step: 10 });
    expect(parameterOf("allow_short=true,false")).toEqual({
      name: "allow_short",
      values: [true, false],
    });
    expect(parameterOf("mode=fast,slow")).toEqual({ name: "mode", values: ["fast", "slow"] });
  });

  it("runs a grid to its end and prints the table best first; show sorts by another metric", async () => {
    const r = await svc([
      "sweep",
      "run",
      "cli-sweep",
      "-p",
      "fast=5,10",
      "-p",
      "slow=30:60:30",
      "--data-source",
      "synthetic:3",
      "--key",
      "cli-1",
      "--watch",
      "--interval",
      "200",
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^status +done$/m);
    expect(r.stdout).toContain("results by sharpe (top 4):");
    expect(r.stdout).toMatch(/fast=5 slow=30 allow_short=false +success/);

    const list = await svc(["--json", "sweep", "list", "cli-sweep"]);
    const [sweep] = (JSON.parse(list.stdout) as { items: Sweep[] }).items;
    expect(sweep!.request_key).toBe("cli-1");
    const shown = await svc([
      "--json",
      "sweep",
      "show",
      "cli-sweep",
      sweep!.id,
      "--sort",
      "max_drawdown",
      "--asc",
    ]);
    const dd = (JSON.parse(shown.stdout) as Sweep).results!.map(
      (x) => x.metrics!.max_drawdown as number,
    );
    expect(dd).toHaveLength(4);
    expect(dd).toEqual([...dd].sort((a, b) => a - b));
  }, 120_000);

  it("says what is wrong: a bad --param locally, a refusal of the platform with its message", async () => {
    const bad = await svc(["sweep", "run", "cli-sweep", "-p", "fast"]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("--param fast: give NAME=V1,V2,... or NAME=MIN:MAX[:STEP]");
    const refused = await svc(["sweep", "run", "cli-sweep", "-p", "fast=0,5"]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(
      "svc: 400 invalid_parameter: fast: 0 is below its declared minimum 1",
    );
  });
});
