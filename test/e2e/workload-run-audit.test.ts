import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningPlatform } from "@svc/all-in-one";
import { approvedSession, as } from "../support/paper.js";
import { call, startTestPlatform } from "../support/test-platform.js";
import { eventually } from "../support/until.js";

interface WorkloadRunItem {
  event_type: string;
  outcome: string;
  resource: string;
  actor_user_id: string;
  created_at: string;
  details: {
    workload: string;
    op: "start" | "stop";
    task_id: string;
    bot_id: string;
    version: number;
    spec_hash: string;
    code_digest: string | null;
    model_digests: Record<string, string>;
    reason?: string;
  };
}

/**
 * Every start and stop of a workload is a `workload_run` audit entry (service-interface.md,
 * Events 1): who, which bot version with its digests, and why it stopped, read back through the
 * audit listing route as an auditor would.
 */
describe("workload_run audit entries", () => {
  let p: RunningPlatform;
  beforeAll(async () => {
    p = await startTestPlatform("pglite");
  }, 60_000);
  afterAll(async () => {
    await p?.close();
  });

  const runsOf = async (taskId: string) =>
    (
      (await call(p.url, "GET", "/admin/audit-events?action=workload_run&limit=1000")).body
        .items as WorkloadRunItem[]
    ).filter((e) => e.details.task_id === taskId);

  it("records a backtest's start (who asked, which version) and its end (finished)", async () => {
    const bot = await call(
      p.url,
      "POST",
      "/bots",
      {
        name: "wr-bt",
        slug: "wr-bt",
        kind: "trading",
        strategy: { family: "ma_crossover", parameters: { fast: 3, slow: 8 } },
      },
      as("alice"),
    );
    expect(bot.status, bot.text).toBe(201);
    const queued = await call(p.url, "POST", "/bots/wr-bt/backtest", {}, as("dana"));
    expect(queued.status, queued.text).toBe(202);
    const taskId = queued.body.task_id as string;
    const runs = await eventually(
      "the backtest's start and stop reach the audit trail",
      () => runsOf(taskId),
      (r) => r.length === 2,
      30_000,
    );
    const version = {
      bot_id: bot.body.id,
      version: 1,
      spec_hash: bot.body.spec_hash,
      code_digest: null,
      model_digests: {},
    };
    expect(runs).toMatchObject([
      {
        event_type: "workload_run",
        outcome: "succeeded",
        resource: "bot/wr-bt",
        actor_user_id: "local|dana",
        details: { workload: "backtest", op: "start", ...version },
      },
      {
        event_type: "workload_run",
        outcome: "succeeded",
        resource: "bot/wr-bt",
        actor_user_id: "system:bots-runner",
        details: { workload: "backtest", op: "stop", reason: "finished", ...version },
      },
    ]);
  }, 60_000);

  it("records a compliance run's start (who asked) and its end (finished, passed or not)", async () => {
    const started = await call(p.url, "POST", "/bots/wr-bt/conformance", {}, as("erin"));
    expect(started.status, started.text).toBe(202);
    const runs = await eventually(
      "the conformance run's start and stop reach the audit trail",
      async () =>
        (
          (await call(p.url, "GET", "/admin/audit-events?action=workload_run&resource=bot/wr-bt"))
            .body.items as WorkloadRunItem[]
        ).filter((e) => e.details.workload === "compliance_run"),
      (r) => r.length === 2,
      30_000,
    );
    expect(runs).toMatchObject([
      {
        // The compliance service starts it for the person, whom it names.
        actor_user_id: "service|compliance",
        details: { op: "start", version: 1, kind: "conformance", requested_by: "local|erin" },
      },
      {
        actor_user_id: "system:bots-runner",
        details: { op: "stop", version: 1, reason: "finished", passed: expect.any(Boolean) },
      },
    ]);
    expect(runs[1]!.details.task_id).toBe(runs[0]!.details.task_id);
  }, 60_000);

  it("records a paper session's start and its stop by a person, with the reason", async () => {
    const taskId = await approvedSession(p, "wr-paper", "wr-fleet", 20);
    const stopped = await call(
      p.url,
      "POST",
      `/bots/wr-paper/paper/stop/${taskId}`,
      {},
      as("carol"),
    );
    expect(stopped.status, stopped.text).toBe(200);
    const runs = await eventually(
      "the session's start and stop reach the audit trail",
      () => runsOf(taskId),
      (r) => r.length === 2,
      30_000,
    );
    const bot = (await call(p.url, "GET", "/bots/wr-paper")).body;
    expect(runs).toMatchObject([
      {
        outcome: "succeeded",
        resource: "bot/wr-paper",
        details: {
          workload: "paper",
          op: "start",
          bot_id: bot.id,
          version: 1,
          spec_hash: bot.spec_hash,
        },
      },
      {
        outcome: "succeeded",
        resource: "bot/wr-paper",
        actor_user_id: "local|carol",
        details: { workload: "paper", op: "stop", reason: "stopped: stopped by request" },
      },
    ]);
  }, 90_000);
});
