import type { JsonValue, OrderRequest, ParamSpec, Target } from "@svc/strategy-sdk";

/** Why a run failed because of its strategy; the run ends `failed` with this code. */
export type StrategyFailureCode =
  /** A call (init, a block, a snapshot, onStop) ran past its time, or the run past its CPU. */
  | "strategy_timeout"
  /** The strategy's heap or its address space ran out. */
  | "strategy_memory"
  /** The strategy threw, answered something invalid, or its process ended on its own. */
  | "strategy_error"
  /** The parameters given do not fit the strategy's declarations (before init ran). */
  | "invalid_params";

/** The portfolio the host's order path holds, sent with each block. */
export interface PortfolioView {
  cash: number;
  positions: { symbol: string; units: number; averagePrice: number }[];
  openOrders: {
    id: string;
    symbol: string;
    side: "buy" | "sell";
    type: "market" | "limit" | "stop";
    units: number;
    limitPrice?: number;
    stopPrice?: number;
  }[];
}

export interface FillView {
  orderId: string;
  symbol: string;
  side: "buy" | "sell";
  units: number;
  price: number;
  fee: number;
  time: number;
}

/** What the strategy asked for at one bar: only what changed (a target equal to the standing one is not sent). */
export interface Decision {
  /** The bar's index in the block passed to `decide`. */
  bar: number;
  time: number;
  targets: { symbol: string; target: Target }[];
  /** Orders with the ids the strategy got back from `ctx.order`. */
  orders: (OrderRequest & { id: string })[];
  cancels: string[];
}

export interface LogLine {
  /** The bar's index in the block (-1 for init, onStop and fills before the first bar). */
  bar: number;
  /** The bar's time (or the fill's, in onFill); null in init and before any bar. */
  time: number | null;
  level: "info" | "warn";
  message: string;
  fields?: Record<string, string | number | boolean>;
}

export interface InitAnswer {
  /** The parameters the run uses: declared defaults overlaid with the given values. */
  params: Record<string, number | boolean | string>;
  /** The strategy's declarations (for the console's form, the CLI and sweeps). */
  declared: Record<string, ParamSpec>;
  lookback: number;
  logs: LogLine[];
  logsDropped: number;
}

export interface DecideAnswer {
  /** The block index of the last bar the strategy saw in this call. */
  stoppedAfter: number;
  decisions: Decision[];
  logs: LogLine[];
  /** Lines past the run's limit so far (counted, not kept). */
  logsDropped: number;
  /**
   * Set when the strategy, running ahead (BlockMeta.sure), read the portfolio at this bar: it
   * waits in that bar's call for the portfolio as of the bar's open (`Sandbox.resume`). The
   * decisions answered are all before it, and `stoppedAfter` is the bar before it.
   */
  waitingAt?: number;
}

/** The host's reply to a strategy waiting at a bar: the portfolio at its open and how far it holds. */
export interface ResumeMeta {
  portfolio: PortfolioView;
  /** As BlockMeta.sure, from the waiting bar on. */
  sure: number;
}

export interface StopAnswer {
  decisions: Decision[];
  logs: LogLine[];
  logsDropped: number;
}

/** Everything the runtime needs to resume a run where it was: JSON, opaque to the host. */
export type SandboxSnapshot = { [key: string]: JsonValue };

/** The runtime's answer to any request, as the child sends it. */
export type RuntimeAnswer<T> =
  | { ok: T }
  | {
      fail: {
        code: StrategyFailureCode;
        message: string;
        stack?: string;
        /** The lines the failing call wrote before it failed, and the run's dropped count. */
        logs?: LogLine[];
        logsDropped?: number;
      };
    };

export interface InitRequest {
  runtime: string;
  strategy: string;
  config: RuntimeConfig;
}

export interface RuntimeConfig {
  params: Record<string, unknown>;
  symbols: string[];
  /** Overrides the strategy's own lookback when set. */
  lookback?: number;
  seed: number;
  logLines: number;
  logLineChars: number;
  restore?: SandboxSnapshot;
  /** The names of the models the host runs for the strategy (ctx.model). */
  models?: string[];
}

/** A block's meta: the rows it carries start at block index `base`; run bars from..to-1. */
export interface BlockMeta {
  base: number;
  rows: number;
  from: number;
  to: number;
  portfolio: PortfolioView;
  fills: FillView[];
  /**
   * When set, the strategy runs on past its decisions up to `to`: `portfolio` and `fills` hold
   * for bars from..sure-1 as long as it decides nothing (the kernel's horizon), and where it
   * reads the portfolio past that, it waits for the host (DecideAnswer.waitingAt). Unset, it
   * answers after its first decision.
   */
  sure?: number;
}

/** A tensor as it crosses between the sandbox, the host and the model process. */
export interface ModelTensor {
  dims: number[];
  data: number[];
}

/** A strategy's model call, as the child sends it mid-call. */
export interface ModelCall {
  bar: number;
  time: number | null;
  model: string;
  inputs: Record<string, ModelTensor>;
}

/**
 * What runs a strategy's models for its sandbox, outside it (models/run-models.ts). A rejection
 * with `fatal` set (the model ran past its time or memory) fails the run; any other rejection
 * is the strategy's error to see (a wrong input), thrown in its call.
 */
export interface ModelServer {
  readonly names: readonly string[];
  run(call: ModelCall): Promise<Record<string, ModelTensor>>;
}
