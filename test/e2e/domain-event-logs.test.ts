import { Writable } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createLogger } from "@svc/lib/telemetry";
import type { RunningPlatform } from "@svc/all-in-one";
import { call, PLATFORM_START_TIMEOUT_MS, startTestPlatform } from "../support/test-platform.js";
import { eventually } from "../support/until.js";

type Line = Record<string, unknown> & { level: number; msg: string };

// An operator reading the log sees what happened to the platform, at info, with the ids to find
// it: a backtest finished, its trial recorded, a kill switch engaged and released, a halt.
describe("domain events in the log", () => {
  let p: RunningPlatform;
  const lines: Line[] = [];

  beforeAll(async () => {
    const sink = new Writable({
      write(chunk: Buffer, _enc, done) {
        for (const line of chunk.toString().split("\n").filter(Boolean))
          lines.push(JSON.parse(line) as Line);
        done();
      },
    });
    const log = createLogger({ name: "svc", level: "info", format: "json", destination: sink });
    p = await startTestPlatform("pglite", { SVC_LOG_LEVEL: "info" }, { log });
  }, PLATFORM_START_TIMEOUT_MS);
  afterAll(async () => p?.close());

  const logged = (what: string, match: (l: Line) => boolean) =>
    eventually(
      what,
      () => lines.filter(match),
      (found) => found.length > 0,
    );

  it("logs a finished backtest and its trial with their ids", async () => {
    await call(p.url, "POST", "/bots", {
      name: "Logged",
      kind: "trading",
      fleet: "logs",
      strategy: { family: "ma_crossover", parameters: { fast: 10, slow: 30 } },
    });
    const started = await call(p.url, "POST", "/bots/logged/backtest", {
      data_source: "csv:sample-btc-usd-1d",
    });
    expect(started.status).toBe(202);
    const [finished] = await logged(
      "the backtest's log line",
      (l) => l.msg === "backtest finished",
    );
    expect(finished).toMatchObject({ level: 30, deployment_id: started.body.id, bars: 1000 });
    const [trial] = await logged("the trial's domain event", (l) => l.event === "TrialRecorded");
    expect(trial).toMatchObject({ level: 30, msg: "domain event", trial_id: started.body.id });
  });

  it("logs a kill switch engaged and released, and a halt, with who and why", async () => {
    const spec = { scope: "fleet", target: "logs", mode: "cancel", reason: "log check" };
    expect((await call(p.url, "PUT", "/kill-switches/log-check", spec)).status).toBe(200);
    expect((await call(p.url, "DELETE", "/kill-switches/log-check")).status).toBe(200);
    const audit = (action: string) =>
      logged(action, (l) => l.event === "AuditRecorded" && l.action === action);
    expect((await audit("killswitch.engaged"))[0]).toMatchObject({
      level: 30,
      "actor.subject": "local|default",
    });
    await audit("killswitch.released");

    await call(p.url, "POST", "/bots/logged/halt", { reason: "end of log check" });
    const [halt] = await logged("the halt", (l) => l.msg === "halted");
    expect(halt).toMatchObject({
      level: 30,
      scope: "bot",
      bot: "logged",
      reason: "end of log check",
    });
  });
});
