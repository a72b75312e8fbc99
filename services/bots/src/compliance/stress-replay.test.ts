import { beforeAll, describe, expect, it } from "vitest";
import type { Bars } from "../engine/bars.js";
import { DEFAULT_DATA_SOURCE, loadBars } from "../engine/data-source.js";
import { runBacktest } from "../engine/event-engine.js";
import { resolveStrategy } from "../engine/index.js";
import type { Strategy } from "../engine/strategies/strategy.js";
import type { ExecutionEvent } from "../execution/events.js";
import { CONTROL, riskLimitsFrom } from "../execution/risk-controls/index.js";
import type { BotUnderTest } from "./compliance-case.js";
import { peakFromDataSet } from "./peak-from-data-set.js";
import { stressReplay, type Peak } from "./stress-replay.js";

const bot = (
  risk: Parameters<typeof riskLimitsFrom>[0] = {},
  maxVolumeParticipation = 1,
): BotUnderTest => ({
  slug: "stress-bot",
  fleet: null,
  symbol: "BTC-USD",
  costs: { feeBps: 10, slippageBps: 5, positionSize: 1, maxVolumeParticipation },
  initialCash: 100_000,
  limits: riskLimitsFrom(risk),
});

const { family, params } = resolveStrategy("ma_crossover", {
  fast: 5,
  slow: 20,
  allow_short: true,
});
const newStrategy = () => family.create(params);
let bars: Bars;
beforeAll(async () => {
  bars = await loadBars(DEFAULT_DATA_SOURCE);
});

async function stress(b: BotUnderTest, make: () => Strategy = newStrategy, multiple = 2) {
  const fromData = peakFromDataSet(b, bars, make());
  const peak: Peak = { source: "data_set", ...fromData };
  return { peak, out: await stressReplay(b, bars, make, peak, multiple, async () => {}) };
}

describe("a stress replay", () => {
  it("replays the bot's own orders at twice its peak rate on the bot's clock", async () => {
    const { peak, out } = await stress(bot());
    expect(out.replay).toBe("strategy");
    expect(peak.messagesPerSecond).toBeGreaterThan(0);
    expect(out.demanded_messages_per_second).toBe(2 * peak.messagesPerSecond);
    expect(out.achieved_messages_per_second).toBeGreaterThanOrEqual(2 * peak.messagesPerSecond);
    expect(out.demanded_rate_reached).toBe(true);
    expect(out.time_compression).toBeGreaterThanOrEqual(2);
    // Each lap sends what the strategy sends in a backtest over the same bars: its own orders.
    const events: ExecutionEvent[] = [];
    runBacktest(
      bars,
      newStrategy(),
      { initialCash: 100_000, ...bot().costs },
      {
        onEvent: (e) => events.push(e),
      },
    );
    const perLap = events.filter((e) => e.type === "order_placed").length;
    const laps = out.laps as number;
    expect(Math.abs((out.orders_sent as number) - laps * perLap)).toBeLessThanOrEqual(laps);
    expect(out.orders_lost).toBe(0);
    expect(out.controls_held).toBe(true);
    expect(out.throttle_expected).toBe(false);
    expect(out.replayed_peak_volume).toBe(2 * peak.volume);
    const latency = out.latency as { p50_us: number; p99_us: number };
    expect(latency.p99_us).toBeGreaterThan(0);
    expect(out.headroom).toBeGreaterThan(1);
  });

  it("a throttle under twice the peak fires, disables the bot and is reported", async () => {
    const { peak } = await stress(bot());
    const tight = bot({ maxOrdersPerWindow: peak.messagesPerSecond, throttleWindowS: 1 });
    const { out } = await stress(tight);
    expect(out.throttle_expected).toBe(true);
    expect(out.throttle_fired).toBe(true);
    expect(out.controls_held).toBe(true);
    expect(out.orders_lost).toBe(0);
    const byControl = out.rejections_by_control as Record<string, number>;
    expect(byControl[CONTROL.messageThrottle]).toBeGreaterThan(0);
  });

  it("a strategy that cannot reach the demanded rate says so, with no orders added", async () => {
    // Goes long once and stays: one order in the whole data set.
    const once = (): Strategy => ({ onBar: () => 1 });
    const { out } = await stress(bot(), once, 4);
    expect(out.demanded_messages_per_second).toBe(4);
    expect(out.demanded_rate_reached).toBe(false);
    expect(out.achieved_messages_per_second).toBeLessThan(4);
    expect(out.orders_sent).toBe(1);
  });

  it("fills take at most the share of the bar's volume, times the multiple", async () => {
    // A share so small that the bundled bars' volume binds every fill.
    const { peak, out } = await stress(bot({}, 1e-5));
    expect(out.max_volume_participation).toBe(1e-5);
    expect(out.fills_volume_limited).toBeGreaterThan(0);
    expect(out.orders_cancelled_for_volume).toBeGreaterThan(0);
    expect(out.orders_lost).toBe(0);
    expect(out.replayed_peak_volume).toBe(2 * peak.volume);
  });
});
