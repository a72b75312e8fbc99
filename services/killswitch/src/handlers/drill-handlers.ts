import { create } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import type { ServiceImpl } from "@connectrpc/connect";
import {
  DrillResultSchema,
  DrillState,
  DrillVerdict,
  KillSwitchService,
  ListDrillsResponseSchema,
  type DrillResult,
} from "@svc/gen/svc/killswitch/v1/killswitch_pb.js";
import { Code, svcError } from "@svc/lib/errors";
import { decodePageToken, pageOf, pageSize } from "@svc/lib/paging";
import type { Kysely } from "kysely";
import type { DrillRunner } from "../drills/drill-runner.js";
import { DRILL_KEYS, findDrill, listDrills } from "../store/drills.repository.js";
import type {
  DrillRow,
  DrillStateName,
  DrillVerdictName,
  KillSwitchDatabase,
} from "../store/killswitch.table.js";

const STATES: Record<DrillStateName, DrillState> = {
  running: DrillState.RUNNING,
  finished: DrillState.FINISHED,
  interrupted: DrillState.INTERRUPTED,
};
const VERDICTS: Record<DrillVerdictName, DrillVerdict> = {
  pass: DrillVerdict.PASS,
  fail: DrillVerdict.FAIL,
  no_bots: DrillVerdict.NO_BOTS,
};

/**
 * The quarterly drill over the wire: POST starts it and answers at once (it runs off the request
 * path, see drills/drill-runner.ts), GET follows one, the list serves the latest or a year's
 * (what the compliance service's annual report embeds).
 */
export function createDrillHandlers(deps: {
  db: Kysely<KillSwitchDatabase>;
  runner: DrillRunner;
}): Pick<ServiceImpl<typeof KillSwitchService>, "runDrill" | "getDrill" | "listDrills"> {
  return {
    async runDrill(req, ctx) {
      return toResult(await deps.runner.start(req.reason || "kill-switch drill", ctx));
    },

    async getDrill(req) {
      const row = await findDrill(deps.db, req.id);
      if (!row)
        throw svcError(Code.NotFound, "drill_not_found", `no drill with id "${req.id}"`, {
          id: req.id,
        });
      return toResult(row);
    },

    async listDrills(req) {
      const size = pageSize(req.limit);
      const list = { list: "drills", filters: { year: req.year || undefined }, keys: DRILL_KEYS };
      const after = decodePageToken(list, req.pageToken);
      const rows = await listDrills(deps.db, {
        year: req.year || undefined,
        limit: size + 1,
        after,
      });
      const page = pageOf(rows, size, list, (r) => [r.started_key, r.id]);
      return create(ListDrillsResponseSchema, {
        items: page.items.map(toResult),
        nextPageToken: page.nextPageToken,
      });
    },
  };
}

const stamp = (d: Date | string | null) => (d ? timestampFromDate(new Date(d)) : undefined);

function toResult(r: DrillRow): DrillResult {
  const f = r.result;
  return create(DrillResultSchema, {
    id: r.id,
    startedAt: stamp(r.started_at),
    endedAt: stamp(r.ended_at),
    releaseBy: r.state === "running" ? stamp(r.release_by) : undefined,
    state: STATES[r.state],
    verdict: r.verdict ? VERDICTS[r.verdict] : DrillVerdict.UNSPECIFIED,
    reason: r.reason,
    startedBy: r.started_by,
    note: f.note ?? "",
    bots: f.bots,
    drainingP50Ms: f.draining_p50_ms,
    drainingMaxMs: f.draining_max_ms,
    stoppedMaxMs: f.stopped_max_ms,
    allRestarted: f.all_restarted,
    perBot: f.per_bot.map((b) => ({
      taskId: b.task_id,
      botId: b.bot_id ?? "",
      botSlug: b.bot_slug ?? "",
      highFrequency: b.high_frequency ?? false,
      highFrequencyBasis: b.high_frequency_basis ?? "",
      drainingBoundMs: b.draining_bound_ms ?? 0,
      stoppedBoundMs: b.stopped_bound_ms ?? 0,
      drainingMs: b.draining_ms ?? undefined,
      stoppedMs: b.stopped_ms ?? undefined,
      restarted: b.restarted,
      verdict: b.verdict ? VERDICTS[b.verdict] : DrillVerdict.UNSPECIFIED,
      misses: (b.misses ?? []).map((m) => ({
        bound: m.bound,
        boundMs: m.bound_ms,
        observedMs: m.observed_ms ?? undefined,
        message: m.message,
      })),
    })),
  });
}
