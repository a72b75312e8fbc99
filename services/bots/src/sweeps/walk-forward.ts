import type { Kysely } from "kysely";
import { LIVE_BACKTEST_STATES } from "../domain/deployment-status.js";
import type { BotsDatabase } from "../store/bots.table.js";
import {
  lockSweepToAdvance,
  markSweepAdvanced,
  queueOutOfSample,
  sweepRuns,
  sweepsToAdvance,
  type SweepRunRow,
} from "../store/sweeps.repository.js";
import { bestRun, type RunFigures } from "./sweep-results.js";

/** The fields of a sweep's stored request the advance reads. */
export interface StoredSweepRequest {
  data_source: string;
  metric: string;
  /** Bars in the whole range, counted at creation: a window's share estimates its progress total. */
  bars_total: number;
  start: string;
  end: string;
}

export const figuresOf = (r: SweepRunRow): RunFigures & { row: SweepRunRow } => ({
  index: r.sweep_index,
  fold: r.sweep_fold ?? 0,
  status: r.status,
  summary: r.result_summary,
  row: r,
});

/**
 * Queues the out-of-sample run of every walk-forward fold whose in-sample runs have all ended:
 * the in-sample winner by the sweep's metric, alone, over the next segment. Any process may run
 * this at any time (after a run settles, on its recovery pass): each sweep is advanced under its
 * row's lock, skipped by a process that finds it locked, and a fold's out-of-sample run is unique
 * in the store, so none is queued twice. A sweep whose every fold is settled is not looked at
 * again. Returns how many runs it queued.
 */
export async function advanceWalkForwards(db: Kysely<BotsDatabase>): Promise<number> {
  let queued = 0;
  for (const id of await sweepsToAdvance(db)) {
    queued += await db.transaction().execute(async (trx) => {
      const sweep = await lockSweepToAdvance(trx, id);
      if (!sweep) return 0;
      const request = sweep.request as unknown as StoredSweepRequest;
      const runs = (await sweepRuns(trx, id)).map(figuresOf);
      const span = Date.parse(request.end) - Date.parse(request.start);
      let settled = 0;
      let added = 0;
      for (const [i, w] of sweep.folds.entries()) {
        const fold = i + 1;
        const ofFold = runs.filter((r) => r.fold === fold);
        if (ofFold.some((r) => r.index === null)) {
          settled++;
          continue;
        }
        const inSample = ofFold.filter((r) => r.index !== null);
        if (inSample.some((r) => (LIVE_BACKTEST_STATES as readonly string[]).includes(r.status)))
          continue;
        settled++;
        const best = bestRun(inSample, request.metric);
        // No in-sample run succeeded: the fold has no winner to test, and says so when read.
        if (!best) continue;
        const share = (Date.parse(w.oos_end) - Date.parse(w.is_end)) / span;
        await queueOutOfSample(trx, sweep, fold, {
          request: {
            data_source: request.data_source,
            start: w.is_end,
            end: w.oos_end,
            params: (best.row.request as { params?: unknown }).params,
          },
          barsTotal: Math.max(1, Math.round(request.bars_total * share)),
        });
        added++;
      }
      if (settled === sweep.folds.length) await markSweepAdvanced(trx, id);
      return added;
    });
  }
  return queued;
}
