// Issue 32 item 4's model figure: bars per second of a backtest whose strategy asks a small MLP
// policy (ONNX, 4 -> 16 -> 2, MatMul/Add/Relu) for its decision every bar, against calling the
// same runtime (onnxruntime-node, one thread) in a plain loop over the same observations.
//
// 1. backtest: services/bots/src/sandbox/fixtures/policy.strategy.ts in its sandbox through the
//    kernel (SandboxHost, BacktestRun.feedAsync), as a code backtest runs, its model served by
//    the model process outside the sandbox (RunModels): a round trip sandbox -> host -> model
//    process and back each bar.
// 2. model process loop: the same inferences through RunModels alone (the host -> model process
//    hop, no strategy), to show where the time goes.
// 3. plain loop: InferenceSession.run in this process, one bar's observation at a time.
// Rounds alternate the three; medians.
// Usage: tsx src/models/policy-throughput.ts [--bars 5000] [--rounds 3] [--out FILE]
import fs from "node:fs";
import os from "node:os";
import { parseArgs } from "node:util";
import { fileURLToPath } from "node:url";
import * as ort from "onnxruntime-node";
import { barsAt, BacktestRun, generateBars, type Bars } from "@svc/bots/engine";
import { bundleStrategyFile, startSandbox } from "@svc/bots/sandbox";
import { mlpOnnx, modelDigest, modelLimitsFromEnv, RunModels } from "@svc/bots/models";
import { machine } from "../machine.js";
import { SandboxHost } from "../../../services/bots/src/execution/kernel/sandbox-host.js";
import { CODE_SLICE } from "../../../services/bots/src/runtime/backtest-compute.js";

const { values: args } = parseArgs({
  options: {
    bars: { type: "string", default: "5000" },
    rounds: { type: "string", default: "3" },
    out: { type: "string" },
  },
});
const N = Number(args.bars);
const ROUNDS = Number(args.rounds);
const SYMBOL = "BTC-USD";
const SETTINGS = { initialCash: 100_000, feeBps: 5, slippageBps: 3, positionSize: 0.5 };
const POLICY = mlpOnnx({ inputs: 4, hidden: 16, outputs: 2, seed: 5 });
const MODELS = [{ name: "policy", digest: modelDigest(POLICY), bytes: POLICY }];
const LIMITS = modelLimitsFromEnv({});
const bundle = await bundleStrategyFile(
  fileURLToPath(
    new URL("../../../services/bots/src/sandbox/fixtures/policy.strategy.ts", import.meta.url),
  ),
);
const bars = generateBars({ seed: 1, count: N, intervalMs: 60_000 });
/** The strategy's observation at each bar from the fifth: the last four returns, in percent. */
const observations: number[][] = [];
for (let i = 4; i < N; i++)
  observations.push(
    [1, 2, 3, 4].map((k) => (bars.close[i - 4 + k]! / bars.close[i - 5 + k]! - 1) * 100),
  );

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const loads: number[] = [];

async function backtest(): Promise<{ calls: number; trades: number }> {
  const models = await RunModels.start(MODELS, LIMITS);
  const sandbox = await startSandbox({
    bundle,
    symbols: [SYMBOL],
    models,
    limits: { callTimeoutMs: 600_000, runCpuSeconds: 36_000 },
  });
  try {
    await sandbox.init();
    const run = new BacktestRun({ asyncHost: new SandboxHost(sandbox, SYMBOL) }, SETTINGS, {
      symbol: SYMBOL,
    });
    for (let from = 0; from < N; from += CODE_SLICE)
      await run.feedAsync(barsAt(bars, from, Math.min(N, from + CODE_SLICE)) as Bars);
    await run.stop();
    return { calls: models.calls, trades: run.finish().trades };
  } finally {
    sandbox.kill();
    models.close();
  }
}

async function processLoop(): Promise<number> {
  const models = await RunModels.start(MODELS, LIMITS);
  try {
    for (const obs of observations)
      await models.run({
        bar: 0,
        time: null,
        model: "policy",
        inputs: { obs: { dims: [1, 4], data: obs } },
      });
    return models.calls;
  } finally {
    models.close();
  }
}

const session = await ort.InferenceSession.create(POLICY, {
  intraOpNumThreads: 1,
  interOpNumThreads: 1,
});
async function plainLoop(): Promise<number> {
  let calls = 0;
  for (const obs of observations) {
    await session.run({ obs: new ort.Tensor("float32", Float32Array.from(obs), [1, 4]) });
    calls++;
  }
  return calls;
}

async function timed<T>(fn: () => Promise<T>): Promise<{ value: T; wall: number }> {
  loads.push(os.loadavg()[0]!);
  const t = performance.now();
  const value = await fn();
  return { value, wall: (performance.now() - t) / 1000 };
}

const wall: Record<string, number[]> = { backtest: [], model_process_loop: [], plain_loop: [] };
let calls = 0;
let trades = 0;
for (let round = 0; round < ROUNDS; round++) {
  const a = await timed(backtest);
  const b = await timed(processLoop);
  const c = await timed(plainLoop);
  if (a.value.calls !== observations.length || b.value !== c.value) {
    console.error(
      `round ${round}: the runs made ${a.value.calls}, ${b.value}, ${c.value} inferences`,
    );
    process.exit(1);
  }
  calls = a.value.calls;
  trades = a.value.trades;
  wall.backtest!.push(a.wall);
  wall.model_process_loop!.push(b.wall);
  wall.plain_loop!.push(c.wall);
}
const perSecond = (k: string) => Math.round(N / median(wall[k]!));
const result = {
  bench: "models-policy-throughput",
  machine: machine(),
  load_1m_during: { min: Math.min(...loads), max: Math.max(...loads) },
  bars: N,
  inferences: calls,
  trades,
  model: "MLP 4 -> 16 -> 2 (MatMul, Add, Relu, MatMul, Add), float32, one intra-op thread",
  rounds: ROUNDS,
  wall_s_median: Object.fromEntries(Object.keys(wall).map((k) => [k, median(wall[k]!)])),
  bars_per_s: {
    backtest: perSecond("backtest"),
    model_process_loop: perSecond("model_process_loop"),
    plain_loop: perSecond("plain_loop"),
  },
  backtest_vs_plain_loop: Number((median(wall.backtest!) / median(wall.plain_loop!)).toFixed(2)),
};
console.log(JSON.stringify(result, null, 2));
if (args.out) fs.writeFileSync(args.out, `${JSON.stringify(result, null, 2)}\n`);
