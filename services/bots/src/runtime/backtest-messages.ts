import type { Bars, EngineSettings, RiskLimits, RunMetrics } from "../engine/index.js";
import type { SandboxLimits } from "../sandbox/index.js";
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
  code?: { bundle: string; limits: SandboxLimits; language?: "python" };
  settings: EngineSettings;
  risk: RiskLimits;
  symbol: string;
  bars: { dataSource: string; startMs?: number; endMs?: number; timeframe?: string };
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
};

/** An error of the worker's run, as it crosses the thread boundary. */
export interface WorkerError {
  name: string;
  message: string;
  code?: string;
  field?: string;
}

export type ToWorker =
  /** `control`: [0] the stop flag the main thread sets, [1] bars fed so far (progress). */
  | { type: "run"; job: RunJob; control: Int32Array }
  | { type: "described"; ask: number; info?: { symbol: string; timeframe: string } }
  /** The next chunk of an uploaded data set, or none at its end (or when the run stops). */
  | { type: "chunk"; ask: number; bars?: Bars };

export type FromWorker =
  | { type: "describe"; run: number; ask: number; name: string }
  | { type: "chunk"; run: number; ask: number; name: string }
  | { type: "done"; run: number; finished: FinishedRun }
  | { type: "written"; run: number; written: WrittenRun }
  | { type: "stopped"; run: number }
  | { type: "error"; run: number; error: WorkerError };
