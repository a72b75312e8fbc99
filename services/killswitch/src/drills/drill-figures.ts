import type { RosterEntry } from "../clients/drill-roster.js";
import {
  boundsFor,
  classifyPace,
  judgeBot,
  judgeDrill,
  type DrillBoundsMs,
} from "../domain/drill-verdict.js";
import type { DrillBotFigures, DrillFigures, DrillVerdictName } from "../store/killswitch.table.js";

/** A bot of a drill before it is judged: who, its pace and its bounds. */
export interface DrillBotPlan {
  taskId: string;
  botId: string;
  slug: string;
  highFrequency: boolean;
  basis: string;
  drainingBoundMs: number;
  stoppedBoundMs: number;
}

/** What the drill heard from one runner, in ms after the engagement. */
export interface PhaseTimes {
  drainingMs: number | null;
  stoppedMs: number | null;
  restarted: boolean;
}

/** Classifies every session of the roster and gives it its bounds. */
export function planDrill(roster: RosterEntry[], bounds: DrillBoundsMs): DrillBotPlan[] {
  return roster.map((r) => {
    const pace = classifyPace(r);
    const b = boundsFor(pace.highFrequency, bounds);
    return {
      taskId: r.taskId,
      botId: r.botId,
      slug: r.slug,
      highFrequency: pace.highFrequency,
      basis: pace.basis,
      drainingBoundMs: b.drainingMs,
      stoppedBoundMs: b.stoppedMs,
    };
  });
}

const botFigures = (p: DrillBotPlan, t: PhaseTimes | null): DrillBotFigures => ({
  task_id: p.taskId,
  bot_id: p.botId,
  bot_slug: p.slug,
  high_frequency: p.highFrequency,
  high_frequency_basis: p.basis,
  draining_bound_ms: p.drainingBoundMs,
  stopped_bound_ms: p.stoppedBoundMs,
  draining_ms: t?.drainingMs ?? null,
  stopped_ms: t?.stoppedMs ?? null,
  restarted: t?.restarted ?? false,
});

/** The figures of a drill that has not been judged yet: the roster with its bounds. */
export function plannedFigures(plan: DrillBotPlan[], note?: string): DrillFigures {
  return {
    bots: plan.length,
    draining_p50_ms: 0,
    draining_max_ms: 0,
    stopped_max_ms: 0,
    all_restarted: false,
    per_bot: plan.map((p) => botFigures(p, null)),
    ...(note ? { note } : {}),
  };
}

/** Judges every bot from what its runner announced, and the drill from them. */
export function judgedFigures(
  plan: DrillBotPlan[],
  times: Map<string, PhaseTimes>,
  note?: string,
): { figures: DrillFigures; verdict: DrillVerdictName } {
  const perBot = plan.map((p) => {
    const t = times.get(p.taskId) ?? { drainingMs: null, stoppedMs: null, restarted: false };
    const judged = judgeBot(t, { drainingMs: p.drainingBoundMs, stoppedMs: p.stoppedBoundMs });
    return {
      ...botFigures(p, t),
      verdict: judged.verdict,
      misses: judged.misses.map((m) => ({
        bound: m.bound,
        bound_ms: m.boundMs,
        observed_ms: m.observedMs,
        message: m.message,
      })),
    };
  });
  const drains = perBot
    .map((b) => b.draining_ms)
    .filter((v): v is number => v !== null)
    .sort((a, b) => a - b);
  const stops = perBot.map((b) => b.stopped_ms).filter((v): v is number => v !== null);
  return {
    verdict: judgeDrill(perBot.map((b) => b.verdict)),
    figures: {
      bots: perBot.length,
      draining_p50_ms: drains[Math.floor(drains.length / 2)] ?? 0,
      draining_max_ms: drains.at(-1) ?? 0,
      stopped_max_ms: Math.max(0, ...stops),
      all_restarted: perBot.length > 0 && perBot.every((b) => b.restarted),
      per_bot: perBot,
      ...(note ? { note } : {}),
    },
  };
}
