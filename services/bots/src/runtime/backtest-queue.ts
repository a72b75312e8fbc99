import type { Kysely } from "kysely";
import { inBackground } from "@svc/lib/db";
import type { Logger } from "@svc/lib/telemetry";
import { claimNextBacktest, requeueBacktest } from "../store/backtest-queue.repository.js";
import type { BotsDatabase, DeploymentRow } from "../store/bots.table.js";
import type { TaskRunner } from "./task-runner.js";

/** A run started this many times and never finished ends failed (backtest-recovery.ts). */
export const MAX_ATTEMPTS = 3;

export interface BacktestQueueDeps {
  db: Kysely<BotsDatabase>;
  tasks: TaskRunner;
  hostId: string;
  log: Pick<Logger, "warn">;
  /** Submits a claimed row's run to `tasks`; a row that cannot run any more is ended by it. */
  run(row: DeploymentRow): Promise<void>;
}

/**
 * Feeds this process's workers from the durable queue: whenever a slot is free (a run was
 * accepted, one settled, or the recovery pass found rows put back), claims the next queued
 * backtest, fairly between bots (claimNextBacktest), until the slots are full or the queue empty.
 * Pumps never overlap; one asked for meanwhile runs once the current one ends.
 */
export function backtestQueue(deps: BacktestQueueDeps): { pump(): Promise<void> } {
  const { db, tasks, hostId, log } = deps;
  let pumping: Promise<void> | undefined;
  let again = false;
  const drain = async () => {
    do {
      again = false;
      while (tasks.accepting() && tasks.free() > 0) {
        const row = await claimNextBacktest(db, { hostId, maxAttempts: MAX_ATTEMPTS });
        if (!row) break;
        try {
          await deps.run(row);
        } catch (err) {
          // It could not even start here (the database failed while its inputs loaded): back in
          // the queue, its place and its attempts as they were.
          log.warn(
            { err, task_id: row.task_id },
            "could not start a backtest; put back in the queue",
          );
          await requeueBacktest(db, row.task_id, hostId);
          break;
        }
      }
    } while (again);
  };
  const pump = (): Promise<void> => {
    if (pumping) {
      again = true;
      return pumping;
    }
    // Claims are background work too: the request that asked for a pump does not wait on it.
    pumping = inBackground(drain)
      .catch((err) => log.warn({ err }, "backtest queue pump failed; the next one retries"))
      .finally(() => (pumping = undefined));
    return pumping;
  };
  tasks.onSettled(() => void pump());
  return { pump };
}
