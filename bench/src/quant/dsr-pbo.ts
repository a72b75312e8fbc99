// bench/promotion (evidence): DSR over T = 2,500 returns with N = 200 trials, and PBO by CSCV for
// T = 2,500, N = 200, S = 16 (12,870 splits), one core. Usage: npx tsx bench/src/quant/dsr-pbo.ts
import { writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import {
  deflatedSharpeFromTrials,
  probabilityOfBacktestOverfitting,
  seededRandom,
} from "@svc/lib/quant";
import { machine } from "../machine.js";

const T = 2_500;
const N = 200;
const S = 16;
const rng = seededRandom(42);
const trials = Array.from({ length: N }, (_, j) =>
  Float64Array.from({ length: T }, () => rng.normal(j === 0 ? 0.0005 : 0, 0.01)),
);

function time(fn: () => unknown, runs: number): { median_ms: number; min_ms: number } {
  fn();
  const ms: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    fn();
    ms.push(performance.now() - t0);
  }
  ms.sort((a, b) => a - b);
  return {
    median_ms: Math.round(ms[Math.floor(runs / 2)]! * 100) / 100,
    min_ms: Math.round(ms[0]! * 100) / 100,
  };
}

const dsr = time(() => deflatedSharpeFromTrials(trials[0]!, trials), 20);
const pbo = time(() => probabilityOfBacktestOverfitting(trials, S), 7);
const sample = probabilityOfBacktestOverfitting(trials, S);
const result = {
  benchmark: "DSR and PBO (CSCV) computation time",
  machine: machine(),
  settings: { T, N, S, splits: sample.splits },
  dsr,
  pbo,
  pbo_value_on_this_data: sample.pbo,
  target: "PBO under 1 s on one core",
};
writeFileSync(
  fileURLToPath(new URL("../../results/quant-dsr-pbo.json", import.meta.url)),
  `${JSON.stringify(result, null, 2)}\n`,
);
console.log(JSON.stringify(result, null, 2));
