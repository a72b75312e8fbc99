import { fileURLToPath } from "node:url";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import type { Bars } from "../engine/bars.js";
import { DEFAULT_DATA_SOURCE, loadBars } from "../engine/data-source.js";
import { resolveStrategy } from "../engine/index.js";
import { SandboxHost } from "../execution/kernel/sandbox-host.js";
import { riskLimitsFrom } from "../execution/risk-controls/index.js";
import { bundleStrategyFile, startSandbox, type Sandbox } from "../sandbox/index.js";
import type { BotUnderTest } from "./compliance-case.js";
import { peakFromDataSet } from "./peak-from-data-set.js";
import { stressReplayCode } from "./stress-replay-code.js";
import { stressReplay } from "./stress-replay.js";

const bot = (risk: Parameters<typeof riskLimitsFrom>[0] = {}): BotUnderTest => ({
  slug: "stress-code",
  fleet: null,
  symbol: "BTC-USD",
  costs: { feeBps: 10, slippageBps: 5, positionSize: 1, maxVolumeParticipation: 1 },
  initialCash: 100_000,
  limits: riskLimitsFrom(risk),
});
const p = { fast: 5, slow: 20, allow_short: true };
const { family, params } = resolveStrategy("ma_crossover", p);
const fixture = fileURLToPath(
  new URL("../sandbox/fixtures/ma-family.strategy.ts", import.meta.url),
);

let bars: Bars;
let bundle: string;
const started: Sandbox[] = [];
beforeAll(async () => {
  bars = await loadBars(DEFAULT_DATA_SOURCE);
  bundle = await bundleStrategyFile(fixture);
});
afterEach(() => {
  for (const s of started.splice(0)) s.kill();
});

/** The built-in ma_crossover written on the SDK, a fresh sandbox per call. */
async function newHost() {
  const sandbox = await startSandbox({ bundle, params: p, symbols: ["BTC-USD"] });
  started.push(sandbox);
  const host = new SandboxHost(sandbox, "BTC-USD");
  host.initialised(await sandbox.init());
  return host;
}

/** What the judgement says of the orders, without the wall clock's figures. */
const orders = (o: Record<string, unknown>) => {
  const { latency: _l, capacity_messages_per_second: _c, headroom: _h, ...rest } = o;
  return rest;
};

describe("a stress replay of strategy code", () => {
  it("drives the sandboxed strategy at the multiple and judges the orders the built-in family's replay judges", async () => {
    const b = bot({ maxOrdersPerWindow: 5, throttleWindowS: 60 });
    const fromData = peakFromDataSet(b, bars, family.create(params));
    const builtIn = await stressReplay(
      b,
      bars,
      () => family.create(params),
      { source: "data_set", ...fromData },
      2,
      async () => {},
    );
    const slices: number[] = [];
    const code = await stressReplayCode(b, bars, newHost, 0, 2, async (d) => void slices.push(d));
    expect(slices).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    expect(code.orders_sent).toBeGreaterThan(100);
    // The controls judged them: the throttle refused some at the compressed clock.
    expect(code.throttle_fired).toBe(true);
    expect(orders(code)).toEqual(orders(builtIn));
  }, 120_000);
});
