import { randomUUID } from "node:crypto";
import { create } from "@bufbuild/protobuf";
import { timestampDate } from "@bufbuild/protobuf/wkt";
import type { HandlerContext, ServiceImpl } from "@connectrpc/connect";
import {
  ApplyKillSwitchRequestSchema,
  DeleteKillSwitchRequestSchema,
  KillSwitchService,
  Mode,
  Scope,
} from "@svc/gen/svc/killswitch/v1/killswitch_pb.js";
import { BotPhase } from "@svc/gen/svc/events/v1/events_pb.js";
import { auditOriginOf } from "@svc/lib/audit";
import { principalOf } from "@svc/lib/auth";
import { listenBotPhaseChanged, PLATFORM_KILL_SWITCH_KEY } from "@svc/lib/contracts";
import { Code, svcError } from "@svc/lib/errors";
import type { Logger } from "@svc/lib/telemetry";
import type { DrillRoster } from "../clients/drill-roster.js";
import { drillSettled, longestWaitMs, type DrillBoundsMs } from "../domain/drill-verdict.js";
import type { KeyDeps } from "../engagement/key-sync.js";
import { endDrill, findDrill, insertDrill, runningDrills } from "../store/drills.repository.js";
import { recordAudit } from "../store/killswitch.repository.js";
import type { DrillRow } from "../store/killswitch.table.js";
import {
  judgedFigures,
  planDrill,
  plannedFigures,
  type DrillBotPlan,
  type PhaseTimes,
} from "./drill-figures.js";

export interface DrillRunnerDeps extends KeyDeps {
  switches: Pick<ServiceImpl<typeof KillSwitchService>, "applyKillSwitch" | "deleteKillSwitch">;
  /** Unset when this process has no way to the bots service: drills are refused. */
  roster?: DrillRoster;
  boundsMs: DrillBoundsMs;
  log: Pick<Logger, "warn" | "error">;
}

/** Postgres: the index that allows one running drill refused a second. */
const UNIQUE_VIOLATION = "23505";

/** How often a running drill looks at what it heard. */
const TICK_MS = 100;

/**
 * Runs drills off the request path. `start` engages the drill's own switch on the platform key
 * (with a TTL just past the longest bound, so the platform is released even if this process
 * dies), records the drill as running and returns; the judging continues in the background until
 * every bot stopped or is past its Stopped bound, then releases, waits for the restarts, and
 * stores the verdicts. `stop` ends the drills in flight: released, and recorded as interrupted.
 */
export function createDrillRunner(deps: DrillRunnerDeps) {
  const inFlight = new Map<string, { abort: AbortController; done: Promise<void> }>();

  async function refuseWhenBusy(): Promise<void> {
    const running = await runningDrills(deps.db);
    if (running.length > 0)
      throw svcError(
        Code.Aborted,
        "drill_running",
        `drill ${running[0]!.id} is still running: one drill at a time, or the second would time the first one's halt; follow it at GET /kill-switch/drills/${running[0]!.id}`,
        { id: running[0]!.id },
      );
    if (await deps.kv.get(PLATFORM_KILL_SWITCH_KEY).catch(() => null))
      throw svcError(
        Code.FailedPrecondition,
        "killswitch_engaged",
        "the platform kill switch is engaged for real: every bot is halted already, so a drill would measure nothing",
        { key: PLATFORM_KILL_SWITCH_KEY },
      );
  }

  async function rosterNow(): Promise<DrillBotPlan[]> {
    if (!deps.roster)
      throw svcError(
        Code.Unavailable,
        "bot_unverifiable",
        "this killswitch service has no way to ask the bots service which bots run (wire a bots client), so it cannot judge a drill; nothing was engaged",
        {},
      );
    try {
      return planDrill(await deps.roster(), deps.boundsMs);
    } catch (err) {
      throw svcError(
        Code.Unavailable,
        "bot_unverifiable",
        `the bots service did not say which bots run (${(err as Error).message}); nothing was engaged, start the drill again`,
        {},
        { cause: err },
      );
    }
  }

  async function start(reason: string, ctx: HandlerContext): Promise<DrillRow> {
    const by = principalOf(ctx).sub;
    const origin = auditOriginOf(ctx);
    await refuseWhenBusy();
    const plan = await rosterNow();
    // A caller whose deadline passed while the roster was read has been told the drill failed:
    // halting every bot now would be a drill nobody is watching.
    if (ctx.signal.aborted)
      throw svcError(
        Code.DeadlineExceeded,
        "drill_caller_gone",
        "the request's deadline passed while the drill's roster was read; nothing was engaged, start the drill again",
        {},
      );
    const id = randomUUID();
    const startedAt = new Date();
    if (plan.length === 0) {
      await deps.db.transaction().execute(async (trx) => {
        await insertDrill(trx, {
          id,
          startedAt,
          startedBy: by,
          reason,
          figures: plannedFigures(plan, "no bot was running: nothing was engaged or judged"),
          state: "finished",
          verdict: "no_bots",
          endedAt: startedAt,
          switchName: null,
          releaseBy: null,
        });
        await recordAudit(trx, origin, {
          action: "killswitch.drill",
          outcome: "succeeded",
          resource: `drill/${id}`,
          details: { id, bots: 0, verdict: "no_bots" },
        });
      });
      return (await findDrill(deps.db, id))!;
    }

    const times = new Map<string, PhaseTimes>();
    const planned = new Set(plan.map((p) => p.taskId));
    let t0 = Date.now();
    const listener = listenBotPhaseChanged(deps.bus, (e) => {
      if (!planned.has(e.taskId)) return;
      const at = Math.max(0, (e.at ? timestampDate(e.at).getTime() : Date.now()) - t0);
      const t = times.get(e.taskId) ?? { drainingMs: null, stoppedMs: null, restarted: false };
      if (e.phase === BotPhase.DRAINING) t.drainingMs ??= at;
      if (e.phase === BotPhase.STOPPED) t.stoppedMs ??= at;
      if (e.phase === BotPhase.RUNNING && t.stoppedMs !== null) t.restarted = true;
      times.set(e.taskId, t);
    });
    // The drill is one more switch on the platform key: releasing it releases no other. Its TTL
    // outlasts the longest wait and the restart check, so only a dead process ever relies on it.
    const name = `drill-${id.slice(0, 8)}`;
    const ttlS = Math.ceil((longestWaitMs(plan) + deps.boundsMs.draining) / 1_000) + 1;
    t0 = Date.now();
    try {
      await deps.switches.applyKillSwitch(
        create(ApplyKillSwitchRequestSchema, {
          name,
          spec: {
            scope: Scope.PLATFORM,
            target: "platform",
            mode: Mode.CANCEL,
            reason,
            ttl: `${ttlS}s`,
          },
        }),
        ctx,
      );
      await deps.db.transaction().execute(async (trx) => {
        await insertDrill(trx, {
          id,
          startedAt: new Date(t0),
          startedBy: by,
          reason,
          figures: plannedFigures(plan),
          state: "running",
          verdict: null,
          endedAt: null,
          switchName: name,
          releaseBy: new Date(t0 + ttlS * 1_000),
        });
        await recordAudit(trx, origin, {
          action: "killswitch.drill",
          outcome: "succeeded",
          resource: `drill/${id}`,
          details: { id, bots: plan.length, switch: name },
        });
      });
    } catch (err) {
      await listener.stop();
      await release(name, ctx).catch(() => undefined);
      if ((err as { code?: unknown }).code === UNIQUE_VIOLATION)
        throw svcError(
          Code.Aborted,
          "drill_running",
          "another drill started at the same moment: one drill at a time; this one was released",
          {},
          { cause: err },
        );
      throw err;
    }
    const abort = new AbortController();
    const done = judge({ id, name, plan, times, t0, ctx, signal: abort.signal })
      .catch((err: unknown) => deps.log.error({ err, drill: id }, "a drill could not be judged"))
      .finally(async () => {
        await listener.stop();
        inFlight.delete(id);
      });
    inFlight.set(id, { abort, done });
    return (await findDrill(deps.db, id))!;
  }

  // The release is recorded under the person who started the drill: their request's principal
  // and request id are kept in its context, which outlives the answer to the request.
  const release = (name: string, ctx: HandlerContext) =>
    Promise.resolve(
      deps.switches.deleteKillSwitch(
        create(DeleteKillSwitchRequestSchema, { name, reason: "the drill ended" }),
        ctx,
      ),
    );

  const until = async (ok: () => boolean, endAt: number, signal: AbortSignal) => {
    while (!ok() && Date.now() < endAt && !signal.aborted)
      await new Promise((r) => setTimeout(r, TICK_MS));
  };

  async function judge(d: {
    id: string;
    name: string;
    plan: DrillBotPlan[];
    times: Map<string, PhaseTimes>;
    t0: number;
    ctx: HandlerContext;
    signal: AbortSignal;
  }): Promise<void> {
    const stoppedOf = (taskId: string) => d.times.get(taskId)?.stoppedMs ?? null;
    const settled = () =>
      drillSettled(
        d.plan.map((p) => ({ stoppedMs: stoppedOf(p.taskId), stoppedBoundMs: p.stoppedBoundMs })),
        Date.now() - d.t0,
      );
    // Past the longest bound by one tick, so a bot at its bound is seen as past it.
    await until(settled, d.t0 + longestWaitMs(d.plan) + TICK_MS, d.signal);
    const notes: string[] = [];
    await release(d.name, d.ctx).catch((err: unknown) => {
      notes.push(
        `the drill's switch ${d.name} could not be released (${(err as Error).message}); it lapsed by its TTL`,
      );
    });
    if (!d.signal.aborted) {
      const restartBy = Date.now() + deps.boundsMs.draining;
      const halted = () => d.plan.filter((p) => stoppedOf(p.taskId) !== null);
      await until(
        () => halted().every((p) => d.times.get(p.taskId)?.restarted),
        restartBy,
        d.signal,
      );
    }
    if (d.signal.aborted) {
      notes.push("the killswitch service stopped during the drill: released, not judged");
      await endDrill(deps.db, d.id, {
        state: "interrupted",
        verdict: null,
        figures: plannedFigures(d.plan, notes.join("; ")),
      });
      return;
    }
    const judged = judgedFigures(d.plan, d.times, notes.join("; ") || undefined);
    await endDrill(deps.db, d.id, {
      state: "finished",
      verdict: judged.verdict,
      figures: judged.figures,
    });
  }

  return {
    start,
    /** The drills this process is judging (the sweep leaves them alone). */
    inFlight: () => new Set(inFlight.keys()),
    async stop(): Promise<void> {
      const all = [...inFlight.values()];
      for (const f of all) f.abort.abort();
      await Promise.all(all.map((f) => f.done));
    },
  };
}

export type DrillRunner = ReturnType<typeof createDrillRunner>;
