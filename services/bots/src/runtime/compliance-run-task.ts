import type { Kysely, Transaction } from "kysely";
import { recordWorkloadRun, RUNNER_ORIGIN } from "../audit/workload-run.js";
import type { Bars } from "../engine/bars.js";
import type { Strategy } from "../engine/strategies/strategy.js";
import type { BotUnderTest, CaseResult } from "../compliance/compliance-case.js";
import { CONFORMANCE_SUITE, suiteFor } from "../compliance/conformance-suite.js";
import { peakFromDataSet } from "../compliance/peak-from-data-set.js";
import { STRESS_SLICES, stressReplay, type Peak } from "../compliance/stress-replay.js";
import { stressReplayCode, type NewCodeHost } from "../compliance/stress-replay-code.js";
import { StrategyFailure } from "../sandbox/index.js";
import * as runs from "../store/compliance-runs.repository.js";
import { peakMessagesPerSecond } from "../store/peak-load.repository.js";
import type { BotsDatabase } from "../store/bots.table.js";
import { yieldToEventLoop, type TaskRunner } from "./task-runner.js";

/** A checked run, ready to go: everything comes from the bot version it tests. */
export interface ComplianceTask {
  id: string;
  taskId: string;
  botId: string;
  kind: "conformance" | "stress";
  bot: BotUnderTest;
  /**
   * Stress only: the data set's bars, a fresh instance of the bot's strategy (a family's, or its
   * code's in a sandbox of its own), and the multiple.
   */
  stress?: { bars: Bars; newStrategy?: () => Strategy; newHost?: NewCodeHost; multiple: number };
}

/** How many progress steps a run of `kind` has (cases, or slices of the replay). */
export const stepsOf = (kind: ComplianceTask["kind"]) =>
  kind === "conformance" ? CONFORMANCE_SUITE.length : STRESS_SLICES;

/**
 * Runs a conformance suite or a stress replay off the request path. Progress is written after
 * each case (or slice); any error ends the run failed with its message, never half-complete.
 */
export function submitComplianceRun(
  deps: { db: Kysely<BotsDatabase>; tasks: TaskRunner },
  t: ComplianceTask,
): void {
  const { db } = deps;
  deps.tasks.submit(t.taskId, async () => {
    try {
      await runs.markComplianceRunRunning(db, t.id);
      if (t.kind === "conformance") await conformance(db, t);
      else await stress(db, t);
    } catch (err) {
      const message =
        err instanceof StrategyFailure
          ? `${err.code}: ${err.message}`
          : ((err as Error)?.message ?? String(err));
      await endRun(db, (trx) => runs.failComplianceRun(trx, t.id, message), `failed: ${message}`);
    }
  });
}

/**
 * Ends a run with its workload_run stop entry, in one transaction; a run ended already (by the
 * recovery of a host that thought this one dead) writes neither.
 */
async function endRun(
  db: Kysely<BotsDatabase>,
  end: (trx: Transaction<BotsDatabase>) => Promise<runs.EndedComplianceRun | undefined>,
  reason: string,
  passed?: boolean,
): Promise<void> {
  await db.transaction().execute(async (trx) => {
    const ended = await end(trx);
    if (ended) await auditComplianceStop(trx, ended, reason, passed);
  });
}

/** The workload_run stop entry of a conformance or stress run. */
export function auditComplianceStop(
  trx: Transaction<BotsDatabase>,
  ended: runs.EndedComplianceRun,
  reason: string,
  passed?: boolean,
): Promise<void> {
  return recordWorkloadRun(trx, RUNNER_ORIGIN, {
    workload: "compliance_run",
    op: "stop",
    outcome: reason.startsWith("failed") ? "failed" : "succeeded",
    taskId: ended.task_id,
    bot: { id: ended.bot_id, version: ended.version },
    reason,
    details: { kind: ended.kind, ...(passed !== undefined ? { passed } : {}) },
  });
}

async function conformance(db: Kysely<BotsDatabase>, t: ComplianceTask): Promise<void> {
  const cases: CaseResult[] = [];
  for (const c of suiteFor(t.bot)) {
    cases.push(await c.run(t.bot));
    await runs.recordComplianceProgress(db, t.id, cases.length, cases);
    await yieldToEventLoop();
  }
  const passed = cases.every((c) => c.passed);
  await endRun(
    db,
    (trx) => runs.finishComplianceRun(trx, t.id, { passed, cases }),
    "finished",
    passed,
  );
}

async function stress(db: Kysely<BotsDatabase>, t: ComplianceTask): Promise<void> {
  const s = t.stress!;
  const recorded = await peakMessagesPerSecond(db, t.botId);
  const slice = async (done: number) => {
    await runs.recordComplianceProgress(db, t.id, done);
    await yieldToEventLoop();
  };
  if (s.newHost) {
    const outcome = await stressReplayCode(t.bot, s.bars, s.newHost, recorded, s.multiple, slice);
    const passed = outcome.controls_held && outcome.orders_lost === 0;
    await endRun(
      db,
      (trx) => runs.finishComplianceRun(trx, t.id, { passed, cases: [], stress: outcome }),
      "finished",
      passed,
    );
    return;
  }
  const newStrategy = s.newStrategy!;
  const fromData = peakFromDataSet(t.bot, s.bars, newStrategy());
  const peak: Peak =
    recorded > 0
      ? { source: "paper_events", messagesPerSecond: recorded, volume: fromData.volume }
      : {
          source: "data_set",
          messagesPerSecond: fromData.messagesPerSecond,
          volume: fromData.volume,
        };
  const outcome = await stressReplay(t.bot, s.bars, newStrategy, peak, s.multiple, async (done) => {
    await runs.recordComplianceProgress(db, t.id, done);
    await yieldToEventLoop();
  });
  const passed = outcome.controls_held && outcome.orders_lost === 0;
  await endRun(
    db,
    (trx) => runs.finishComplianceRun(trx, t.id, { passed, cases: [], stress: outcome }),
    "finished",
    passed,
  );
}
