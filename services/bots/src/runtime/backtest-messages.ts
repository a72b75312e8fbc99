import type { Bars, EngineSettings, RiskLimits, RunMetrics } from "../engine/index.js";
import type { PortfolioResult } from "../engine/portfolio/portfolio-books.js";
import type { PortfolioParts } from "../engine/portfolio/portfolio-source.js";
import type { SandboxLimits } from "../sandbox/index.js";
import type { ModelLimits } from "../models/model-host.js";
import type { FinishedRun } from "./backtest-record.js";
import type { RunIdentity } from "./record-run.js";
import type { StrategyLogLine } from "../execution/kernel/index.js";

/** What a backtest worker needs to build and run the engine: plain, structured-cloneable data. */
export interface RunJob {
  id: number;
  /** The strategy family's name and the spec's parameters, resolved again in the worker. */
  family: string;
  params: Record<string, unknown> | undefined;
  /**
   * The version's strategy code, when it has code instead of a family: its bundle runs in the
   * sandbox with `params` (then `family` only names it) under `limits`; a Python strategy's
   * bundle is its source, served over gRPC from the sandbox.
   */
  code?: {
    bundle: string;
    limits: SandboxLimits;
    language?: "python";
    sourceMap?: string;
    /** The version's ONNX models (bytes checked against their digests before they load). */
    models?: { name: string; digest: string; bytes: Uint8Array }[];
    modelLimits?: ModelLimits;
  };
  settings: EngineSettings;
  risk: RiskLimits;
  symbol: string;
  /**
   * A portfolio's run: its universe, each symbol's data source, and what its engine adds
   * (shorts, borrow cost, each symbol's costs). Without it the run trades `symbol` alone.
   */
  portfolio?: {
    parts: PortfolioParts;
    allowShort: boolean;
    borrowBps: number;
    symbolCosts: Record<string, { feeBps?: number; slippageBps?: number }>;
  };
  /** resampleMs: a finer data set's bars resampled to the bot's timeframe (SourceOptions). */
  bars: {
    dataSource: string;
    startMs?: number;
    endMs?: number;
    timeframe?: string;
    resampleMs?: number;
  };
  /**
   * Where the run's result and trial are written, when the worker writes them itself (on
   * Postgres, its own connection: backtest-pool.ts's `store`); unset, it sends them back.
   */
  record?: RunIdentity;
}

/** What a worker that wrote a run's result tells: whether it was recorded, and its headline. */
export interface WrittenRun {
  /** False when the run was no longer running here (halted, taken over): nothing was written. */
  recorded: boolean;
  bars: number;
  trades: number;
  totalReturn: number;
}

export type RunOutcome = RunMetrics & {
  riskRejections?: Record<string, number>;
  /** A code strategy's ctx.log lines (the bar's time on each) and the lines past the run's limit. */
  strategyLogs?: { lines: StrategyLogLine[]; dropped: number };
  /** A portfolio's run: each symbol's figures and its data's gaps. */
  portfolio?: PortfolioResult;
  /** A portfolio's notional traded over its average equity, mean gross exposure, borrow paid. */
  turnover?: number;
  grossExposure?: number;
  borrowCost?: number;
};

/** An error of the worker's run, as it crosses the thread boundary. */
export interface WorkerError {
  name: string;
  message: string;
  code?: string;
  field?: string;
  /** A failed code strategy's log lines, written before its failure. */
  strategyLogs?: { lines: StrategyLogLine[]; dropped: number };
}

export type ToWorker =
  /** `control`: [0] the stop flag the main thread sets, [1] bars fed so far (progress). */
  | { type: "run"; job: RunJob; control: Int32Array }
  | { type: "described"; ask: number; info?: { symbol: string; timeframe: string } }
  /** The next chunk of an uploaded data set, or none at its end (or when the run stops). */
  | { type: "chunk"; ask: number; bars?: Bars };

export type FromWorker =
  | { type: "describe"; run: number; ask: number; name: string }
  /** `symbol`: which of a data set of several symbols (a portfolio reads each of its own). */
  | { type: "chunk"; run: number; ask: number; name: string; symbol?: string }
  | { type: "done"; run: number; finished: FinishedRun }
  | { type: "written"; run: number; written: WrittenRun }
  | { type: "stopped"; run: number }
  | { type: "error"; run: number; error: WorkerError };
