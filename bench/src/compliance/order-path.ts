// bench/compliance: the latency the pre-trade risk controls add to the order path, per order, on
// one core. The same sized orders go through OrderPipeline.decide() with no check and with every
// control on (limits generous enough that every control runs to the end and accepts), in
// alternating rounds of one run, so both see the same machine. The controls alone
// (RiskGuard.check plus its bookkeeping of an accepted order) are timed too.
// Usage: taskset -c 1 npx tsx bench/src/compliance/order-path.ts [--orders 200000] [--rounds 10]
import { writeFileSync } from "node:fs";
import os from "node:os";
import { fileURLToPath } from "node:url";
import {
  OrderPipeline,
  RiskGuard,
  riskLimitsFrom,
  SimulatedBroker,
  type PreTradeCheck,
  type PreTradeContext,
} from "@svc/bots/execution";
import { machine } from "../machine.js";

const arg = (name: string, fallback: number) => {
  const at = process.argv.indexOf(`--${name}`);
  return at > 0 ? Number(process.argv[at + 1]) : fallback;
};
const loadAtStart = os.loadavg().map((l) => Math.round(l * 100) / 100);
const ORDERS = arg("orders", 200_000);
const ROUNDS = arg("rounds", 10);
/** Bar time between decisions: 20 ms, so a 1 s window holds about 50 recent orders to scan. */
const STEP_MS = 20;

// Every control on; none refuses (the throttle would need 1,000 orders within 1 s).
const limits = riskLimitsFrom(
  {
    maxOrderNotional: 1e12,
    maxOrderUnits: 1e9,
    capitalLimit: 1e12,
    creditLimit: 1e12,
    priceCollarPct: 50,
    maxOrdersPerWindow: 1_000,
    throttleWindowS: 1,
    duplicateWindowS: 1,
    restrictedSymbols: Array.from({ length: 100 }, (_, i) => `R${i}-USD`),
  },
  { capitalLimit: 1e13, creditLimit: 1e13 },
);
const fleet = Array.from({ length: 10 }, (_, i) => ({ exposure: 1e5 * i, loss: 10 * i }));
const fleetFigures = () => {
  let exposure = 0;
  let loss = 0;
  for (const f of fleet) {
    exposure += f.exposure;
    loss += f.loss;
  }
  return { exposure, loss };
};

/** The price path: a random walk inside the collar, so every decision is priced differently. */
const prices = new Float64Array(ORDERS + 1);
prices[0] = 100;
for (let i = 1; i <= ORDERS; i++) prices[i] = prices[i - 1]! * (1 + (Math.random() - 0.5) * 0.01);

const ns = () => process.hrtime.bigint();

/** Nanoseconds of each decide() that sent one order (flat <-> long, filled at the next bar). */
function decideTimes(withControls: boolean): Float64Array {
  let sink = 0;
  const broker = new SimulatedBroker(
    "BTC-USD",
    { cash: 1e6, units: 0 },
    // No costs: over hundreds of thousands of round trips fees would eat the equity, and the
    // dust rule would then stop sending orders.
    { feeBps: 0, slippageBps: 0 },
    { event: () => void sink++ },
  );
  const checks: PreTradeCheck[] = withControls
    ? [new RiskGuard({ limits, startEquity: 1e6, fleet: fleetFigures })]
    : [];
  const pipeline = new OrderPipeline(broker, { positionSize: 1 }, checks, () => void sink++);
  const out = new Float64Array(ORDERS);
  const t0 = Date.UTC(2026, 0, 1);
  for (let i = 0; i < ORDERS; i++) {
    const price = prices[i + 1]!;
    broker.onBar(price, price, price);
    const start = ns();
    pipeline.decide(i % 2 === 0 ? 1 : 0, price, t0 + i * STEP_MS, prices[i]!);
    out[i] = Number(ns() - start);
  }
  if (sink < ORDERS)
    throw new Error(
      `orders were not sent: ${sink} records for ${ORDERS} decisions (controls: ${withControls})`,
    );
  return out;
}

/** Nanoseconds of the controls alone on one accepted order: check, then the accepted note. */
function guardTimes(): Float64Array {
  const guard = new RiskGuard({ limits, startEquity: 1e6, fleet: fleetFigures });
  const out = new Float64Array(ORDERS);
  const t0 = Date.UTC(2026, 0, 1);
  let position = 0;
  for (let i = 0; i < ORDERS; i++) {
    const price = prices[i + 1]!;
    const order =
      position === 0
        ? { side: "buy" as const, units: 1e4 / price, closes: false }
        : { side: "sell" as const, units: position, closes: true };
    const ctx: PreTradeContext = {
      symbol: "BTC-USD",
      price,
      equity: 1e6,
      cash: 1e6 - position * price,
      position,
      accepted: 0,
      time: t0 + i * STEP_MS,
      reference: prices[i]!,
    };
    const start = ns();
    const verdict = guard.check(order, ctx);
    if (verdict.accept) guard.accepted(order, ctx);
    out[i] = Number(ns() - start);
    if (!verdict.accept) throw new Error(`refused: ${verdict.reason}`);
    position = position === 0 ? order.units : 0;
  }
  return out;
}

const pct = (sorted: Float64Array, p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]!;
const us = (n: number) => Math.round(n / 10) / 100;

const all = {
  without: [] as Float64Array[],
  with: [] as Float64Array[],
  guard: [] as Float64Array[],
};
// Warm-up: let the JIT settle on both paths before anything counts.
decideTimes(false);
decideTimes(true);
guardTimes();
for (let r = 0; r < ROUNDS; r++) {
  all.without.push(decideTimes(false));
  all.with.push(decideTimes(true));
  all.guard.push(guardTimes());
}
const summary = (runs: Float64Array[]) => {
  const merged = new Float64Array(runs.reduce((n, r) => n + r.length, 0));
  let at = 0;
  for (const r of runs) merged.set(r, (at += r.length) - r.length);
  merged.sort();
  return {
    p50_us: us(pct(merged, 0.5)),
    p99_us: us(pct(merged, 0.99)),
    p999_us: us(pct(merged, 0.999)),
  };
};
const without = summary(all.without);
const withControls = summary(all.with);
const result = {
  benchmark:
    "pre-trade risk controls on the order path: OrderPipeline.decide() per order with no check and with every control on, alternating rounds in one process; and RiskGuard.check + accepted alone",
  machine: machine(),
  load_average_1_5_15: {
    at_start: loadAtStart,
    at_end: os.loadavg().map((l) => Math.round(l * 100) / 100),
    note: "2 cores shared with other engineers' test runs; no quiet window came",
  },
  pinned_to_one_core: process.env.BENCH_PINNED ?? "not stated",
  orders_per_round: ORDERS,
  rounds: ROUNDS,
  recent_orders_in_window: Math.round(1000 / STEP_MS),
  restricted_symbols: limits.restricted.size,
  fleet_members: fleet.length,
  order_path_without_controls: without,
  order_path_with_controls: withControls,
  added_by_controls: {
    p50_us: Math.round((withControls.p50_us - without.p50_us) * 100) / 100,
    p99_us: Math.round((withControls.p99_us - without.p99_us) * 100) / 100,
  },
  controls_alone: summary(all.guard),
  target: "under 20 microseconds per order at p99 for all controls together",
};
console.log(JSON.stringify(result, null, 2));
writeFileSync(
  fileURLToPath(new URL("../../results/compliance-order-path.json", import.meta.url)),
  `${JSON.stringify(result, null, 2)}\n`,
);
