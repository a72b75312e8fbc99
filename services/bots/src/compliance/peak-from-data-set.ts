import type { Bars } from "../engine/bars.js";
import type { Strategy } from "../engine/strategies/strategy.js";
import type { ExecutionEvent } from "../execution/events.js";
import { BuiltInHost, createKernel } from "../execution/kernel/index.js";
import { VOLUME_CANCEL } from "../execution/simulated-broker.js";
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
  const kernel = createKernel({
    symbol: bot.symbol,
    account: { cash: bot.initialCash, units: 0 },
    costs: bot.costs,
    onEvent: count,
    risk: { limits: bot.limits, startEquity: bot.initialCash },
    host: new BuiltInHost(strategy),
  });
  let volume = 0;
  let reference = NaN;
  for (let i = 0; i < bars.length; i++) {
    second = Math.floor(bars.time[i]! / 1000);
    kernel.step(bars, i, reference);
    reference = bars.close[i]!;
    volume = Math.max(volume, bars.volume[i]!);
  }
  let peak = 0;
  for (const n of perSecond.values()) peak = Math.max(peak, n);
  return { messagesPerSecond: peak, volume };
}
