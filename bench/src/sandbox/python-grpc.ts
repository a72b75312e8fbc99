// A strategy in Python over gRPC against its TypeScript twin and the built-in family it mirrors:
// the MA crossover (20, 100) backtested through the execution kernel on the same synthetic
// 1-minute bars, fed in the slices a backtest feeds (4,096 bars), three ways in one sitting:
// (1) the built-in ma_crossover family; (2) ma-family.strategy.ts in the TypeScript sandbox
// (SandboxHost: a node child under bubblewrap, blocks over stdio); (3) ma_family.py in the Python
// sandbox (GrpcStrategyHost: connect-node's gRPC client over a Unix socket to Debian's python3
// under bubblewrap). All three must give the same metrics to the bit (the bench exits 1
// otherwise). Usage: tsx src/sandbox/python-grpc.ts [bars...]   (default 1e6)
import fs from "node:fs";
import os from "node:os";
import { fileURLToPath } from "node:url";
import {
  BacktestRun,
  barsAt,
  generateBars,
  resolveStrategy,
  runBacktest,
  type Bars,
} from "@svc/bots/engine";
import { bundleStrategyFile, startSandbox } from "@svc/bots/sandbox";
import { machine } from "../machine.js";
import { startPythonHost } from "../../../services/bots/src/execution/kernel/python-host.js";
import { SandboxHost } from "../../../services/bots/src/execution/kernel/sandbox-host.js";
import type { AsyncStrategyHost } from "../../../services/bots/src/execution/kernel/strategy-host.js";

const FIXTURES = "../../../services/bots/src/sandbox/fixtures/";
const SLICE = 4_096;
const PARAMS = { fast: 20, slow: 100, allow_short: false };
const SETTINGS = { initialCash: 100_000, feeBps: 5, slippageBps: 3, positionSize: 1 };
const SYMBOL = "X";
const limits = { callTimeoutMs: 60_000 };
const sizes = process.argv.slice(2).map(Number);
if (sizes.length === 0) sizes.push(1e6);

async function throughHost(host: AsyncStrategyHost, bars: Bars) {
  const run = new BacktestRun({ asyncHost: host }, SETTINGS, { symbol: SYMBOL });
  for (let from = 0; from < bars.length; from += SLICE)
    await run.feedAsync(barsAt(bars, from, Math.min(bars.length, from + SLICE)));
  await run.stop();
  return run.finish();
}

const fixture = (name: string) => fileURLToPath(new URL(FIXTURES + name, import.meta.url));
const bundle = await bundleStrategyFile(fixture("ma-family.strategy.ts"));
const python = fs.readFileSync(fixture("ma_family.py"), "utf8");

const results: Record<string, unknown>[] = [];
for (const n of sizes) {
  const bars = generateBars({ seed: 1, count: n, intervalMs: 60_000 });
  const { family, params } = resolveStrategy("ma_crossover", PARAMS);
  let t = performance.now();
  const builtIn = runBacktest(bars, family.create(params), SETTINGS, { symbol: SYMBOL });
  const builtInS = (performance.now() - t) / 1000;

  t = performance.now();
  const sandbox = await startSandbox({ bundle, params: PARAMS, symbols: [SYMBOL], limits });
  await sandbox.init();
  const viaTypeScript = await throughHost(new SandboxHost(sandbox, SYMBOL), bars);
  sandbox.kill();
  const typeScriptS = (performance.now() - t) / 1000;

  t = performance.now();
  const host = await startPythonHost({ source: python, symbol: SYMBOL, params: PARAMS, limits });
  const viaPython = await throughHost(host, bars);
  host.close();
  const pythonS = (performance.now() - t) / 1000;

  const same =
    JSON.stringify(viaPython) === JSON.stringify(viaTypeScript) &&
    JSON.stringify(viaTypeScript) === JSON.stringify(builtIn);
  if (!same) {
    console.error(`bars ${n}: the three ways disagree`);
    process.exit(1);
  }
  const row = {
    bars: n,
    trades: builtIn.trades,
    built_in: { seconds: builtInS, bars_per_s: Math.round(n / builtInS) },
    typescript_sandbox: { seconds: typeScriptS, bars_per_s: Math.round(n / typeScriptS) },
    python_grpc_sandbox: { seconds: pythonS, bars_per_s: Math.round(n / pythonS) },
    python_vs_typescript: +(typeScriptS / pythonS).toFixed(3),
    python_vs_built_in: +(builtInS / pythonS).toFixed(3),
  };
  console.log(JSON.stringify(row));
  results.push(row);
}

const out = {
  note: "MA crossover (20, 100), long only, through the execution kernel in slices of 4,096 bars; each sandboxed run includes its process's start (and, for Python, the stubs' generation when not cached). Identical metrics asserted across the three. Two cores shared with other work: see load_average_1m.",
  machine: machine(),
  load_average_1m: os.loadavg()[0],
  throughput: results,
};
const file = fileURLToPath(new URL("../../results/sandbox-python-grpc.json", import.meta.url));
fs.writeFileSync(file, `${JSON.stringify(out, null, 2)}\n`);
console.log(`wrote ${file}`);
