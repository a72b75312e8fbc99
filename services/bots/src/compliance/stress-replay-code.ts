import type { Bars } from "../engine/bars.js";
import type { ExecutionEvent } from "../execution/events.js";
import {
  createKernel,
  type AsyncStrategyHost,
  type BarBlock,
  type DecisionSink,
  type ExecutionKernel,
  type KernelFill,
  type PortfolioView,
} from "../execution/kernel/index.js";
import { ACCEPT, type PreTradeCheck } from "../execution/pre-trade.js";
import { VOLUME_CANCEL } from "../execution/simulated-broker.js";
import type { BotUnderTest } from "./compliance-case.js";
import { compressionFor } from "./compression.js";
import {
  judge,
  MAX_LAPS,
  MAX_SPEED_UPS,
  MIN_MESSAGES,
  STRESS_SLICES,
  type Peak,
  type Replayed,
  type StressOutcome,
} from "./stress-replay.js";
import { StressWitness } from "./stress-witness.js";

/** A fresh instance of a code strategy: a sandbox started and initialised, as the kernel's host. */
export type NewCodeHost = () => Promise<AsyncStrategyHost & { abort(): void }>;

/**
 * stressReplay (RTS 6 Article 10) for a strategy in the sandbox: the same peak, rehearsal,
 * compression, laps, speed-ups and judgement, with the strategy asked asynchronously. It runs
 * ahead to its next decision as a backtest does (a block of bars a call, a bar at a time while
 * an order works), which places the orders a bar-by-bar loop places: between decisions nothing
 * can fill, so the venue's opens of those bars do nothing. Each lap is a fresh sandbox.
 */
export async function stressReplayCode(
  bot: BotUnderTest,
  bars: Bars,
  newHost: NewCodeHost,
  recordedPeak: number,
  multiple: number,
  onSlice: (done: number) => Promise<void>,
): Promise<StressOutcome> {
  const fromData = await rehearse(bot, bars, newHost);
  const peak: Peak =
    recordedPeak > 0
      ? { source: "paper_events", messagesPerSecond: recordedPeak, volume: fromData.volume }
      : { source: "data_set", messagesPerSecond: fromData.peak, volume: fromData.volume };
  const demanded = Math.max(peak.messagesPerSecond, 1) * multiple;
  const compression = compressionFor(fromData.times, fromData.counts, demanded, multiple);
  const laps = Math.min(
    MAX_LAPS,
    Math.max(1, Math.ceil(MIN_MESSAGES / Math.max(fromData.sent, 1))),
  );
  const input = { bot, bars, newHost, multiple, laps };
  let factor = compression.factor;
  for (let attempt = 0; attempt < MAX_SPEED_UPS && factor < compression.ceiling; attempt++) {
    const trial = await replay(input, factor, () => new Promise((r) => setImmediate(r)));
    if (trial.w.maxSentWithin(1000) >= demanded) break;
    factor = Math.min(compression.ceiling, factor * 2);
  }
  const done = await replay(input, factor, onSlice);
  return judge({ ...done, bot, peak, multiple, demanded, factor, laps, bars: laps * bars.length });
}

/** The current lap's host; the next lap's sandbox starts while this one runs. */
class LapHost implements AsyncStrategyHost {
  private next: ReturnType<NewCodeHost> | undefined;

  private constructor(
    private readonly newHost: NewCodeHost,
    private lap: Awaited<ReturnType<NewCodeHost>>,
  ) {}

  static async start(newHost: NewCodeHost): Promise<LapHost> {
    return new LapHost(newHost, await newHost());
  }

  /** Ready the next lap's sandbox beside this one's (a process start is most of a short lap). */
  prepare(): void {
    this.next ??= this.newHost();
  }

  /** Each lap is the strategy's first look at the data set; the account carries on. */
  async nextLap(): Promise<void> {
    const next = this.next ?? this.newHost();
    this.next = undefined;
    this.lap.abort();
    this.lap = await next;
  }

  decide(b: BarBlock, from: number, to: number, view: PortfolioView, out: DecisionSink) {
    return this.lap.decide(b, from, to, view, out);
  }

  fills(fills: readonly KernelFill[]) {
    return this.lap.fills?.(fills);
  }

  end(): void {
    this.lap.abort();
    void this.next?.then(
      (h) => h.abort(),
      () => undefined,
    );
  }
}

/** `laps` passes of the strategy over the data set, the time between bars divided by `factor`. */
async function replay(
  o: { bot: BotUnderTest; bars: Bars; newHost: NewCodeHost; multiple: number; laps: number },
  factor: number,
  onSlice: (done: number) => Promise<void>,
): Promise<Replayed> {
  const { bot, bars, multiple } = o;
  const events: ExecutionEvent[] = [];
  const w = new StressWitness(bot.limits, bot.initialCash);
  const host = await LapHost.start(o.newHost);
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
    host,
  });
  const n = bars.length;
  const t0 = n > 0 ? bars.time[0]! : 0;
  const lapMs = n > 1 ? ((bars.time[n - 1]! - t0) * n) / (n - 1) : 1000;
  const total = o.laps * n;
  const latencies: number[] = [];
  let busyNs = 0n;
  let replayedVolume = 0;
  for (let b = 0; b < n; b++) replayedVolume = Math.max(replayedVolume, bars.volume[b]! * multiple);
  let reference = NaN;
  let step = 0;
  try {
    for (let slice = 1; slice <= STRESS_SLICES; slice++) {
      const until = Math.ceil((total * slice) / STRESS_SLICES);
      while (step < until) {
        const b = step % n;
        const lap = Math.floor(step / n);
        if (b === 0 && step > 0) await host.nextLap();
        if (b === 0 && lap + 1 < o.laps) host.prepare();
        const timeOf = (x: number) => t0 + (lap * lapMs + (bars.time[x]! - t0)) / factor;
        const sentBefore = w.sent;
        const start = process.hrtime.bigint();
        kernel.open(bars, b, bars.volume[b]! * multiple);
        const opened = process.hrtime.bigint();
        // Up to the lap's end or the slice's, whichever comes first; a bar while an order works.
        const end = kernel.horizon(b, Math.min(n, b + (until - step)));
        const d = await kernel.askAsync(bars, b, end);
        const asked = process.hrtime.bigint();
        if (d < end) {
          kernel.act(bars.close[d]!, timeOf(d), d > b ? bars.close[d - 1]! : reference);
          reference = bars.close[d]!;
          step += d - b + 1;
        } else {
          reference = bars.close[end - 1]!;
          step += end - b;
        }
        const took = opened - start + (process.hrtime.bigint() - asked);
        busyNs += took;
        const sent = w.sent - sentBefore;
        const perMessageUs = Number(took) / 1_000 / Math.max(sent, 1);
        for (let k = 0; k < sent; k++) latencies.push(perMessageUs);
      }
      await onSlice(slice);
    }
  } finally {
    host.end();
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

/**
 * The strategy over the data set at its own clock, once: when it sends orders and how many
 * (the rehearsal's), its busiest second of order messages (the peak when no session recorded
 * one) and the data set's largest bar volume.
 */
async function rehearse(bot: BotUnderTest, bars: Bars, newHost: NewCodeHost) {
  let sent = 0;
  const counter: PreTradeCheck = {
    name: "stress_rehearsal",
    check: () => {
      sent++;
      return ACCEPT;
    },
  };
  const perSecond = new Map<number, number>();
  let second = 0;
  const count = (e: ExecutionEvent) => {
    if (e.type === "order_cancelled" && e.data.reason.startsWith(VOLUME_CANCEL)) return;
    if (e.type === "order_placed" || e.type === "order_rejected" || e.type === "order_cancelled")
      perSecond.set(second, (perSecond.get(second) ?? 0) + 1);
  };
  const host = await newHost();
  const kernel: ExecutionKernel = createKernel({
    symbol: bot.symbol,
    account: { cash: bot.initialCash, units: 0 },
    costs: bot.costs,
    onEvent: count,
    risk: { limits: bot.limits, startEquity: bot.initialCash },
    checksBefore: [counter],
    host,
  });
  const times: number[] = [];
  const counts: number[] = [];
  let volume = 0;
  for (let i = 0; i < bars.length; i++) volume = Math.max(volume, bars.volume[i]!);
  try {
    let reference = NaN;
    for (let t = 0; t < bars.length;) {
      kernel.open(bars, t);
      const end = kernel.horizon(t, bars.length);
      const d = await kernel.askAsync(bars, t, end);
      if (d === end) {
        reference = bars.close[end - 1]!;
        t = end;
        continue;
      }
      const before = sent;
      second = Math.floor(bars.time[d]! / 1000);
      kernel.act(bars.close[d]!, bars.time[d]!, d > t ? bars.close[d - 1]! : reference);
      if (sent > before) {
        times.push(bars.time[d]!);
        counts.push(sent - before);
      }
      reference = bars.close[d]!;
      t = d + 1;
    }
  } finally {
    host.abort();
  }
  let peak = 0;
  for (const c of perSecond.values()) peak = Math.max(peak, c);
  return { times, counts, sent, peak, volume };
}
