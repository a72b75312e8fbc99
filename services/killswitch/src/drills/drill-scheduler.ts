import { create, getOption, toBinary } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import { ConnectError, createContextValues, createHandlerContext } from "@connectrpc/connect";
import type { Kysely } from "kysely";
import { DrillMissedSchema, event_subject } from "@svc/gen/svc/events/v1/events_pb.js";
import { KillSwitchService } from "@svc/gen/svc/killswitch/v1/killswitch_pb.js";
import { principalKey, type Principal } from "@svc/lib/auth";
import { enqueueEvent } from "@svc/lib/bus";
import { errorDetailOf } from "@svc/lib/errors";
import type { Logger } from "@svc/lib/telemetry";
import { quarterAfter, quarterOf, scheduledIn } from "../domain/quarters.js";
import {
  claimScheduledStart,
  finishedDrillsIn,
  liveOrFinishedDrillsIn,
  markQuarterMissed,
  platformSchedule,
  recordScheduledDrill,
  releaseQuarterClaim,
} from "../store/drill-schedule.repository.js";
import { recordAudit } from "../store/killswitch.repository.js";
import { KILLSWITCH_SCHEMA, type KillSwitchDatabase } from "../store/killswitch.table.js";
import type { DrillRunner } from "./drill-runner.js";

/** Who a scheduled drill is started by: the schedule, set by a person who stepped up. */
export const SCHEDULE_PRINCIPAL: Principal = {
  sub: "system:drill-schedule",
  actorType: "machine",
  delegated: false,
  roles: [],
  scopes: [],
  amr: [],
};

/**
 * One look at the calendar (the killswitch service's sweep calls it every few seconds):
 * - the current quarter's scheduled drill starts once its time has come, unless a drill already
 *   finished or runs that quarter; one process across replicas starts it (a claimed row), and a
 *   start the runner refuses (a drill running, the platform engaged for real, the bots service
 *   unreachable) is given back and tried again at the next look;
 * - the quarter before, ended without a finished drill, is marked missed once: an audit entry and
 *   a DrillMissed event, so a person hears of it (quarters before the platform watched are not
 *   judged).
 */
export function createDrillScheduler(o: {
  db: Kysely<KillSwitchDatabase>;
  runner: Pick<DrillRunner, "start">;
  log: Pick<Logger, "warn" | "info">;
  now?: () => Date;
}) {
  const now = o.now ?? (() => new Date());
  const refusedOnce = new Set<string>();

  async function startDue(at: Date): Promise<void> {
    const schedule = await platformSchedule(o.db);
    if (!schedule.enabled) return;
    const quarter = quarterOf(at);
    const due = scheduledIn(quarter, {
      monthOfQuarter: schedule.month_of_quarter,
      dayOfMonth: schedule.day_of_month,
      hourUtc: schedule.hour_utc,
      minuteUtc: schedule.minute_utc,
    });
    if (at < due) return;
    if ((await liveOrFinishedDrillsIn(o.db, quarter)) > 0) return;
    if (!(await claimScheduledStart(o.db, quarter.label))) return;
    const reason = `quarterly drill ${quarter.label} (schedule set by ${schedule.set_by}${schedule.reason ? `: ${schedule.reason}` : ""})`;
    try {
      const drill = await o.runner.start(reason, scheduleContext());
      await recordScheduledDrill(o.db, quarter.label, drill.id);
      refusedOnce.delete(quarter.label);
      o.log.info({ drill_id: drill.id, quarter: quarter.label }, "the scheduled drill started");
    } catch (err) {
      await releaseQuarterClaim(o.db, quarter.label);
      // Said once per quarter, not at every look while the cause lasts.
      if (!refusedOnce.has(quarter.label))
        o.log.warn(
          { quarter: quarter.label, error: errorDetailOf(ConnectError.from(err)).code },
          `the scheduled drill of ${quarter.label} could not start (${ConnectError.from(err).rawMessage}); trying again`,
        );
      refusedOnce.add(quarter.label);
    }
  }

  async function raiseMissed(at: Date): Promise<void> {
    const previous = quarterAfter(quarterOf(at), -1);
    const schedule = await platformSchedule(o.db);
    if (new Date(schedule.watch_since) > previous.start) return;
    if ((await finishedDrillsIn(o.db, previous)) > 0) return;
    await o.db.transaction().execute(async (trx) => {
      if (!(await markQuarterMissed(trx, previous.label))) return;
      await recordAudit(
        trx,
        { principal: undefined, system: SCHEDULE_PRINCIPAL.sub },
        {
          action: "killswitch.drill.missed",
          outcome: "failed",
          resource: `drill_quarter/${previous.label}`,
          details: { quarter: previous.label, schedule_enabled: schedule.enabled },
        },
      );
      await enqueueEvent(trx, KILLSWITCH_SCHEMA, {
        subject: getOption(DrillMissedSchema, event_subject),
        type: DrillMissedSchema.typeName,
        payload: toBinary(
          DrillMissedSchema,
          create(DrillMissedSchema, {
            quarter: previous.label,
            quarterEndedAt: timestampFromDate(previous.end),
            scheduleEnabled: schedule.enabled,
          }),
        ),
      });
      o.log.warn(
        { quarter: previous.label },
        `${previous.label} ended without a finished kill-switch drill (RTS 6 asks for one a quarter)`,
      );
    });
  }

  return {
    async tick(): Promise<void> {
      const at = now();
      await raiseMissed(at);
      await startDue(at);
    },
    now,
  };
}

export type DrillScheduler = ReturnType<typeof createDrillScheduler>;

function scheduleContext() {
  return createHandlerContext({
    service: KillSwitchService,
    method: KillSwitchService.method.runDrill,
    protocolName: "connect",
    requestMethod: "POST",
    url: "internal://drill-schedule",
    requestSignal: new AbortController().signal,
    contextValues: createContextValues().set(principalKey, SCHEDULE_PRINCIPAL),
  });
}
