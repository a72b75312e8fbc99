import type { Bars } from "../engine/bars.js";
import type { Strategy } from "../engine/strategies/strategy.js";
import type { ExecutionEvent } from "../execution/events.js";
import { OrderPipeline } from "../execution/order-pipeline.js";
import { RiskGuard, anyLimit } from "../execution/risk-controls/index.js";
import { SimulatedBroker, VOLUME_CANCEL } from "../execution/simulated-broker.js";
import type { BotUnderTest } from "./compliance-case.js";

/**
 * A bot with no recorded session: its peak is what its strategy sends over its data set, through
 * the order path under its limits, counted per second of the bars' clock (so per bar for bars of
 * a second or more). Also the data set's largest bar volume, the market volume to double.
 */
export function peakFromDataSet(
  bot: BotUnderTest,
  bars: Bars,
  strategy: Strategy,
): { messagesPerSecond: number; volume: number } {
  const perSecond = new Map<number, number>();
  let second = 0;
  const count = (e: ExecutionEvent) => {
    // A rest the bar's volume left unfilled is cancelled by the venue, not a message of the bot.
    if (e.type === "order_cancelled" && e.data.reason.startsWith(VOLUME_CANCEL)) return;
    if (e.type === "order_placed" || e.type === "order_rejected" || e.type === "order_cancelled")
      perSecond.set(second, (perSecond.get(second) ?? 0) + 1);
  };
  const broker = new SimulatedBroker(bot.symbol, { cash: bot.initialCash, units: 0 }, bot.costs, {
    event: count,
  });
  const checks = anyLimit(bot.limits)
    ? [new RiskGuard({ limits: bot.limits, startEquity: bot.initialCash, emit: count })]
    : [];
  const pipeline = new OrderPipeline(broker, bot.costs, checks, count);
  let volume = 0;
  let reference = NaN;
  for (let i = 0; i < bars.length; i++) {
    second = Math.floor(bars.time[i]! / 1000);
    broker.onBar(bars.open[i]!, bars.high[i]!, bars.low[i]!, bars.volume[i]!);
    const close = bars.close[i]!;
    pipeline.decide(
      strategy.onBar(close, bars.high[i]!, bars.low[i]!),
      close,
      bars.time[i]!,
      reference,
    );
    reference = close;
    volume = Math.max(volume, bars.volume[i]!);
  }
  let peak = 0;
  for (const n of perSecond.values()) peak = Math.max(peak, n);
  return { messagesPerSecond: peak, volume };
}
