import { createMemoryBus } from "@svc/lib/bus";
import { publishKillSwitchChanged } from "@svc/lib/contracts";
import { createMemoryStore } from "@svc/lib/kv";
import { allocateBars } from "../engine/bars.js";
import { riskLimitsFrom } from "../execution/risk-controls/index.js";
import { BotRunner } from "../runner/bot-runner.js";
import type { RunnerEvent } from "../runner/events.js";
import { keysFor, watchKillSwitch } from "../runner/kill-switch-watcher.js";
import { asJson, type CaseResult, type ConformanceCase } from "./compliance-case.js";
import { REFERENCE_PRICE, T0 } from "./venue.js";

const BARS = 500;
/** The strategy asks for a full position from this bar on; the switch is engaged once it has. */
const ENTRY_BAR = 3;

/**
 * The kill switch drains the bot (RTS 6 Art. 12): a runner of the bot, with the watcher a paper
 * session uses, is engaged over a bus and a key-value store of its own (never the platform's: a
 * conformance run must not halt anything real). Engaged in flatten mode right after its first
 * order, it must cancel what works, close the position, send nothing more and reach Stopped
 * before its bars run out.
 */
export const killSwitchDrain: ConformanceCase = {
  name: "kill_switch_drain",
  article: "RTS 6 Art. 12",
  async run(bot): Promise<CaseResult> {
    const bus = createMemoryBus();
    const kv = createMemoryStore();
    const keys = keysFor(bot.slug, bot.fleet);
    const events: RunnerEvent[] = [];
    let engagedAt = NaN;
    let engaged = false;
    const bars = allocateBars(BARS);
    for (let i = 0; i < BARS; i++) {
      const p = REFERENCE_PRICE * (1 + 0.001 * Math.sin(i));
      bars.time[i] = T0 + i * 60_000;
      bars.open[i] = bars.close[i] = p;
      bars.high[i] = p * 1.001;
      bars.low[i] = p * 0.999;
      bars.volume[i] = 1;
    }
    let seen = 0;
    const runner = new BotRunner({
      symbol: bot.symbol,
      bars,
      startIndex: 0,
      speed: 0,
      strategy: { onBar: () => (seen++ >= ENTRY_BAR ? 1 : 0) },
      costs: bot.costs,
      broker: { cash: bot.initialCash, units: 0 },
      risk: { limits: riskLimitsFrom(), startEquity: bot.initialCash },
      sink: async (batch) => {
        events.push(...batch);
        if (engaged || !batch.some((e) => e.type === "order_placed")) return;
        engaged = true;
        engagedAt = performance.now();
        // Not awaited: the runner waits on this sink, and the halt waits on the runner.
        void publishKillSwitchChanged(bus, {
          key: keys[keys.length - 1]!,
          engaged: true,
          mode: "flatten",
          reason: "conformance: kill-switch drain",
        });
      },
    });
    const watcher = watchKillSwitch({
      kv,
      bus,
      keys,
      pollMs: 50,
      onEngage: (e) => void runner.halt(`kill switch ${e.key}: ${e.reason}`, e.mode),
      onRelease: () => {},
      onBlind: () => {},
    });
    let ended: string;
    try {
      ended = await runner.finished();
    } finally {
      await watcher.stop();
    }
    const stoppedMs = performance.now() - engagedAt;
    return judge(this, events, ended, engaged, stoppedMs);
  },
};

function judge(
  c: ConformanceCase,
  events: RunnerEvent[],
  ended: string,
  engaged: boolean,
  stoppedMs: number,
): CaseResult {
  const phases = events.filter((e) => e.type === "phase_changed").map((e) => e.data.phase);
  const drainAt = events.findIndex((e) => e.type === "phase_changed");
  const before = drainAt < 0 ? events : events.slice(0, drainAt);
  const after = drainAt < 0 ? [] : events.slice(drainAt);
  const ended_ = new Set(
    events.flatMap((e) =>
      e.type === "order_filled" || e.type === "order_cancelled" ? [e.data.order_id] : [],
    ),
  );
  const working = before.flatMap((e) =>
    e.type === "order_placed" && !ended_.has(e.data.order_id) ? [e.data.order_id] : [],
  );
  const positions = events.flatMap((e) => (e.type === "position_changed" ? [e.data.units] : []));
  const finalPosition = positions.at(-1) ?? 0;
  // A flatten places one closing order that fills at once; anything else after Draining is new trading.
  const newOrders = after.filter(
    (e) => e.type === "order_placed" && !ended_.has(e.data.order_id),
  ).length;
  const bars = events.filter((e) => e.type === "bar_received").length;
  const passed =
    engaged &&
    ended === "stopped" &&
    phases.join(">") === "Draining>Stopped" &&
    working.length === 0 &&
    newOrders === 0 &&
    finalPosition === 0 &&
    bars < BARS;
  return {
    name: c.name,
    article: c.article,
    expected:
      "engaged (flatten) after the first order: Running -> Draining -> Stopped, working orders cancelled, position closed, no new order, before the bars run out",
    observed: engaged
      ? `${ended} after ${bars} of ${BARS} bars, phases ${phases.join(" -> ") || "none"}, ${working.length} orders left working, final position ${finalPosition}, stopped ${stoppedMs.toFixed(1)} ms after engaging`
      : "the runner placed no order, so the switch was never engaged",
    passed,
    evidence: asJson({
      phases,
      bars_seen: bars,
      left_working: working,
      final_position: finalPosition,
      stopped_ms: Math.round(stoppedMs * 1000) / 1000,
      records_after_engaging: after,
    }),
  };
}
