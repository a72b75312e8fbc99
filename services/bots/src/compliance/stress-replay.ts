import type { Bars } from "../engine/bars.js";
import type { ExecutionEvent } from "../execution/events.js";
import { OrderPipeline } from "../execution/order-pipeline.js";
import { CONTROL, RiskGuard } from "../execution/risk-controls/index.js";
import { SimulatedBroker } from "../execution/simulated-broker.js";
import type { BotUnderTest } from "./compliance-case.js";
import { percentiles } from "./percentiles.js";
import { StressWitness } from "./stress-witness.js";

/** Bounds of a replay's length: enough orders for a p99, few enough to stay a short task. */
const MIN_MESSAGES = 2_000;
const MAX_MESSAGES = 40_000;
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
 * RTS 6 Article 10: the bot's order path under `multiple` times its peak load. Decisions that
 * flip the position (each one to three order messages) come at the demanded rate on the
 * controls' clock, over the data set's prices with its volume times `multiple`, through the same
 * OrderPipeline, RiskGuard (the bot's limits, all on) and SimulatedBroker as every run. The
 * order path is timed per decision on the wall clock: its latency, and the rate it could sustain.
 * Note: the simulated broker fills whatever the volume, so the volume multiple is recorded, not
 * felt by fills.
 */
export async function stressReplay(
  bot: BotUnderTest,
  bars: Bars,
  peak: Peak,
  multiple: number,
  onSlice: (done: number) => Promise<void>,
): Promise<StressOutcome> {
  // A bot that never sent an order still gets a load: one message a second, doubled.
  const observed = Math.max(peak.messagesPerSecond, 1);
  const demanded = observed * multiple;
  const messages = Math.min(MAX_MESSAGES, Math.max(MIN_MESSAGES, Math.ceil(demanded * 10)));
  const events: ExecutionEvent[] = [];
  const record = (e: ExecutionEvent) => events.push(e);
  const broker = new SimulatedBroker(bot.symbol, { cash: bot.initialCash, units: 0 }, bot.costs, {
    event: record,
  });
  const w = new StressWitness(bot.limits);
  const guard = new RiskGuard({
    limits: bot.limits,
    startEquity: bot.initialCash,
    emit: (e) => {
      if (e.type === "risk_disabled") w.noteDisabled();
      record(e);
    },
  });
  const pipeline = new OrderPipeline(broker, bot.costs, [w.counter, guard, w.witness], record);
  // About two messages a decision (a flip closes, then opens): decisions at half the rate.
  const stepMs = 2_000 / demanded;
  const latencies = new Float64Array(messages);
  let timed = 0;
  let busyNs = 0n;
  let replayedVolume = 0;
  const t0 = bars.time[0] ?? 0;
  let reference = NaN;
  let step = 0;
  for (let slice = 1; slice <= STRESS_SLICES; slice++) {
    const until = Math.ceil((messages * slice) / STRESS_SLICES);
    while (w.sent < until) {
      const b = step % bars.length;
      const time = t0 + step * stepMs;
      const close = bars.close[b]!;
      replayedVolume = Math.max(replayedVolume, bars.volume[b]! * multiple);
      const sentBefore = w.sent;
      const start = process.hrtime.bigint();
      broker.onBar(bars.open[b]!, bars.high[b]!, bars.low[b]!);
      pipeline.decide(step % 2 === 0 ? 1 : -1, close, time, reference);
      const took = process.hrtime.bigint() - start;
      busyNs += took;
      const sent = w.sent - sentBefore;
      const perMessageUs = Number(took) / 1_000 / Math.max(sent, 1);
      for (let k = 0; k < sent && timed < latencies.length; k++) latencies[timed++] = perMessageUs;
      reference = close;
      step++;
    }
    await onSlice(slice);
  }
  return judge({
    bot,
    peak,
    multiple,
    demanded,
    events,
    w,
    broker,
    busyNs,
    replayedVolume,
    latencies: latencies.subarray(0, timed),
  });
}

function judge(r: {
  bot: BotUnderTest;
  peak: Peak;
  multiple: number;
  demanded: number;
  events: ExecutionEvent[];
  w: StressWitness;
  broker: SimulatedBroker;
  busyNs: bigint;
  replayedVolume: number;
  latencies: Float64Array;
}): StressOutcome {
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
  const lat = percentiles(r.latencies);
  const round = (x: number, d = 3) => Math.round(x * 10 ** d) / 10 ** d;
  return {
    peak_source: r.peak.source,
    peak_messages_per_second: r.peak.messagesPerSecond,
    peak_volume: r.peak.volume,
    peak_multiple: r.multiple,
    demanded_messages_per_second: r.demanded,
    replayed_peak_volume: r.replayedVolume,
    orders_sent: w.sent,
    orders_accepted: placed.length,
    orders_rejected: rejected.length,
    orders_lost: lost,
    controls_held: violations.length === 0,
    control_violations: violations,
    rejections_by_control: byControl,
    throttle_expected:
      throttleOn && r.demanded * (l.throttleWindowMs / 1000) > l.maxOrdersPerWindow,
    throttle_fired: (byControl[CONTROL.messageThrottle] ?? 0) > 0,
    latency: { p50_us: round(lat.p50), p99_us: round(lat.p99), max_us: round(lat.max) },
    capacity_messages_per_second: round(capacity, 1),
    headroom: round(r.demanded > 0 ? capacity / r.demanded : 0, 2),
  };
}
