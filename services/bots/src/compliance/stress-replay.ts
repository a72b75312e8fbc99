import type { Bars } from "../engine/bars.js";
import type { Strategy } from "../engine/strategies/strategy.js";
import type { ExecutionEvent } from "../execution/events.js";
import {
  BuiltInHost,
  createKernel,
  type BarBlock,
  type DecisionSink,
  type PortfolioView,
  type StrategyHost,
} from "../execution/kernel/index.js";
import { ACCEPT, type PreTradeCheck } from "../execution/pre-trade.js";
import { CONTROL } from "../execution/risk-controls/index.js";
import { VOLUME_CANCEL, type SimulatedBroker } from "../execution/simulated-broker.js";
import type { BotUnderTest } from "./compliance-case.js";
import { compressionFor } from "./compression.js";
import { percentiles } from "./percentiles.js";
import { StressWitness } from "./stress-witness.js";

/** Order messages a replay aims at, for a p99 worth the name: laps of the data set until then. */
export const MIN_MESSAGES = 2_000;
/** Most laps of the data set, so a bot that rarely trades still ends as a short task. */
export const MAX_LAPS = 200;
/** Slices of a replay, between which the task reports progress and yields. */
export const STRESS_SLICES = 10;

export interface Peak {
  source: "paper_events" | "data_set";
  messagesPerSecond: number;
  volume: number;
}

/** What a stress run measured (StressResult in the proto, snake_case as stored). */
export type StressOutcome = Record<string, unknown> & {
  controls_held: boolean;
  orders_lost: number;
};

/**
 * RTS 6 Article 10: the bot's own strategy (a fresh instance per lap of the data set) over its
 * data set, through the execution kernel of every run (its venue, risk controls under the bot's
 * limits, order pipeline and strategy host), with two things multiplied by `multiple`: the bars' volume (which bounds fills)
 * and the rate of its orders. The rate comes from compressing the bot's clock (see
 * compressionFor): the time between bars is divided by a factor chosen from a rehearsal at the
 * data set's own clock so that its busiest second carries `multiple` times its peak. Nothing is
 * scripted: a strategy that cannot send that many orders reaches less, and the result says so
 * (achieved against demanded). The order path is timed per bar on the wall clock: its latency
 * per message, and the rate it could sustain.
 */
export async function stressReplay(
  bot: BotUnderTest,
  bars: Bars,
  newStrategy: () => Strategy,
  peak: Peak,
  multiple: number,
  onSlice: (done: number) => Promise<void>,
): Promise<StressOutcome> {
  // A bot that never sent an order still gets a demand: one message a second, multiplied.
  const demanded = Math.max(peak.messagesPerSecond, 1) * multiple;
  const rehearsal = rehearse(bot, bars, newStrategy());
  const compression = compressionFor(rehearsal.times, rehearsal.counts, demanded, multiple);
  const laps = Math.min(
    MAX_LAPS,
    Math.max(1, Math.ceil(MIN_MESSAGES / Math.max(rehearsal.sent, 1))),
  );
  const input = { bot, bars, newStrategy, multiple, laps };
  // The controls thin the orders out (a disabled bot's flip is one refused order, not two), so
  // the rehearsal's factor may fall short: the clock runs faster until the replay's own orders
  // reach the demand, or the whole data set is in one second.
  let factor = compression.factor;
  for (let attempt = 0; attempt < MAX_SPEED_UPS && factor < compression.ceiling; attempt++) {
    // No progress to report, but the event loop still gets its turn between slices.
    const trial = await replay(input, factor, () => new Promise((r) => setImmediate(r)));
    if (trial.w.maxSentWithin(1000) >= demanded) break;
    factor = Math.min(compression.ceiling, factor * 2);
  }
  const done = await replay(input, factor, onSlice);
  return judge({ ...done, bot, peak, multiple, demanded, factor, laps, bars: laps * bars.length });
}

/** The bot's strategy as the kernel's host, a fresh instance per lap of the data set. */
class LapHost implements StrategyHost {
  private lap: BuiltInHost;

  constructor(private readonly newStrategy: () => Strategy) {
    this.lap = new BuiltInHost(newStrategy());
  }

  /** Each lap is the strategy's first look at the data set; the account carries on. */
  nextLap(): void {
    this.lap = new BuiltInHost(this.newStrategy());
  }

  decide(b: BarBlock, from: number, to: number, view: PortfolioView, out: DecisionSink): number {
    return this.lap.decide(b, from, to, view, out);
  }
}

/** Most times a replay that fell short of the demand is tried again with its clock twice as fast. */
export const MAX_SPEED_UPS = 24;

export interface Replayed {
  events: ExecutionEvent[];
  w: StressWitness;
  broker: SimulatedBroker;
  busyNs: bigint;
  replayedVolume: number;
  latencies: Float64Array;
}

/** `laps` passes of the strategy over the data set, the time between bars divided by `factor`. */
async function replay(
  o: {
    bot: BotUnderTest;
    bars: Bars;
    newStrategy: () => Strategy;
    multiple: number;
    laps: number;
  },
  factor: number,
  onSlice: (done: number) => Promise<void>,
): Promise<Replayed> {
  const { bot, bars, multiple } = o;
  const events: ExecutionEvent[] = [];
  const w = new StressWitness(bot.limits, bot.initialCash);
  const kernel = createKernel({
    symbol: bot.symbol,
    account: { cash: bot.initialCash, units: 0 },
    costs: bot.costs,
    onEvent: (e) => {
      if (e.type === "risk_disabled") w.noteDisabled();
      events.push(e);
    },
    risk: { limits: bot.limits, startEquity: bot.initialCash },
    checksBefore: [w.counter],
    checksAfter: [w.witness],
    host: new LapHost(o.newStrategy),
  });
  const host = kernel.host as LapHost;
  const n = bars.length;
  const t0 = n > 0 ? bars.time[0]! : 0;
  // One lap follows the last as the data set's next bar would: one bar interval later.
  const lapMs = n > 1 ? ((bars.time[n - 1]! - t0) * n) / (n - 1) : 1000;
  const total = o.laps * n;
  const latencies: number[] = [];
  let busyNs = 0n;
  let replayedVolume = 0;
  let reference = NaN;
  let step = 0;
  for (let slice = 1; slice <= STRESS_SLICES; slice++) {
    const until = Math.ceil((total * slice) / STRESS_SLICES);
    for (; step < until; step++) {
      const b = step % n;
      // Each lap is the strategy's first look at the data set; the account carries on.
      if (b === 0 && step > 0) host.nextLap();
      const time = t0 + (Math.floor(step / n) * lapMs + (bars.time[b]! - t0)) / factor;
      const volume = bars.volume[b]! * multiple;
      replayedVolume = Math.max(replayedVolume, volume);
      const close = bars.close[b]!;
      const sentBefore = w.sent;
      // The order path is timed (the venue's fills at the open, the orders at the close), not
      // the strategy's thinking between them.
      const start = process.hrtime.bigint();
      kernel.open(bars, b, volume);
      const opened = process.hrtime.bigint();
      const decided = kernel.ask(bars, b, b + 1) === b;
      const asked = process.hrtime.bigint();
      if (decided) kernel.act(close, time, reference);
      const took = opened - start + (process.hrtime.bigint() - asked);
      busyNs += took;
      const sent = w.sent - sentBefore;
      const perMessageUs = Number(took) / 1_000 / Math.max(sent, 1);
      for (let k = 0; k < sent; k++) latencies.push(perMessageUs);
      reference = close;
    }
    await onSlice(slice);
  }
  return {
    events,
    w,
    broker: kernel.venue,
    busyNs,
    replayedVolume,
    latencies: Float64Array.from(latencies),
  };
}

/** The strategy over the data set at its own clock: when it sends orders, and how many. */
function rehearse(
  bot: BotUnderTest,
  bars: Bars,
  strategy: Strategy,
): { times: number[]; counts: number[]; sent: number } {
  let sent = 0;
  const counter: PreTradeCheck = {
    name: "stress_rehearsal",
    check: () => {
      sent++;
      return ACCEPT;
    },
  };
  const kernel = createKernel({
    symbol: bot.symbol,
    account: { cash: bot.initialCash, units: 0 },
    costs: bot.costs,
    risk: { limits: bot.limits, startEquity: bot.initialCash },
    checksBefore: [counter],
    host: new BuiltInHost(strategy),
  });
  const times: number[] = [];
  const counts: number[] = [];
  let reference = NaN;
  for (let i = 0; i < bars.length; i++) {
    const before = sent;
    kernel.step(bars, i, reference);
    if (sent > before) {
      times.push(bars.time[i]!);
      counts.push(sent - before);
    }
    reference = bars.close[i]!;
  }
  return { times, counts, sent };
}

export function judge(
  r: Replayed & {
    bot: BotUnderTest;
    peak: Peak;
    multiple: number;
    demanded: number;
    factor: number;
    laps: number;
    bars: number;
  },
): StressOutcome {
  const { w, events, bot } = r;
  const placed = events.filter((e) => e.type === "order_placed");
  const rejected = events.filter((e) => e.type === "order_rejected");
  const ended = new Set(
    events.flatMap((e) =>
      e.type === "order_filled" || e.type === "order_cancelled" ? [e.data.order_id] : [],
    ),
  );
  const working = new Set(r.broker.openOrders.map((o) => o.id));
  const unaccounted = placed.filter(
    (e) => !ended.has(e.data.order_id) && !working.has(e.data.order_id),
  ).length;
  const lost = w.sent - placed.length - rejected.length + unaccounted;
  const volumeLimited = events.filter(
    (e) => e.type === "order_filled" && e.data.unfilled !== undefined,
  ).length;
  const volumeCancelled = events.filter(
    (e) => e.type === "order_cancelled" && e.data.reason.startsWith(VOLUME_CANCEL),
  ).length;
  const byControl: Record<string, number> = {};
  for (const e of rejected) byControl[e.data.check] = (byControl[e.data.check] ?? 0) + 1;
  const l = bot.limits;
  const throttleOn = l.maxOrdersPerWindow > 0 && l.throttleWindowMs > 0;
  const violations = [...w.violations];
  if (throttleOn && w.maxAcceptedInWindow() > l.maxOrdersPerWindow)
    violations.push(
      `${w.maxAcceptedInWindow()} orders accepted within ${l.throttleWindowMs / 1000} s; the throttle allows ${l.maxOrdersPerWindow}`,
    );
  if (w.accepted !== placed.length)
    violations.push(
      `${w.accepted} orders passed the checks but ${placed.length} reached the broker`,
    );
  const busyS = Number(r.busyNs) / 1e9;
  const capacity = busyS > 0 ? w.sent / busyS : 0;
  const achieved = w.maxSentWithin(1000);
  const lat = percentiles(r.latencies);
  const round = (x: number, d = 3) => Math.round(x * 10 ** d) / 10 ** d;
  return {
    replay: "strategy",
    peak_source: r.peak.source,
    peak_messages_per_second: r.peak.messagesPerSecond,
    peak_volume: r.peak.volume,
    peak_multiple: r.multiple,
    demanded_messages_per_second: r.demanded,
    achieved_messages_per_second: achieved,
    demanded_rate_reached: achieved >= r.demanded,
    time_compression: round(r.factor, 3),
    laps: r.laps,
    bars_replayed: r.bars,
    replayed_peak_volume: r.replayedVolume,
    max_volume_participation: bot.costs.maxVolumeParticipation ?? 0,
    fills_volume_limited: volumeLimited,
    orders_cancelled_for_volume: volumeCancelled,
    orders_sent: w.sent,
    orders_accepted: placed.length,
    orders_rejected: rejected.length,
    orders_lost: lost,
    controls_held: violations.length === 0,
    control_violations: violations,
    rejections_by_control: byControl,
    // Judged on the replay's own clock: did the orders the strategy sent outrun the throttle?
    throttle_expected: throttleOn && w.maxSentWithin(l.throttleWindowMs) > l.maxOrdersPerWindow,
    throttle_fired: (byControl[CONTROL.messageThrottle] ?? 0) > 0,
    latency: { p50_us: round(lat.p50), p99_us: round(lat.p99), max_us: round(lat.max) },
    capacity_messages_per_second: round(capacity, 1),
    headroom: round(r.demanded > 0 ? capacity / r.demanded : 0, 2),
  };
}
