import { create } from "@bufbuild/protobuf";
import { timestampDate } from "@bufbuild/protobuf/wkt";
import {
  ConnectError,
  createContextValues,
  createHandlerContext,
  type ServiceImpl,
} from "@connectrpc/connect";
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  DrillVerdict,
  GetDrillScheduleRequestSchema,
  GetDrillRequestSchema,
  KillSwitchService,
  SetDrillScheduleRequestSchema,
  type DrillScheduleStatus,
} from "@svc/gen/svc/killswitch/v1/killswitch_pb.js";
import { localPrincipal, principalKey } from "@svc/lib/auth";
import { loadConfig } from "@svc/lib/config";
import { errorDetailOf } from "@svc/lib/errors";
import { openPlatform, type Platform, type ServiceModule } from "@svc/lib/server";
import type { RosterEntry } from "../clients/drill-roster.js";
import { quarterAfter, quarterOf } from "../domain/quarters.js";
import { createKillSwitchModule } from "../index.js";

type Handlers = ServiceImpl<typeof KillSwitchService>;

function handlersOf(module: ServiceModule): Handlers {
  let served: Handlers | undefined;
  module.routes({ service: (_d: unknown, impl: Handlers) => void (served = impl) } as never);
  return served!;
}

const ctx = () =>
  createHandlerContext({
    service: KillSwitchService,
    method: KillSwitchService.method.setDrillSchedule,
    protocolName: "connect",
    requestMethod: "PUT",
    url: "http://in-test/schedule",
    requestSignal: new AbortController().signal,
    contextValues: createContextValues().set(principalKey, localPrincipal(new Headers())),
  });

async function until<T>(what: string, probe: () => Promise<T>, ok: (v: T) => boolean): Promise<T> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const v = await probe();
    if (ok(v)) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/**
 * The quarterly drill on its own: a person sets the schedule (halt:platform and step-up at the
 * route), the service starts the quarter's drill when its time comes (once, and not when a drill
 * already covers the quarter), and a quarter that ends without one is raised once.
 */
describe("the quarterly drill schedule", () => {
  let platform: Platform;
  let module: ServiceModule;
  let h: Handlers;
  const clock = () => new Date();
  const shift = (query: ReturnType<typeof sql>) => query.execute(platform.db.db);
  let roster: () => Promise<RosterEntry[]> = () => Promise.resolve([]);
  const outbox = (subject: string) =>
    sql<{ n: string }>`select count(*)::text as n from killswitch.outbox where subject = ${subject}`
      .execute(platform.db.db)
      .then((r) => Number(r.rows[0]!.n));
  const status = () =>
    Promise.resolve(
      h.getDrillSchedule(create(GetDrillScheduleRequestSchema, {}), ctx()),
    ) as Promise<DrillScheduleStatus>;
  const set = (schedule: Record<string, unknown>) =>
    Promise.resolve(
      h.setDrillSchedule(create(SetDrillScheduleRequestSchema, { schedule }), ctx()),
    ) as Promise<DrillScheduleStatus>;

  beforeAll(async () => {
    platform = await openPlatform(
      loadConfig({ SVC_DATA_DIR: "memory://", SVC_LOG_LEVEL: "silent" }),
      "killswitch",
    );
    module = await createKillSwitchModule(platform, { drillRoster: () => roster() });
    h = handlersOf(module);
    await module.start?.();
  }, 60_000);
  afterAll(async () => {
    await module?.stop?.();
    await platform?.close();
  });

  it("is off until set, and shows the quarter the platform watches from", async () => {
    const s = await status();
    expect(s.schedule?.enabled).toBe(false);
    expect(s.nextRunAt).toBeUndefined();
    expect(s.quarters.map((q) => q.quarter)).toEqual([quarterOf(clock()).label]);
  });

  it("refuses a month or day no quarter has, naming the field", async () => {
    for (const [field, schedule] of [
      ["month_of_quarter", { enabled: true, monthOfQuarter: 4, dayOfMonth: 1 }],
      ["month_of_quarter", { enabled: true, dayOfMonth: 1 }],
      ["day_of_month", { enabled: true, monthOfQuarter: 1, dayOfMonth: 31 }],
    ] as const) {
      const err = await set(schedule).then(
        () => undefined,
        (e: unknown) => ConnectError.from(e),
      );
      expect(err && errorDetailOf(err)).toMatchObject({
        code: "invalid_argument",
        details: { field },
      });
    }
    expect((await status()).schedule?.enabled).toBe(false);
  });

  it("starts the quarter's drill once its time has passed, once, and names the schedule as its starter", async () => {
    // The first day of the quarter at midnight: already past, so the drill is due now.
    const set1 = await set({
      enabled: true,
      monthOfQuarter: 1,
      dayOfMonth: 1,
      reason: "RTS 6 Art. 12",
    });
    expect(set1.schedule).toMatchObject({ enabled: true, setBy: "local|default" });
    const s = await until(
      "the scheduled drill ran",
      status,
      // The drill is recorded finished (no bots) a moment before the quarter names it.
      (v) => v.quarters[0]!.drillsFinished === 1 && v.quarters[0]!.scheduledDrillId !== "",
    );
    const id = s.quarters[0]!.scheduledDrillId;
    const drill = await h.getDrill(create(GetDrillRequestSchema, { id }), ctx());
    expect(drill).toMatchObject({
      startedBy: "system:drill-schedule",
      verdict: DrillVerdict.NO_BOTS,
    });
    expect(drill.reason).toMatch(/quarterly drill .* set by local\|default: RTS 6 Art. 12/);
    // The next one is next quarter's first day.
    expect(timestampDate(s.nextRunAt!)).toEqual(quarterAfter(quarterOf(clock()), 1).start);
    await new Promise((r) => setTimeout(r, 6_000));
    expect((await status()).quarters[0]!.drillsFinished).toBe(1);
  }, 60_000);

  it("tries again at the next look when the drill cannot start, and starts it once it can", async () => {
    // The drill so far moves back over two quarters: this quarter has none again.
    await shift(sql`update killswitch.drills set started_at = started_at - interval '200 days'`);
    await shift(sql`delete from killswitch.drill_quarters`);
    let asked = 0;
    roster = () => {
      asked++;
      return Promise.reject(new Error("bots service unreachable"));
    };
    await until(
      "the schedule tried twice",
      () => Promise.resolve(asked),
      (n) => n >= 2,
    );
    expect((await status()).quarters[0]!.drillsFinished).toBe(0);
    roster = () => Promise.resolve([]);
    const s = await until(
      "the retried drill ran",
      status,
      // The drill is recorded finished (no bots) a moment before the quarter names it.
      (v) => v.quarters[0]!.drillsFinished === 1 && v.quarters[0]!.scheduledDrillId !== "",
    );
    expect(s.quarters[0]!.scheduledDrillId).not.toBe("");
  }, 60_000);

  it("raises a quarter that ended without a drill, once: an audit entry and a DrillMissed event", async () => {
    await set({ enabled: false, monthOfQuarter: 1, dayOfMonth: 1 });
    const audited = await outbox("svc.audit.recorded");
    // The platform has watched for over a year; last quarter had no drill.
    await shift(
      sql`update killswitch.drill_schedule set watch_since = now() - interval '400 days'`,
    );
    const s = await until(
      "the missed quarter is raised",
      status,
      (v) => v.quarters[1]?.missed === true,
    );
    expect(s.quarters[1]).toMatchObject({ drillsFinished: 0, scheduledDrillId: "" });
    // The quarter two or three back holds the drill moved there: only last quarter is judged.
    expect(s.quarters.slice(2).some((q) => q.drillsFinished === 1)).toBe(true);
    expect(s.quarters.filter((q) => q.missed)).toHaveLength(1);
    await new Promise((r) => setTimeout(r, 6_000));
    expect(await outbox("svc.killswitch.drill_missed")).toBe(1);
    expect(await outbox("svc.audit.recorded")).toBeGreaterThan(audited);
  }, 60_000);
});
