import { create } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import type { ServiceImpl } from "@connectrpc/connect";
import type { Kysely } from "kysely";
import {
  DrillScheduleSchema,
  DrillScheduleStatusSchema,
  KillSwitchService,
  type DrillScheduleStatus,
} from "@svc/gen/svc/killswitch/v1/killswitch_pb.js";
import { auditOriginOf } from "@svc/lib/audit";
import { principalOf } from "@svc/lib/auth";
import { changedSettings, enqueueControlChange } from "@svc/lib/contracts";
import { invalidField } from "@svc/lib/errors";
import { nextScheduled, quarterAfter, quarterOf } from "../domain/quarters.js";
import {
  finishedDrillsIn,
  liveOrFinishedDrillsIn,
  platformSchedule,
  quarterRows,
  setPlatformSchedule,
} from "../store/drill-schedule.repository.js";
import { recordAudit } from "../store/killswitch.repository.js";
import { KILLSWITCH_SCHEMA, type KillSwitchDatabase } from "../store/killswitch.table.js";

/** Quarters GET shows: the current one and the four before it. */
const QUARTERS_SHOWN = 5;

/** GET and PUT /kill-switch/drills/schedule (see drills/drill-scheduler.ts for what acts on it). */
export function createDrillScheduleHandlers(deps: {
  db: Kysely<KillSwitchDatabase>;
  now: () => Date;
}): Pick<ServiceImpl<typeof KillSwitchService>, "getDrillSchedule" | "setDrillSchedule"> {
  return {
    getDrillSchedule: () => statusOf(deps.db, deps.now()),

    async setDrillSchedule(req, ctx) {
      const s = req.schedule!;
      // 0 is "unset" on the wire, and no month or day is 0: say which field is missing.
      if (s.monthOfQuarter < 1 || s.monthOfQuarter > 3)
        throw invalidField("month_of_quarter", "month_of_quarter must be 1, 2 or 3");
      if (s.dayOfMonth < 1 || s.dayOfMonth > 28)
        throw invalidField("day_of_month", "day_of_month must be 1 to 28 (every month has it)");
      const by = principalOf(ctx).sub;
      const origin = auditOriginOf(ctx);
      await deps.db.transaction().execute(async (trx) => {
        const row = {
          enabled: s.enabled,
          month_of_quarter: s.monthOfQuarter,
          day_of_month: s.dayOfMonth,
          hour_utc: s.hourUtc,
          minute_utc: s.minuteUtc,
          reason: s.reason,
          set_by: by,
        };
        const previous = await platformSchedule(trx);
        await setPlatformSchedule(trx, row);
        // The drill schedule is the kill switch's setting: a material control change (RTS 6 Art. 9).
        const settingsOf = (r: typeof row) => ({
          enabled: r.enabled,
          month_of_quarter: r.month_of_quarter,
          day_of_month: r.day_of_month,
          hour_utc: r.hour_utc,
          minute_utc: r.minute_utc,
        });
        const changed = changedSettings(settingsOf(previous), settingsOf(row));
        if (changed)
          await enqueueControlChange(trx, KILLSWITCH_SCHEMA, {
            kind: "kill_switch_settings",
            actor: by,
            changedAt: new Date(),
            before: { drill_schedule: changed.before },
            after: { drill_schedule: changed.after },
          });
        await recordAudit(trx, origin, {
          action: "killswitch.drill_schedule.set",
          outcome: "succeeded",
          resource: "drill_schedule/platform",
          details: row,
        });
      });
      return statusOf(deps.db, deps.now());
    },
  };
}

async function statusOf(db: Kysely<KillSwitchDatabase>, now: Date): Promise<DrillScheduleStatus> {
  const s = await platformSchedule(db);
  const current = quarterOf(now);
  const watchSince = new Date(s.watch_since);
  const quarters = Array.from({ length: QUARTERS_SHOWN }, (_, i) =>
    quarterAfter(current, -i),
  ).filter((q) => q.end > watchSince);
  const rows = new Map(
    (
      await quarterRows(
        db,
        quarters.map((q) => q.label),
      )
    ).map((r) => [r.quarter, r]),
  );
  const finished = await Promise.all(quarters.map((q) => finishedDrillsIn(db, q)));
  const covered = (await liveOrFinishedDrillsIn(db, current)) > 0;
  const time = {
    monthOfQuarter: s.month_of_quarter,
    dayOfMonth: s.day_of_month,
    hourUtc: s.hour_utc,
    minuteUtc: s.minute_utc,
  };
  return create(DrillScheduleStatusSchema, {
    schedule: create(DrillScheduleSchema, {
      enabled: s.enabled,
      ...time,
      reason: s.reason,
      setBy: s.set_by,
      setAt: s.set_at ? timestampFromDate(new Date(s.set_at)) : undefined,
    }),
    nextRunAt: s.enabled ? timestampFromDate(nextScheduled(now, time, covered)) : undefined,
    quarters: quarters.map((q, i) => ({
      quarter: q.label,
      startsAt: timestampFromDate(q.start),
      endsAt: timestampFromDate(q.end),
      drillsFinished: finished[i]!,
      scheduledDrillId: rows.get(q.label)?.scheduled_drill_id ?? "",
      missed: rows.get(q.label)?.missed_at != null,
    })),
  });
}
