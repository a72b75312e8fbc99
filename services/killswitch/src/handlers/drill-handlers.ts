import { randomUUID } from "node:crypto";
import { create } from "@bufbuild/protobuf";
import { timestampDate, timestampFromDate } from "@bufbuild/protobuf/wkt";
import type { ServiceImpl } from "@connectrpc/connect";
import {
  ApplyKillSwitchRequestSchema,
  DeleteKillSwitchRequestSchema,
  DrillResultSchema,
  KillSwitchService,
  ListDrillsResponseSchema,
  Mode,
  Scope,
  type DrillResult,
} from "@svc/gen/svc/killswitch/v1/killswitch_pb.js";
import { BotPhase } from "@svc/gen/svc/events/v1/events_pb.js";
import { auditOriginOf } from "@svc/lib/audit";
import { principalOf } from "@svc/lib/auth";
import { listenBotPhaseChanged, PLATFORM_KILL_SWITCH_KEY } from "@svc/lib/contracts";
import { Code, svcError } from "@svc/lib/errors";
import type { KeyDeps } from "../engagement/key-sync.js";
import { insertDrill, latestDrills } from "../store/drills.repository.js";
import { recordAudit } from "../store/killswitch.repository.js";
import type { DrillFigures } from "../store/killswitch.table.js";

const DRAIN_BOUND_MS = 10_000;

/**
 * The quarterly drill: engages the platform scope, times each running bot to Draining and to
 * Stopped from the phases runners announce, releases, checks every one restarted, and keeps the
 * figures (the compliance report embeds them).
 */
export function createDrillHandlers(
  deps: KeyDeps & {
    switches: Pick<ServiceImpl<typeof KillSwitchService>, "applyKillSwitch" | "deleteKillSwitch">;
  },
): Pick<ServiceImpl<typeof KillSwitchService>, "runDrill" | "listDrills"> {
  const quietFor = async (lastEvent: () => number, maxMs: number) => {
    const start = Date.now();
    while (Date.now() - start < maxMs && Date.now() - lastEvent() < 1_000)
      await new Promise((r) => setTimeout(r, 50));
  };
  return {
    async runDrill(req, ctx) {
      const p = principalOf(ctx);
      if (await deps.kv.get(PLATFORM_KILL_SWITCH_KEY).catch(() => null)) {
        throw svcError(
          Code.FailedPrecondition,
          "killswitch_engaged",
          "the platform kill switch is engaged for real: every bot is halted already, so a drill would measure nothing",
          { key: PLATFORM_KILL_SWITCH_KEY },
        );
      }
      const seen = new Map<string, { draining?: number; stopped?: number; running?: number }>();
      let last = Date.now();
      const listener = listenBotPhaseChanged(deps.bus, (e) => {
        const at = e.at ? timestampDate(e.at).getTime() : Date.now();
        const entry = seen.get(e.taskId) ?? {};
        if (e.phase === BotPhase.DRAINING) entry.draining ??= at;
        if (e.phase === BotPhase.STOPPED) entry.stopped ??= at;
        if (e.phase === BotPhase.RUNNING && entry.stopped) entry.running ??= at;
        seen.set(e.taskId, entry);
        last = Date.now();
      });
      const reason = req.reason || "kill-switch drill";
      const id = randomUUID();
      // The drill is one more switch on the platform key: releasing it releases no other.
      const name = `drill-${id.slice(0, 8)}`;
      const t0 = Date.now();
      try {
        await deps.switches.applyKillSwitch(
          create(ApplyKillSwitchRequestSchema, {
            name,
            spec: { scope: Scope.PLATFORM, target: "platform", mode: Mode.CANCEL, reason },
          }),
          ctx,
        );
        last = Date.now();
        await quietFor(() => last, DRAIN_BOUND_MS);
      } finally {
        // A release the store refuses is retried by nobody: say so rather than leave the platform halted unnoticed.
        await Promise.resolve(
          deps.switches.deleteKillSwitch(create(DeleteKillSwitchRequestSchema, { name }), ctx),
        ).catch((err: unknown) => {
          throw svcError(
            Code.Unavailable,
            "killswitch_store_unreachable",
            `the drill's switch ${name} could not be released: ${(err as Error).message}; release it with DELETE /kill-switches/${name}`,
            { name },
            { cause: err },
          );
        });
      }
      last = Date.now();
      const halted = () => [...seen.values()].filter((e) => e.stopped);
      const restartDeadline = Date.now() + DRAIN_BOUND_MS;
      while (Date.now() < restartDeadline && halted().some((e) => !e.running))
        await new Promise((r) => setTimeout(r, 50));
      await listener.stop();

      const perBot = [...seen.entries()].map(([task, e]) => ({
        task_id: task,
        draining_ms: (e.draining ?? t0) - t0,
        stopped_ms: e.stopped ? e.stopped - t0 : null,
        restarted: e.running !== undefined,
      }));
      const drains = perBot.map((b) => b.draining_ms).sort((a, b) => a - b);
      const figures: DrillFigures = {
        bots: perBot.length,
        draining_p50_ms: drains[Math.floor(drains.length / 2)] ?? 0,
        draining_max_ms: drains.at(-1) ?? 0,
        stopped_max_ms: Math.max(0, ...perBot.map((b) => b.stopped_ms ?? 0)),
        all_restarted: perBot.every((b) => b.restarted),
        per_bot: perBot,
      };
      await deps.db.transaction().execute(async (trx) => {
        await insertDrill(trx, { id, startedBy: p.sub, reason, figures });
        await recordAudit(trx, auditOriginOf(ctx), {
          action: "killswitch.drill",
          outcome: "succeeded",
          resource: `drill/${id}`,
          details: { id, bots: figures.bots, all_restarted: figures.all_restarted },
        });
      });
      return toResult(id, new Date(t0), figures);
    },

    async listDrills() {
      const rows = await latestDrills(deps.db, 100);
      return create(ListDrillsResponseSchema, {
        items: rows.map((r) => toResult(r.id, new Date(r.started_at), r.result)),
      });
    },
  };
}

function toResult(id: string, startedAt: Date, f: DrillFigures): DrillResult {
  return create(DrillResultSchema, {
    id,
    startedAt: timestampFromDate(startedAt),
    bots: f.bots,
    drainingP50Ms: f.draining_p50_ms,
    drainingMaxMs: f.draining_max_ms,
    stoppedMaxMs: f.stopped_max_ms,
    allRestarted: f.all_restarted,
  });
}
