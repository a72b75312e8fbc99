// bench/promotion (evidence): DSR over T = 2,500 returns with N = 200 trials, and PBO by CSCV for
// T = 2,500, N = 200, S = 16 (12,870 splits), one core, beside the same PBO in numpy (vectorised
// over every split: bench/src/quant/pbo_numpy.py) on the same matrix in the same run.
// Usage: npx tsx bench/src/quant/dsr-pbo.ts (needs python3 with numpy for the reference)
import { execFileSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
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

interface Timing {
  min_ms: number;
  median_ms: number;
  max_ms: number;
}

function summary(ms: number[]): Timing {
  const sorted = [...ms].sort((a, b) => a - b);
  const round = (v: number) => Math.round(v * 100) / 100;
  return {
    min_ms: round(sorted[0]!),
    median_ms: round(sorted[Math.floor(sorted.length / 2)]!),
    max_ms: round(sorted.at(-1)!),
  };
}

function time(fn: () => unknown, runs: number): Timing {
  fn();
  const ms: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    fn();
    ms.push(performance.now() - t0);
  }
  return summary(ms);
}

function numpyPbo(runs: number): { timing: Timing; pbo: number; numpy: string } {
  const file = join(mkdtempSync(join(tmpdir(), "svc-pbo-")), "returns.f64");
  const matrix = new Float64Array(N * T);
  trials.forEach((col, j) => matrix.set(col, j * T));
  writeFileSync(file, new Uint8Array(matrix.buffer));
  const script = fileURLToPath(new URL("./pbo_numpy.py", import.meta.url));
  const out = JSON.parse(
    execFileSync("python3", [script, file, String(N), String(T), String(S), String(runs)], {
      encoding: "utf8",
    }),
  ) as { pbo: number; runs_ms: number[]; numpy: string };
  return { timing: summary(out.runs_ms), pbo: out.pbo, numpy: out.numpy };
}

const dsr = time(() => deflatedSharpeFromTrials(trials[0]!, trials), 20);
const pbo = time(() => probabilityOfBacktestOverfitting(trials, S), 9);
const reference = numpyPbo(9);
const sample = probabilityOfBacktestOverfitting(trials, S);
if (Math.abs(sample.pbo - reference.pbo) > 1e-12)
  throw new Error(`numpy gives PBO ${reference.pbo}, we give ${sample.pbo}: not the same sum`);
const result = {
  benchmark: "DSR and PBO (CSCV) computation time",
  machine: machine(),
  settings: { T, N, S, splits: sample.splits },
  dsr,
  pbo,
  pbo_numpy_reference: { ...reference.timing, numpy: reference.numpy },
  pbo_speed_vs_numpy: Math.round((reference.timing.median_ms / pbo.median_ms) * 100) / 100,
  pbo_value_on_this_data: sample.pbo,
  pbo_value_numpy: reference.pbo,
  target: "PBO faster than numpy on the same matrix (issue 15), and under 1 s on one core",
};
writeFileSync(
  fileURLToPath(new URL("../../results/quant-dsr-pbo.json", import.meta.url)),
  `${JSON.stringify(result, null, 2)}\n`,
);
console.log(JSON.stringify(result, null, 2));
