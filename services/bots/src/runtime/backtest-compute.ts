import {
  anyLimit,
  BacktestRun,
  barsAt,
  resolveStrategy,
  streamBars,
  vectorisedRun,
  type DatasetSource,
} from "../engine/index.js";
import { EngineInputError } from "../engine/engine-error.js";
import { PortfolioRun } from "../engine/portfolio/portfolio-run.js";
import { loadPortfolioBars } from "../engine/portfolio/portfolio-source.js";
import { PortfolioSandboxHost } from "../execution/kernel/portfolio-sandbox-host.js";
import { startPythonHost } from "../execution/kernel/python-host.js";
import { SandboxHost } from "../execution/kernel/sandbox-host.js";
import type { AsyncStrategyHost } from "../execution/kernel/strategy-host.js";
import { startSandbox, StrategyFailure, type LogLine } from "../sandbox/index.js";
import { ModelFailure, modelLimitsFromEnv } from "../models/model-host.js";
import { RunModels } from "../models/run-models.js";
import type { RunJob, RunOutcome } from "./backtest-messages.js";

/** Bars fed between two looks at the stop flag: a halt waits at most this many bars. */
const SLICE = 4_096;
/**
 * A code run's slice: each is a block sent to the sandbox, a round trip at least, so a slice is
 * as large as a halt can wait for (a few milliseconds of a sandboxed strategy's bars).
 */
export const CODE_SLICE = 65_536;

/**
 * One backtest's computation, as a worker thread runs it (backtest-worker.ts): the engine built
 * from the job's plain inputs, fed the streamed bars a slice at a time. `control` is shared with
 * the thread that asked: [0] its stop flag (then this returns undefined), [1] the bars fed so far.
 */
export async function computeBacktest(
  job: RunJob,
  control: Int32Array,
  datasets: DatasetSource,
): Promise<RunOutcome | undefined> {
  if (job.portfolio) return computePortfolio(job, job.portfolio, control, datasets);
  if (job.code) return computeSandboxed(job, job.code, control, datasets);
  const refused = new Map<string, number>();
  const { family, params } = resolveStrategy(job.family, job.params);
  const risk = { limits: job.risk, startEquity: job.settings.initialCash, refused };
  const options = { ...(anyLimit(job.risk) ? { risk } : {}), symbol: job.symbol };
  // A family with target columns runs on the vectorised path, the same run to the last bit
  // (vectorised.test.ts); pre-trade checks are not part of what those tests prove.
  const engine =
    family.columns && !anyLimit(job.risk)
      ? vectorisedRun(family, params, job.settings, options)
      : new BacktestRun(family.create(params), job.settings, options);
  const { dataSource, startMs, endMs, timeframe, resampleMs } = job.bars;
  let done = 0;
  const opts = { datasets, timeframe, resampleMs };
  for await (const bars of streamBars(dataSource, startMs, endMs, opts)) {
    for (let from = 0; from < bars.length; from += SLICE) {
      if (Atomics.load(control, 0) !== 0) return undefined;
      const to = Math.min(from + SLICE, bars.length);
      engine.feed(barsAt(bars, from, to));
      done += to - from;
      Atomics.store(control, 1, done);
    }
  }
  if (Atomics.load(control, 0) !== 0) return undefined;
  const metrics = engine.finish();
  return refused.size > 0 ? { ...metrics, riskRejections: Object.fromEntries(refused) } : metrics;
}

/**
 * A version's strategy code: its bundle runs in the sandbox, answering the kernel a slice at a
 * time (SandboxHost), on the same books as a family's run. A StrategyFailure (the strategy timed
 * out, ran out of memory, threw, or was given bad params) rejects, and the run ends failed.
 */
async function computeSandboxed(
  job: RunJob,
  code: NonNullable<RunJob["code"]>,
  control: Int32Array,
  datasets: DatasetSource,
): Promise<RunOutcome | undefined> {
  if (code.language === "python") return computePython(job, code, control, datasets);
  // The models run beside the sandbox, in a process of their own; a backtest counts its
  // inferences and keeps none (a paper session records them).
  const models = code.models?.length
    ? await RunModels.start(code.models, code.modelLimits ?? modelLimitsFromEnv()).catch(
        (err: unknown) => {
          if (err instanceof ModelFailure) throw new StrategyFailure("strategy_error", err.message);
          throw err;
        },
      )
    : undefined;
  const sandbox = await startSandbox({
    bundle: code.bundle,
    params: job.params ?? {},
    symbols: [job.symbol],
    seed: job.id,
    limits: code.limits,
    ...(code.sourceMap ? { sourceMap: code.sourceMap } : {}),
    ...(models ? { models } : {}),
  }).catch((err: unknown) => {
    models?.close();
    throw err;
  });
  const host = new SandboxHost(sandbox, job.symbol);
  try {
    host.initialised(await sandbox.init());
    return await runOnHost(job, host, control, datasets, () => ({
      lines: host.logs,
      dropped: host.logsDropped,
    }));
  } catch (err) {
    throw withLogs(err, host);
  } finally {
    sandbox.kill();
    models?.close();
  }
}

/**
 * A version's Python strategy: its gRPC server runs in the sandbox (GrpcStrategyHost over a Unix
 * socket), on the same books and the same bar loop as a TypeScript strategy's run.
 */
async function computePython(
  job: RunJob,
  code: NonNullable<RunJob["code"]>,
  control: Int32Array,
  datasets: DatasetSource,
): Promise<RunOutcome | undefined> {
  const host = await startPythonHost({
    source: code.bundle,
    symbol: job.symbol,
    params: job.params ?? {},
    seed: job.id,
    limits: code.limits,
  });
  try {
    return await runOnHost(job, host, control, datasets, () => ({
      lines: host.logs,
      dropped: host.logsDropped,
    }));
  } catch (err) {
    throw withLogs(err, host);
  } finally {
    host.close();
  }
}

/** A strategy's failure with the lines it wrote before it, which the failed run keeps. */
function withLogs(err: unknown, host: { logs: readonly LogLine[]; logsDropped: number }): unknown {
  if (!(err instanceof StrategyFailure)) return err;
  // A failure in init, before the host kept anything, carries its own lines.
  const lines = [...host.logs, ...(err.callLogs?.lines ?? [])];
  const dropped = Math.max(host.logsDropped, err.callLogs?.dropped ?? 0);
  if (lines.length + dropped > 0) err.strategyLogs = { lines, dropped };
  return err;
}

/** The bar loop of a run whose strategy answers asynchronously (a sandbox, a gRPC service). */
async function runOnHost(
  job: RunJob,
  host: AsyncStrategyHost,
  control: Int32Array,
  datasets: DatasetSource,
  /** The strategy's log lines, kept with the results (a host that keeps them). */
  logs?: () => NonNullable<RunOutcome["strategyLogs"]>,
): Promise<RunOutcome | undefined> {
  const refused = new Map<string, number>();
  const risk = { limits: job.risk, startEquity: job.settings.initialCash, refused };
  const options = { ...(anyLimit(job.risk) ? { risk } : {}), symbol: job.symbol };
  const engine = new BacktestRun({ asyncHost: host }, job.settings, options);
  const { dataSource, startMs, endMs, timeframe, resampleMs } = job.bars;
  let done = 0;
  for await (const bars of streamBars(dataSource, startMs, endMs, {
    datasets,
    timeframe,
    resampleMs,
  })) {
    for (let from = 0; from < bars.length; from += CODE_SLICE) {
      if (Atomics.load(control, 0) !== 0) return undefined;
      const to = Math.min(from + CODE_SLICE, bars.length);
      await engine.feedAsync(barsAt(bars, from, to));
      done += to - from;
      Atomics.store(control, 1, done);
    }
  }
  if (Atomics.load(control, 0) !== 0) return undefined;
  await engine.stop();
  const metrics = engine.finish();
  const kept = logs ? { strategyLogs: logs() } : {};
  return refused.size > 0
    ? { ...metrics, riskRejections: Object.fromEntries(refused), ...kept }
    : { ...metrics, ...kept };
}

/** Clock steps of a portfolio between two looks at the stop flag. */
const PORTFOLIO_SLICE = 1_024;

/**
 * A portfolio's run (docs/portfolios.md): every symbol's bars loaded and aligned on one clock,
 * then the portfolio's books and order path over them, a slice of the clock at a time; a
 * built-in family runs one instance per symbol, a version's code decides for the universe.
 */
async function computePortfolio(
  job: RunJob,
  portfolio: NonNullable<RunJob["portfolio"]>,
  control: Int32Array,
  datasets: DatasetSource,
): Promise<RunOutcome | undefined> {
  const { startMs, endMs, timeframe } = job.bars;
  const bars = await loadPortfolioBars(portfolio.parts, startMs, endMs, { datasets, timeframe });
  const symbols = bars.symbols;
  const refused = new Map<string, number>();
  const run = new PortfolioRun(
    {
      ...job.settings,
      allowShort: portfolio.allowShort,
      borrowBps: portfolio.borrowBps,
      symbolCosts: portfolio.symbolCosts,
    },
    symbols,
    { risk: { limits: job.risk, refused } },
  );
  const total = bars.bars.reduce((n, b) => n + countBars(b.close), 0);
  const clock = bars.time.length;
  const progress = (t: number) => Atomics.store(control, 1, Math.round((t / clock) * total));
  let logs: RunOutcome["strategyLogs"];
  if (job.code) {
    if (job.code.language === "python")
      throw new EngineInputError(
        "invalid_parameter",
        "a Python strategy trades one symbol for now; a universe of several symbols needs a TypeScript strategy",
        "universe.symbols",
      );
    const sandbox = await startSandbox({
      bundle: job.code.bundle,
      params: job.params ?? {},
      symbols: [...symbols],
      seed: job.id,
      limits: job.code.limits,
    });
    try {
      const host = new PortfolioSandboxHost(sandbox, symbols);
      await sandbox.init();
      for (let from = 0; from < clock; from += CODE_SLICE) {
        if (Atomics.load(control, 0) !== 0) return undefined;
        const to = Math.min(from + CODE_SLICE, clock);
        await run.runHost(bars, host, from, to);
        progress(to);
      }
      await host.stop();
      logs = { lines: host.logs, dropped: host.logsDropped };
    } finally {
      sandbox.kill();
    }
  } else {
    const { family, params } = resolveStrategy(job.family, job.params);
    const strategies = symbols.map(() => family.create(params));
    for (let from = 0; from < clock; from += PORTFOLIO_SLICE) {
      if (Atomics.load(control, 0) !== 0) return undefined;
      const to = Math.min(from + PORTFOLIO_SLICE, clock);
      run.runStrategies(bars, strategies, from, to);
      progress(to);
    }
  }
  if (Atomics.load(control, 0) !== 0) return undefined;
  const { portfolio: result, ...metrics } = run.books.finish(bars.gaps);
  const rejections = run.refusals();
  return {
    ...metrics,
    bars: total,
    turnover: result.turnover,
    grossExposure: result.grossExposure,
    borrowCost: result.borrowCost,
    portfolio: result,
    ...(rejections ? { riskRejections: rejections } : {}),
    ...(logs ? { strategyLogs: logs } : {}),
  };
}

function countBars(close: Float64Array): number {
  let n = 0;
  for (let i = 0; i < close.length; i++) if (close[i] === close[i]) n++;
  return n;
}
