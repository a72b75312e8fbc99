/**
 * The strategy SDK: the whole surface a strategy file may import. A strategy is a default export
 * of `defineStrategy({...})`; the platform type-checks the file against this module, bundles it,
 * and runs it in its sandbox, where nothing else exists (no network, files, timers, clock,
 * environment, unseeded randomness, `eval` or module loading).
 *
 * Semver: this surface is versioned as a package. A minor version only adds; removing or changing
 * the meaning of an export is a major version, and a bot version records the SDK version its
 * bundle was checked against.
 */

/** This SDK's version (semver), recorded with a bundle checked against it. */
export const SDK_VERSION = "0.3.0";

/** A parameter's declaration: the console's form, the CLI and sweeps read these. */
export type ParamSpec =
  | { type: "int"; default: number; min?: number; max?: number; description?: string }
  | { type: "number"; default: number; min?: number; max?: number; description?: string }
  | { type: "boolean"; default: boolean; description?: string }
  | { type: "enum"; default: string; values: readonly string[]; description?: string };

/** The value type a declaration gives the strategy. */
export type ParamValue<P extends ParamSpec> = P extends { type: "boolean" }
  ? boolean
  : P extends { type: "enum" }
    ? string
    : number;

/** The resolved parameters a strategy reads in `ctx.params`: every declared name, typed by its declaration. */
export type ParamValues<P extends Record<string, ParamSpec>> = {
  readonly [K in keyof P]: ParamValue<P[K]>;
};

/**
 * Helpers that build declarations: `param.int({ default: 10, min: 2 })`. A run's parameters are
 * the declared defaults overlaid with the values the bot's version gives; an undeclared name, a
 * value of the wrong type, a non-integer for `int`, a value outside `min`..`max` or outside an
 * enum's `values` fails the run before `init` with a message naming the parameter.
 */
export const param = {
  /** An integer parameter (checked to be an integer and within `min`..`max` when given). */
  int: (p: Omit<Extract<ParamSpec, { type: "int" }>, "type">) => ({ type: "int" as const, ...p }),
  /** A finite number parameter (within `min`..`max` when given). */
  number: (p: Omit<Extract<ParamSpec, { type: "number" }>, "type">) => ({
    type: "number" as const,
    ...p,
  }),
  /** A true/false parameter. */
  boolean: (p: Omit<Extract<ParamSpec, { type: "boolean" }>, "type">) => ({
    type: "boolean" as const,
    ...p,
  }),
  /** One of a fixed list of strings. */
  enum: <V extends string>(p: { default: V; values: readonly V[]; description?: string }) => ({
    type: "enum" as const,
    ...p,
  }),
};

/** One closed bar. Times are epoch milliseconds of the bar's open. */
export interface Bar {
  readonly time: number;
  readonly open: number;
  readonly high: number;
  readonly low: number;
  readonly close: number;
  readonly volume: number;
}

/**
 * A symbol's closed bars, newest last, at most the strategy's `lookback` of them. Never a bar
 * that has not closed: the latest is the bar `onBar` is called for.
 */
export interface BarSeries {
  readonly symbol: string;
  /** How many bars are held now (grows to `lookback`). */
  readonly length: number;
  /** The bar `ago` bars back: 0 is the latest. Undefined past what is held. */
  at(ago: number): Bar | undefined;
  /** The last `n` values of a field, oldest first (fewer when fewer are held). */
  closes(n: number): Float64Array;
  /**
   * One field of the bar `ago` bars back (0 is the latest), NaN past what is held: `at(ago)`'s
   * number without its object, for a strategy that reads a field or two each bar. Since 0.3.0.
   */
  value(field: keyof Bar, ago?: number): number;
  readonly latest: Bar;
}

/** A symbol's holding. A symbol not held reads as `units: 0, averagePrice: 0`. */
export interface Position {
  readonly symbol: string;
  /** Units held: negative is short. */
  readonly units: number;
  readonly averagePrice: number;
}

/** An order the platform's order path holds and has not filled or cancelled yet. */
export interface OpenOrder {
  readonly id: string;
  readonly symbol: string;
  readonly side: "buy" | "sell";
  readonly type: "market" | "limit" | "stop";
  readonly units: number;
  readonly limitPrice?: number;
  readonly stopPrice?: number;
}

/** The portfolio as the platform's order path sees it after the fills before this bar. */
export interface Portfolio {
  readonly cash: number;
  readonly equity: number;
  position(symbol: string): Position;
  readonly positions: readonly Position[];
  readonly openOrders: readonly OpenOrder[];
}

/** An execution of one of the strategy's orders (or of the orders sizing its targets); `onFill` gets each. */
export interface Fill {
  readonly orderId: string;
  readonly symbol: string;
  readonly side: "buy" | "sell";
  readonly units: number;
  readonly price: number;
  readonly fee: number;
  readonly time: number;
}

/** A target position for a symbol: a fraction of equity (signed) or a number of units (signed). */
export type Target = { weight: number } | { units: number };

/**
 * An explicit order. A market order fills at the next bar's open; a limit or stop order rests
 * until its price is touched or it is cancelled. `units` is positive; `side` gives the direction.
 */
export type OrderRequest =
  | { symbol: string; side: "buy" | "sell"; units: number; type: "market" }
  | { symbol: string; side: "buy" | "sell"; units: number; type: "limit"; limitPrice: number }
  | { symbol: string; side: "buy" | "sell"; units: number; type: "stop"; stopPrice: number };

/** The strategy's logger: its lines land in the run's events with the bar's time. */
export interface Logger {
  /** A line in the run's events (bounded: past the run's limit, lines are counted, not kept). */
  info(message: string, fields?: Record<string, string | number | boolean>): void;
  warn(message: string, fields?: Record<string, string | number | boolean>): void;
}

/** JSON the platform snapshots with a paper session, so a resumed session has it back. */
export type JsonValue =
  null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

/** A model's input: its dims and its values, row-major (a batch is one more leading dim). */
export interface Tensor {
  readonly dims: readonly number[];
  readonly data: ArrayLike<number>;
}

/** A model's output: its dims and its values, row-major. */
export interface ModelOutput {
  readonly dims: readonly number[];
  readonly data: Float64Array;
}

/**
 * One of the bot version's ONNX models (spec.models). `run` is synchronous from the strategy's
 * side: the platform runs the model outside the sandbox and answers within the bar. Give every
 * input the model declares, by name; a batch of rows in one call is one round trip.
 */
export interface Model {
  readonly name: string;
  run(inputs: Readonly<Record<string, Tensor>>): Readonly<Record<string, ModelOutput>>;
}

/**
 * What a strategy reads and answers through, in every callback. Only valid during the call it is
 * given to (keep data in `ctx.state`, not the context).
 */
export interface Context<P extends Record<string, ParamSpec>> {
  /** The run's parameters: declared defaults overlaid with the version's values, checked. */
  readonly params: ParamValues<P>;
  /** The universe's symbols, in the bot's order. */
  readonly symbols: readonly string[];
  /** A symbol's closed bars (throws for a symbol outside the universe). */
  bars(symbol: string): BarSeries;
  /** Time of the bar being handled (epoch ms); the only clock a strategy has. */
  readonly time: number;
  readonly portfolio: Portfolio;
  /** The strategy's own state: JSON only, snapshotted with the session. */
  state: { [key: string]: JsonValue };
  /** Sets where a symbol's position should be; the order path sizes and sends the difference. */
  target(symbol: string, target: Target): void;
  /** An explicit order through the order path and its risk controls; returns its id. */
  order(request: OrderRequest): string;
  cancel(orderId: string): void;
  readonly log: Logger;
  /**
   * A model of the version by its name in spec.models (throws for a name it has not). Its
   * outputs are recorded in a paper session's events (model_output), so a replay reads them
   * instead of running the model again.
   */
  model(name: string): Model;
}

/**
 * A strategy: its declared parameters and its lifecycle. `init` runs once before the first bar
 * (and again when a paper session resumes from a snapshot, with `ctx.state` restored); `onFill`
 * runs for each fill before the next `onBar`; `onBar` runs once per bar of the universe, with
 * every symbol's bar of that time closed; `onStop` runs once at the end. Every callback is
 * synchronous: a returned promise fails the run, as nothing asynchronous ever runs.
 */
export interface StrategyDefinition<P extends Record<string, ParamSpec>> {
  /** Declared parameters, with their defaults and ranges. */
  params: P;
  /** Bars of history kept per symbol for `ctx.bars` (default 1, at most 10,000). */
  lookback?: number;
  init?(ctx: Context<P>): void;
  onBar(ctx: Context<P>): void;
  onFill?(ctx: Context<P>, fill: Fill): void;
  onStop?(ctx: Context<P>): void;
}

/**
 * A strategy file's default export: `export default defineStrategy({ params: {...}, onBar(ctx) {...} })`.
 * It returns its argument; its use is to type `ctx.params` from the declarations.
 */
export function defineStrategy<P extends Record<string, ParamSpec>>(
  definition: StrategyDefinition<P>,
): StrategyDefinition<P> {
  return definition;
}

/**
 * Technical indicators from `trading-signals` (MIT, number-based streaming classes): feed each
 * bar with `add(value)` (or `add({ high, low, close })` for the candle-based ones) and read
 * `getResult()` (null until `isStable`). They are bundled into the strategy with the SDK. Named
 * here, not `export *`, so the surface is this SDK's to version: a new one is a minor release.
 */
export {
  ADX,
  ATR,
  BollingerBands,
  CCI,
  DEMA,
  DonchianChannels,
  EMA,
  KeltnerChannels,
  MACD,
  MAD,
  OBV,
  ROC,
  RSI,
  SMA,
  StochasticOscillator,
  TR,
  VWAP,
  WMA,
  WSMA,
  NotEnoughDataError,
} from "trading-signals";

/**
 * Plain functions over a window of values from `trading-signals` (since 0.3.0): a window's mean
 * (summed oldest first), its population standard deviation about a mean, its largest and its
 * smallest value. The built-in families keep their windows in `ctx.state` and use these.
 */
export { getAverage, getMaximum, getMinimum, getStandardDeviation } from "trading-signals";
