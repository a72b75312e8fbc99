import { describe, expect, it } from "vitest";
import { BacktestRun, engineSettingsFrom, generateBars, resolveStrategy } from "../engine/index.js";
import type { ExecutionEvent } from "./events.js";
import { RefusalCounter } from "./refusal-counter.js";
import { RiskGuard, riskLimitsFrom } from "./risk-controls/index.js";

describe("RefusalCounter", () => {
  it("counts a backtest's refusals as its order_rejected records name them, and changes nothing else", () => {
    const bars = generateBars({
      seed: 11,
      count: 200_000,
      startMs: Date.UTC(2024, 0, 1),
      intervalMs: 60_000,
      startPrice: 100,
    });
    const { family, params } = resolveStrategy("ma_crossover", { fast: 20, slow: 100 });
    const settings = engineSettingsFrom({ initialCash: 1e6, feeBps: 5, slippageBps: 2 });
    // Orders of about 10,000 units: some over the size limit, and, in a fast market, more
    // than three an hour, which trips the throttle and disables the bot for the rest of the run.
    const limits = riskLimitsFrom({
      maxOrderUnits: 10_000,
      maxOrdersPerWindow: 3,
      throttleWindowS: 3_600,
    });
    const guard = () => new RiskGuard({ limits, startEquity: settings.initialCash });
    const recorded = new Map<string, number>();
    const fromRecords = new BacktestRun(family.create(params), settings, {
      checks: [guard()],
      onEvent: (e: ExecutionEvent) => {
        if (e.type === "order_rejected")
          recorded.set(e.data.check, (recorded.get(e.data.check) ?? 0) + 1);
      },
    });
    const counted = new Map<string, number>();
    const counting = new BacktestRun(family.create(params), settings, {
      checks: [new RefusalCounter(guard(), counted)],
    });
    fromRecords.feed(bars);
    counting.feed(bars);
    expect(recorded.size).toBeGreaterThan(1);
    expect(counted).toEqual(recorded);
    expect(counting.finish()).toEqual(fromRecords.finish());
  });
});
