import { createMemoryBus } from "@svc/lib/bus";
import { publishKillSwitchChanged } from "@svc/lib/contracts";
import { createMemoryStore } from "@svc/lib/kv";
import { alignBars } from "../engine/portfolio/aligned.js";
import { riskLimitsFrom } from "../execution/risk-controls/index.js";
import { BotRunner } from "../runner/bot-runner.js";
import { PortfolioRunner } from "../runner/portfolio-runner.js";
import type { RunnerEvent } from "../runner/events.js";
import { keysFor, watchKillSwitch } from "../runner/kill-switch-watcher.js";
import { asJson, type CaseResult, type ConformanceCase } from "./compliance-case.js";
import { flatBars, tradesUniverse } from "./portfolio-cases.js";
import { REFERENCE_PRICE } from "./venue.js";

const BARS = 500;
/** The strategy asks for a full position from this bar on; the switch is engaged once it has. */
const ENTRY_BAR = 3;

/**
 * The kill switch drains the bot (RTS 6 Art. 12): a runner of the bot, with the watcher a paper
 * session uses, is engaged over a bus and a key-value store of its own (never the platform's: a
 * conformance run must not halt anything real). Engaged in flatten mode right after its first
 * order, it must cancel what works, close the position, send nothing more and reach Stopped
 * before its bars run out. A bot trading a universe runs as a paper session of it does
 * (PortfolioRunner), every symbol entering at once: every symbol's orders and positions must go.
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
    const bars = flatBars(BARS, (i) => REFERENCE_PRICE * (1 + 0.001 * Math.sin(i)), 1);
    const sink = async (batch: RunnerEvent[]) => {
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
    };
    const entering = () => {
      let seen = 0;
      return { onBar: () => (seen++ >= ENTRY_BAR ? 1 : 0) };
    };
    const risk = { limits: riskLimitsFrom(), startEquity: bot.initialCash };
    const runner = tradesUniverse(bot)
      ? new PortfolioRunner({
          bars: alignBars(new Map(bot.symbols!.map((s) => [s, bars]))),
          startIndex: 0,
          speed: 0,
          strategies: bot.symbols!.map(entering),
          settings: { ...bot.costs, initialCash: bot.initialCash },
          accounts: {},
          idPrefix: "",
          risk,
          sink,
        })
      : new BotRunner({
          symbol: bot.symbol,
          bars,
          startIndex: 0,
          speed: 0,
          strategy: entering(),
          costs: bot.costs,
          broker: { cash: bot.initialCash, units: 0 },
          risk,
          sink,
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
  // Every symbol's last position (a universe's each): all must be flat.
  const last = new Map<string, number>();
  for (const e of events) if (e.type === "position_changed") last.set(e.data.symbol, e.data.units);
  const finalPosition = [...last.values()].reduce((n, u) => n + Math.abs(u), 0);
  const symbolsTraded = new Set(
    events.flatMap((e) =>
      e.type === "order_placed" ? [(e.data as { symbol?: string }).symbol ?? ""] : [],
    ),
  ).size;
  // A flatten places one closing order that fills at once; anything else after Draining is new trading.
  const newOrders = after.filter(
    (e) => e.type === "order_placed" && !ended_.has(e.data.order_id),
  ).length;
  // Steps of the clock seen (a universe records a bar of each symbol at each).
  const bars = new Set(events.flatMap((e) => (e.type === "bar_received" ? [e.data.index] : [])))
    .size;
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
      ? `${ended} after ${bars} bars (${symbolsTraded} symbol${symbolsTraded === 1 ? "" : "s"} ordered), phases ${phases.join(" -> ") || "none"}, ${working.length} orders left working, final position ${finalPosition}, stopped ${stoppedMs.toFixed(1)} ms after engaging`
      : "the runner placed no order, so the switch was never engaged",
    passed,
    evidence: asJson({
      phases,
      bars_seen: bars,
      left_working: working,
      final_position: finalPosition,
      final_positions: Object.fromEntries(last),
      stopped_ms: Math.round(stoppedMs * 1000) / 1000,
      records_after_engaging: after,
    }),
  };
}
