import { randomUUID } from "node:crypto";
import { hostname } from "node:os";
import type { Kysely, Transaction } from "kysely";
import type { AuditOrigin, AuditOutcome } from "@svc/lib/audit";
import type { Logger } from "@svc/lib/telemetry";
import { recordWorkloadRun, RUNNER_ORIGIN } from "../audit/workload-run.js";
import {
  failExhaustedBacktests,
  haltLiveBacktests,
  type EndedRun,
  renewBacktestLeases,
} from "../store/backtests.repository.js";
import { requeueOrphanedBacktests } from "../store/backtest-queue.repository.js";
import {
  failOrphanedComplianceRuns,
  renewComplianceRunLeases,
} from "../store/compliance-runs.repository.js";
import type { BotsDatabase } from "../store/bots.table.js";
import { MAX_ATTEMPTS } from "./backtest-queue.js";
import { auditComplianceStop } from "./compliance-run-task.js";
import type { TaskRunner } from "./task-runner.js";

/**
 * Backtests survive the death of the process that runs them. Each backtest row names the process
 * that holds it (`host`) and when that process last said so (`host_seen_at`), as paper sessions
 * do: the holder renews the lease every few seconds; a row whose holder fell silent for the lease
 * (SVC_RUNNER_LEASE_S, shared with paper sessions) is put back in the queue, in one conditional
 * UPDATE, at its place of arrival; a live process claims it from there (backtest-queue.ts) and
 * re-runs it from scratch, which is correct because a backtest is deterministic. A row that
 * names no holder is queued already (rows from before leases too). A run whose process died
 * MAX_ATTEMPTS times ends failed with error `interrupted`, so that a backtest that kills its
 * process cannot loop forever.
 */
const INTERRUPTED = "interrupted";
/**
 * Compliance runs share the lease, but one whose process died is ended failed, not re-run: the
 * requester asks again, and a report only ever rests on a run that finished.
 */
const RUN_INTERRUPTED =
  "interrupted: the process running it stopped before it finished (its lease lapsed); start the run again";

/** This process's name on the backtest rows it holds. */
export function backtestHostId(): string {
  return `${hostname()}:${process.pid}:bt-${randomUUID().slice(0, 8)}`;
}

/**
 * Halts every backtest still pending or running, wherever it runs: the row says halted at once;
 * a run of this process stops at its next slice; a run of another process finds the row halted at
 * its next look and stops, and its result is never written (the final write needs `running`).
 */
export async function haltBacktests(
  db: Kysely<BotsDatabase>,
  tasks: TaskRunner,
  reason: string,
  origin: AuditOrigin,
): Promise<string[]> {
  const ids = await db.transaction().execute(async (trx) => {
    const ended = await haltLiveBacktests(trx, reason);
    await auditStops(trx, origin, ended, "succeeded", `halted: ${reason}`);
    return ended.map((r) => r.task_id);
  });
  tasks.cancel(ids);
  return ids;
}

/** The workload_run stop entries of backtests one statement ended. */
async function auditStops(
  trx: Transaction<BotsDatabase>,
  origin: AuditOrigin,
  ended: EndedRun[],
  outcome: AuditOutcome,
  reason: string,
): Promise<void> {
  for (const r of ended)
    await recordWorkloadRun(trx, origin, {
      workload: "backtest",
      op: "stop",
      outcome,
      taskId: r.task_id,
      bot: { id: r.bot_id, version: r.version },
      reason,
    });
}

export interface RecoveryDeps {
  db: Kysely<BotsDatabase>;
  tasks: TaskRunner;
  hostId: string;
  log: Logger;
  /** Seconds a silent holder keeps its backtests (SVC_RUNNER_LEASE_S). */
  leaseSeconds: number;
  /** Claims queued backtests for this process's free workers (backtest-queue.ts). */
  pump(): Promise<void>;
}

/**
 * Renews this process's leases, puts orphaned backtests back in the queue and feeds this
 * process's free workers from it: once at start (awaited), then
 * every few seconds, well inside the lease. Passes never overlap: a tick that finds one under way is skipped.
 */
export function backtestRecovery(deps: RecoveryDeps): {
  start(): Promise<void>;
  stop(): Promise<void>;
} {
  let timer: NodeJS.Timeout | undefined;
  let inFlight: Promise<void> | undefined;
  const tick = () => {
    inFlight ??= pass(deps)
      .catch((err) => deps.log.warn({ err }, "backtest recovery pass failed"))
      .finally(() => (inFlight = undefined));
    return inFlight;
  };
  return {
    async start() {
      await tick();
      // Renew well inside the lease, as paper sessions do.
      timer = setInterval(() => void tick(), Math.min(5_000, (deps.leaseSeconds * 1000) / 3));
      timer.unref();
    },
    async stop() {
      if (timer) clearInterval(timer);
      await inFlight;
    },
  };
}

async function pass(deps: RecoveryDeps): Promise<void> {
  const { db, tasks, hostId, log } = deps;
  await renewBacktestLeases(db, hostId, tasks.ids());
  await renewComplianceRunLeases(db, hostId, tasks.ids());
  // Shutting down: keep the leases of the runs that finish, take on nothing new.
  if (!tasks.accepting()) return;
  const ended = await db.transaction().execute(async (trx) => {
    const runs = await failOrphanedComplianceRuns(trx, {
      runningHere: tasks.ids(),
      leaseSeconds: deps.leaseSeconds,
      error: RUN_INTERRUPTED,
    });
    for (const r of runs) await auditComplianceStop(trx, r, `failed: ${RUN_INTERRUPTED}`);
    return runs.map((r) => r.task_id);
  });
  if (ended.length > 0)
    log.warn({ task_ids: ended }, "compliance runs of a process that died; marked failed");
  const given = await db.transaction().execute(async (trx) => {
    const ended = await failExhaustedBacktests(trx, {
      leaseSeconds: deps.leaseSeconds,
      maxAttempts: MAX_ATTEMPTS,
      error: INTERRUPTED,
    });
    await auditStops(trx, RUNNER_ORIGIN, ended, "failed", `failed: ${INTERRUPTED}`);
    return ended.map((r) => r.task_id);
  });
  if (given.length > 0)
    log.warn(
      { task_ids: given, attempts: MAX_ATTEMPTS },
      "backtests interrupted too often; marked failed",
    );
  // A lease of ours that lapsed while the run goes on here (a slow database) is renewed, not re-run.
  const requeued = await requeueOrphanedBacktests(db, {
    runningHere: tasks.ids(),
    leaseSeconds: deps.leaseSeconds,
    maxAttempts: MAX_ATTEMPTS,
  });
  if (requeued.length > 0)
    log.info({ task_ids: requeued }, "backtests of a process that died put back in the queue");
  await deps.pump();
}
