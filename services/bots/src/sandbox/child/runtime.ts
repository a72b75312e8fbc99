/**
 * The strategy runtime: ours, trusted, and run next to the strategy inside its sandbox (in the
 * child's strategy realm, compiled there before the strategy). It implements the SDK's `Context`
 * over the bars the host sends, collects the strategy's targets, orders and cancels as
 * decisions, bounds its log, and snapshots its state. It imports nothing at run time: the child
 * bundles it alone and runs it in a realm with only ECMAScript's built-ins.
 */
import type {
  Bar,
  BarSeries,
  Context,
  Fill,
  JsonValue,
  Logger,
  Model,
  ModelOutput,
  OrderRequest,
  ParamSpec,
  Portfolio,
  Position,
  StrategyDefinition,
  Target,
} from "@svc/strategy-sdk";
import { columnsLength } from "../protocol.js";
import type {
  BlockMeta,
  DecideAnswer,
  Decision,
  InitAnswer,
  LogLine,
  PortfolioView,
  ResumeMeta,
  RuntimeAnswer,
  RuntimeConfig,
  SandboxSnapshot,
  StopAnswer,
  StrategyFailureCode,
} from "../types.js";

/** The file name the strategy's bundle is compiled under: its stack frames keep it, all others go. */
export const STRATEGY_FILE = "strategy.js";
export const MAX_LOOKBACK = 10_000;
/** Input values one model call may carry (all its inputs together). */
export const MAX_MODEL_VALUES = 1_000_000;
/**
 * Model calls one bar (or init, or onStop) may make: the host restarts a call's clock at each
 * model answer, so this is what keeps a strategy that loops on its model within its call limit.
 */
export const MAX_MODEL_CALLS_PER_BAR = 64;

type AnyDefinition = StrategyDefinition<Record<string, ParamSpec>>;

/** A failure the runtime reports with its code (anything else the strategy throws is strategy_error). */
export class RuntimeFault extends Error {
  constructor(
    readonly code: StrategyFailureCode,
    message: string,
  ) {
    super(message);
  }
}

/** Bars in columns, as the engine holds them (a trusted, in-process caller's). */
export interface BarColumns {
  readonly time: Float64Array;
  readonly open: Float64Array;
  readonly high: Float64Array;
  readonly low: Float64Array;
  readonly close: Float64Array;
  readonly volume: Float64Array;
}

/** Bar history of one symbol: rings of `capacity` rows per field, newest at `head - 1`. */
class Series implements BarSeries {
  readonly time: Float64Array;
  readonly open: Float64Array;
  readonly high: Float64Array;
  readonly low: Float64Array;
  readonly close: Float64Array;
  readonly volume: Float64Array;
  length = 0;
  private head = 0;
  constructor(
    readonly symbol: string,
    private readonly capacity: number,
  ) {
    this.time = new Float64Array(capacity);
    this.open = new Float64Array(capacity);
    this.high = new Float64Array(capacity);
    this.low = new Float64Array(capacity);
    this.close = new Float64Array(capacity);
    this.volume = new Float64Array(capacity);
  }
  push(t: number, o: number, h: number, l: number, c: number, v: number): void {
    const i = this.head;
    this.time[i] = t;
    this.open[i] = o;
    this.high[i] = h;
    this.low[i] = l;
    this.close[i] = c;
    this.volume[i] = v;
    this.head = i + 1 === this.capacity ? 0 : i + 1;
    // A store every bar, not only while the series fills: V8 keeps no feedback for a function's
    // first calls, so a store made only then was compiled as a deoptimisation, and a
    // long-running process's next run threw the compiled strategy loop away at its first bar.
    const n = this.length;
    this.length = n + (n < this.capacity ? 1 : 0);
  }
  /** Bar `t` of columns: no number crosses a call, so none is boxed (a trusted caller's bars). */
  pushAt(b: BarColumns, t: number): void {
    const i = this.head;
    this.time[i] = b.time[t]!;
    this.open[i] = b.open[t]!;
    this.high[i] = b.high[t]!;
    this.low[i] = b.low[t]!;
    this.close[i] = b.close[t]!;
    this.volume[i] = b.volume[t]!;
    this.head = i + 1 === this.capacity ? 0 : i + 1;
    const n = this.length;
    this.length = n + (n < this.capacity ? 1 : 0);
  }
  private slot(ago: number): number {
    const i = this.head - 1 - ago;
    return i < 0 ? i + this.capacity : i;
  }
  at(ago: number): Bar | undefined {
    if (!Number.isInteger(ago) || ago < 0 || ago >= this.length) return undefined;
    const i = this.slot(ago);
    // A fresh object each call, the strategy's own: freezing it (a runtime call per bar, a third
    // of a bar's cost) would protect nothing the runtime or another run reads.
    return {
      time: this.time[i]!,
      open: this.open[i]!,
      high: this.high[i]!,
      low: this.low[i]!,
      close: this.close[i]!,
      volume: this.volume[i]!,
    };
  }
  closes(n: number): Float64Array {
    const k = Math.max(0, Math.min(Math.floor(n) || 0, this.length));
    const out = new Float64Array(k);
    for (let j = 0; j < k; j++) out[j] = this.close[this.slot(k - 1 - j)]!;
    return out;
  }
  value(field: keyof Bar, ago = 0): number {
    if (!Number.isInteger(ago) || ago < 0 || ago >= this.length) return NaN;
    const i = this.slot(ago);
    switch (field) {
      case "close":
        return this.close[i]!;
      case "high":
        return this.high[i]!;
      case "low":
        return this.low[i]!;
      case "open":
        return this.open[i]!;
      case "volume":
        return this.volume[i]!;
      case "time":
        return this.time[i]!;
      default:
        throw new TypeError(`value(${String(field)}): not a field of a bar`);
    }
  }
  get latest(): Bar {
    const bar = this.at(0);
    if (!bar) throw new RangeError(`no bar of ${this.symbol} has closed yet`);
    return bar;
  }
  lastClose(): number {
    return this.length === 0 ? NaN : this.close[this.slot(0)]!;
  }
  toJson(): JsonValue {
    const rows: number[][] = [];
    for (let ago = this.length - 1; ago >= 0; ago--) {
      const i = this.slot(ago);
      rows.push([
        this.time[i]!,
        this.open[i]!,
        this.high[i]!,
        this.low[i]!,
        this.close[i]!,
        this.volume[i]!,
      ]);
    }
    return rows;
  }
}

/** sfc32: small, fast, seedable; its four words are the state a snapshot keeps. */
export class SeededRandom {
  constructor(readonly s: Uint32Array) {}
  static fromSeed(seed: number): SeededRandom {
    const r = new SeededRandom(new Uint32Array([0x9e3779b9, 0x243f6a88, 0xb7e15162, seed >>> 0]));
    for (let i = 0; i < 15; i++) r.next();
    return r;
  }
  next(): number {
    const s = this.s;
    const t = (((s[0]! + s[1]!) >>> 0) + s[3]!) >>> 0;
    s[3] = (s[3]! + 1) >>> 0;
    s[0] = s[1]! ^ (s[1]! >>> 9);
    s[1] = (s[2]! + (s[2]! << 3)) >>> 0;
    s[2] = ((s[2]! << 21) | (s[2]! >>> 11)) >>> 0;
    s[2] = (s[2]! + t) >>> 0;
    return t / 4294967296;
  }
}

export function resolveParams(
  declared: Record<string, ParamSpec>,
  given: Record<string, unknown>,
): Record<string, number | boolean | string> {
  const problems: string[] = [];
  const out: Record<string, number | boolean | string> = {};
  // A parameter named __proto__ cannot be kept: written as a plain key in a literal it sets the
  // object's prototype (so it is no key at all), and assigned to a result it would set that
  // object's. It is refused by name rather than dropped without a word.
  const proto = Object.getPrototypeOf(declared) as object | null;
  if (
    Object.prototype.hasOwnProperty.call(declared, "__proto__") ||
    (proto !== null && Object.getPrototypeOf(proto) !== null)
  )
    problems.push(
      "__proto__: a parameter may not be named __proto__ (JavaScript objects give that name to their prototype); rename it",
    );
  for (const name of Object.keys(given)) {
    if (!Object.prototype.hasOwnProperty.call(declared, name))
      problems.push(
        `${name}: not a parameter of this strategy (it declares ${Object.keys(declared).join(", ") || "none"})`,
      );
  }
  for (const [name, spec] of Object.entries(declared)) {
    if (name === "__proto__") continue;
    const has = Object.prototype.hasOwnProperty.call(given, name) && given[name] !== undefined;
    const value = has ? given[name] : spec.default;
    const from = has ? "" : " (its default)";
    if (spec.type === "boolean") {
      if (typeof value !== "boolean")
        problems.push(`${name}: ${String(value)}${from} is not true or false`);
      else out[name] = value;
    } else if (spec.type === "enum") {
      if (typeof value !== "string" || !spec.values.includes(value))
        problems.push(
          `${name}: ${JSON.stringify(value)}${from} is not one of ${spec.values.join(", ")}`,
        );
      else out[name] = value;
    } else if (spec.type === "int" || spec.type === "number") {
      if (typeof value !== "number" || !Number.isFinite(value))
        problems.push(`${name}: ${String(value)}${from} is not a finite number`);
      else if (spec.type === "int" && !Number.isInteger(value))
        problems.push(`${name}: ${value}${from} is not an integer`);
      else if (spec.min !== undefined && value < spec.min)
        problems.push(`${name}: ${value}${from} is below its minimum ${spec.min}`);
      else if (spec.max !== undefined && value > spec.max)
        problems.push(`${name}: ${value}${from} is above its maximum ${spec.max}`);
      else out[name] = value;
    } else {
      problems.push(
        `${name}: declared with an unknown type ${JSON.stringify((spec as { type?: unknown }).type)}`,
      );
    }
  }
  if (problems.length)
    throw new RuntimeFault("invalid_params", `invalid parameters: ${problems.join("; ")}`);
  return out;
}

/** Checks that a value is JSON (plain objects, arrays, finite numbers, strings, booleans, null). */
function checkJson(value: unknown, path: string, seen: Set<unknown>, depth: number): void {
  if (value === null || typeof value === "string" || typeof value === "boolean") return;
  if (typeof value === "number") {
    if (!Number.isFinite(value)) throw new TypeError(`ctx.state is not JSON: ${path} is ${value}`);
    return;
  }
  if (typeof value !== "object")
    throw new TypeError(`ctx.state is not JSON: ${path} is a ${typeof value}`);
  if (depth > 64) throw new TypeError(`ctx.state is not JSON: ${path} is nested over 64 deep`);
  if (seen.has(value)) throw new TypeError(`ctx.state is not JSON: ${path} refers back to itself`);
  seen.add(value);
  if (Array.isArray(value)) value.forEach((v, i) => checkJson(v, `${path}[${i}]`, seen, depth + 1));
  else {
    const proto = Object.getPrototypeOf(value);
    if (proto !== Object.prototype && proto !== null)
      throw new TypeError(`ctx.state is not JSON: ${path} is not a plain object`);
    for (const key of Object.keys(value))
      checkJson((value as Record<string, unknown>)[key], `${path}.${key}`, seen, depth + 1);
  }
  seen.delete(value);
}

function sameTarget(a: Target | undefined, b: Target): boolean {
  if (!a) return false;
  return "weight" in a
    ? "weight" in b && a.weight === b.weight
    : "units" in b && a.units === b.units;
}

function checkTarget(symbol: string, t: unknown): Target {
  if (typeof t !== "object" || t === null)
    throw new TypeError(`target(${symbol}): give { weight } or { units }`);
  const o = t as Record<string, unknown>;
  const hasW = "weight" in o;
  const hasU = "units" in o;
  if (hasW === hasU)
    throw new TypeError(`target(${symbol}): give exactly one of { weight } or { units }`);
  const v = hasW ? o.weight : o.units;
  if (typeof v !== "number" || !Number.isFinite(v))
    throw new TypeError(`target(${symbol}): ${hasW ? "weight" : "units"} must be a finite number`);
  return hasW ? { weight: v } : { units: v };
}

function checkOrder(o: unknown, symbols: ReadonlySet<string>): OrderRequest {
  if (typeof o !== "object" || o === null)
    throw new TypeError("order: give { symbol, side, units, type }");
  const r = o as Record<string, unknown>;
  const symbol = r.symbol;
  if (typeof symbol !== "string" || !symbols.has(symbol))
    throw new RangeError(`order: ${String(symbol)} is not in the universe`);
  if (r.side !== "buy" && r.side !== "sell")
    throw new TypeError(`order: side must be "buy" or "sell"`);
  const units = r.units;
  if (typeof units !== "number" || !Number.isFinite(units) || units <= 0)
    throw new RangeError("order: units must be a finite number above 0");
  const price = (name: string) => {
    const p = r[name];
    if (typeof p !== "number" || !Number.isFinite(p) || p <= 0)
      throw new RangeError(`order: ${name} must be a finite number above 0`);
    return p;
  };
  if (r.type === "market") return { symbol, side: r.side, units, type: "market" };
  if (r.type === "limit")
    return { symbol, side: r.side, units, type: "limit", limitPrice: price("limitPrice") };
  if (r.type === "stop")
    return { symbol, side: r.side, units, type: "stop", stopPrice: price("stopPrice") };
  throw new TypeError(`order: type must be "market", "limit" or "stop"`);
}

function primitiveFields(
  fields: unknown,
  maxChars: number,
): Record<string, string | number | boolean> | undefined {
  if (typeof fields !== "object" || fields === null) return undefined;
  const out: Record<string, string | number | boolean> = {};
  let n = 0;
  for (const key of Object.keys(fields)) {
    if (++n > 32) break;
    const v = (fields as Record<string, unknown>)[key];
    out[key.slice(0, 64)] =
      typeof v === "number" || typeof v === "boolean" ? v : String(v).slice(0, maxChars);
  }
  return out;
}

type Changed = { symbol: string; target: Target };

/**
 * An empty list of changed targets, from one allocation site: the kind of its elements (objects)
 * is learnt there once. A list from a literal that only the first bar used stayed a list of
 * small integers until its first push, and a long-running process's next run threw its compiled
 * strategy loop away at that push.
 */
function noneChanged(): Changed[] {
  return [];
}

/**
 * The context a strategy is given: one class, so that every run's strategy calls the same
 * methods. A context of closures made per run was a new call target at each run, and a
 * long-running process threw away its compiled strategy code at the next run's first bar. The
 * runtime sits in a private field: the strategy reaches it only through these methods, and the
 * instance and its prototype are frozen.
 */
class RunContext implements Context<Record<string, ParamSpec>> {
  readonly #rt: StrategyRuntime;
  constructor(
    rt: StrategyRuntime,
    readonly params: Readonly<Record<string, number | boolean | string>>,
    readonly symbols: readonly string[],
    readonly portfolio: Portfolio,
    readonly log: Logger,
  ) {
    this.#rt = rt;
    Object.freeze(this);
  }
  bars(symbol: string): BarSeries {
    return this.#rt.seriesOf(symbol);
  }
  get time(): number {
    return this.#rt.time;
  }
  get state(): { [key: string]: JsonValue } {
    return this.#rt.state;
  }
  set state(value: { [key: string]: JsonValue }) {
    this.#rt.state = value;
  }
  target(symbol: string, target: Target): void {
    this.#rt.setTarget(symbol, target);
  }
  order(request: OrderRequest): string {
    return this.#rt.placeOrder(request);
  }
  cancel(orderId: string): void {
    this.#rt.cancelOrder(orderId);
  }
  model(name: string): Model {
    const key = String(name);
    const rt = this.#rt;
    return Object.freeze({
      name: key,
      run: (inputs: Record<string, { dims: readonly number[]; data: ArrayLike<number> }>) =>
        rt.runModel(key, inputs),
    });
  }
}
Object.freeze(RunContext.prototype);
Object.freeze(RunContext);

/**
 * One run of one strategy: the context it reads and the decisions it makes. Used in the child's
 * strategy realm (through `realmEntry`) and, for the bench's in-process reference, directly.
 */
export class StrategyRuntime {
  readonly params: Record<string, number | boolean | string>;
  readonly lookback: number;
  private readonly series: Series[];
  /** The universe's first symbol's series: most strategies trade one, and ask for it by name each bar. */
  private readonly first: Series;
  private readonly bySymbol = new Map<string, Series>();
  private readonly universe: ReadonlySet<string>;
  private readonly standing = new Map<string, Target>();
  /** ctx.state (the context reads and sets it here). */
  state: { [key: string]: JsonValue } = {};
  private nextOrder = 1;
  private portfolioView: PortfolioView = { cash: 0, positions: [], openOrders: [] };
  /** ctx.time. */
  time = NaN;
  /** The first symbol's standing weight (NaN when none, or a target in units): target's fast path. */
  private firstWeight = NaN;
  private bar = -1;
  // What the strategy asks for during the current bar: the targets that changed, in the order
  // they last changed (one per symbol), orders and cancels.
  private changed: Changed[] = noneChanged();
  private orders: (OrderRequest & { id: string })[] = [];
  private cancels: string[] = [];
  private logs: LogLine[] = [];
  private logsKept = 0;
  private logsDropped = 0;
  private held: { base: number; rows: number; columns: Float64Array } | undefined;
  private readonly ctx: Context<Record<string, ParamSpec>>;
  /** The decisions of the current call, not yet answered. */
  private decisions: Decision[] = [];
  /**
   * The portfolio the host sent holds for the bars before this one (block index): past it, or
   * once the strategy decided in this call, only the host knows it (see `hostState`).
   */
  private sure = 0;
  /** Model calls of the current bar (a bar known by its index and time: fills share an index). */
  private modelCalls = 0;
  private modelCallsBar = -2;
  private modelCallsTime = NaN;

  /**
   * `exchange` (the child's, absent in-process) answers the host with a partial answer and
   * returns its reply: how a strategy reading the portfolio past `sure` waits for it.
   */
  constructor(
    private readonly definition: AnyDefinition,
    private readonly config: RuntimeConfig,
    readonly random: SeededRandom,
    private readonly exchange?: (answer: string) => string,
    /** The child's model call (absent in-process): the host runs the model and answers. */
    private readonly modelCall?: (request: string) => string,
    /**
     * The child's log line writer (absent in-process): each kept line goes to the host as it is
     * written instead of with the call's answer, so a call killed by its limit keeps its lines.
     */
    private readonly logLine?: (line: string) => void,
  ) {
    if (
      typeof definition !== "object" ||
      definition === null ||
      typeof definition.onBar !== "function"
    )
      throw new TypeError(
        "the bundle's default export is not a strategy: export default defineStrategy({ params, onBar })",
      );
    const declared = definition.params ?? {};
    if (typeof declared !== "object")
      throw new TypeError("the strategy's params must be an object of declarations");
    this.params = Object.freeze(resolveParams(declared, config.params));
    const lookback = config.lookback ?? definition.lookback ?? 1;
    if (!Number.isInteger(lookback) || lookback < 1 || lookback > MAX_LOOKBACK)
      throw new RangeError(
        `lookback must be an integer from 1 to ${MAX_LOOKBACK}, not ${lookback}`,
      );
    this.lookback = lookback;
    if (config.symbols.length === 0) throw new RangeError("a strategy needs at least one symbol");
    this.series = config.symbols.map((s) => new Series(s, lookback));
    this.first = this.series[0]!;
    for (const s of this.series) this.bySymbol.set(s.symbol, s);
    this.universe = new Set(config.symbols);
    this.ctx = this.makeContext();
    if (config.restore) this.restore(config.restore);
  }

  private makeContext(): Context<Record<string, ParamSpec>> {
    // The context's getters and methods are the strategy's to call: they read the runtime, not themselves.
    // eslint-disable-next-line @typescript-eslint/no-this-alias
    const self = this;
    const symbols = Object.freeze([...this.config.symbols]);
    const log =
      (level: "info" | "warn") =>
      (message: string, fields?: Record<string, string | number | boolean>) =>
        self.log(level, message, fields);
    const logger: Logger = Object.freeze({ info: log("info"), warn: log("warn") });
    const portfolio: Portfolio = Object.freeze({
      get cash() {
        return self.hostState().cash;
      },
      get equity() {
        const view = self.hostState();
        let e = view.cash;
        for (const p of view.positions) {
          const c = self.bySymbol.get(p.symbol)?.lastClose() ?? NaN;
          e += p.units * (Number.isNaN(c) ? p.averagePrice : c);
        }
        return e;
      },
      position(symbol: string): Position {
        const p = self.hostState().positions.find((x) => x.symbol === symbol);
        return Object.freeze(p ? { ...p } : { symbol, units: 0, averagePrice: 0 });
      },
      get positions() {
        return Object.freeze(self.hostState().positions.map((p) => Object.freeze({ ...p })));
      },
      get openOrders() {
        return Object.freeze(self.hostState().openOrders.map((o) => Object.freeze({ ...o })));
      },
    });
    return new RunContext(this, this.params, symbols, portfolio, logger);
  }

  /** ctx.bars: the series of a symbol of the universe. */
  seriesOf(symbol: string): BarSeries {
    const s = symbol === this.first.symbol ? this.first : this.bySymbol.get(symbol);
    if (!s)
      throw new RangeError(
        `bars(${String(symbol)}): not in the universe (${this.config.symbols.join(", ")})`,
      );
    return s;
  }

  /** ctx.target. */
  setTarget(symbol: string, target: Target): void {
    // Most bars repeat the first symbol's standing weight: that answer needs no lookup and no object.
    if (
      symbol === this.first.symbol &&
      typeof target === "object" &&
      target !== null &&
      (target as { weight?: unknown }).weight === this.firstWeight &&
      !("units" in target)
    )
      return;
    if (symbol !== this.first.symbol && !this.universe.has(symbol))
      throw new RangeError(`target(${String(symbol)}): not in the universe`);
    const standing = this.standing.get(symbol);
    if (
      standing !== undefined &&
      "weight" in standing &&
      typeof target === "object" &&
      target !== null &&
      (target as { weight?: unknown }).weight === standing.weight &&
      !("units" in target)
    )
      return;
    const checked = checkTarget(symbol, target);
    if (sameTarget(standing, checked)) return;
    this.stand(symbol, checked);
    const changed = this.changed;
    const i = changed.findIndex((c) => c.symbol === symbol);
    if (i >= 0) changed.splice(i, 1);
    changed.push({ symbol, target: checked });
  }

  private stand(symbol: string, target: Target): void {
    this.standing.set(symbol, target);
    if (symbol === this.first.symbol) this.firstWeight = "weight" in target ? target.weight : NaN;
  }

  /** ctx.order. */
  placeOrder(request: OrderRequest): string {
    const order = checkOrder(request, this.universe);
    const id = `o${this.nextOrder++}`;
    this.orders.push({ ...order, id });
    return id;
  }

  /** ctx.cancel. */
  cancelOrder(orderId: string): void {
    if (typeof orderId !== "string" || orderId.length === 0 || orderId.length > 128)
      throw new TypeError("cancel: give the id order() returned");
    this.cancels.push(orderId);
  }

  /**
   * One inference, asked of the host mid-call: the model runs outside the sandbox, and its
   * outputs come back before the strategy's call goes on. The host records them with the bar.
   */
  runModel(
    name: string,
    inputs: Record<string, { dims: readonly number[]; data: ArrayLike<number> }>,
  ): Record<string, ModelOutput> {
    const models = this.config.models ?? [];
    if (!models.includes(name))
      throw new RangeError(
        `ctx.model(${JSON.stringify(name)}): the bot version has ${models.length ? `models ${models.join(", ")}` : "no models"} (spec.models, each with the digest POST /models answered)`,
      );
    if (!this.modelCall)
      throw new RuntimeFault("strategy_error", "no host is there to run the model");
    if (this.modelCallsBar !== this.bar || !Object.is(this.modelCallsTime, this.time)) {
      this.modelCallsBar = this.bar;
      this.modelCallsTime = this.time;
      this.modelCalls = 0;
    }
    if (++this.modelCalls > MAX_MODEL_CALLS_PER_BAR)
      throw new RuntimeFault(
        "strategy_error",
        `ctx.model("${name}").run: more than ${MAX_MODEL_CALLS_PER_BAR} model calls in one bar; send the rows of one bar as a batch`,
      );
    if (typeof inputs !== "object" || inputs === null)
      throw new TypeError(
        `ctx.model("${name}").run: give the inputs by name: { obs: { dims, data } }`,
      );
    const wire: Record<string, { dims: number[]; data: number[] }> = {};
    let total = 0;
    for (const key of Object.keys(inputs).slice(0, 65)) {
      const t = inputs[key] as { dims?: unknown; data?: ArrayLike<number> } | undefined;
      const dims = Array.isArray(t?.dims) ? (t.dims as unknown[]).map(Number) : undefined;
      const length = t?.data && typeof t.data.length === "number" ? t.data.length : -1;
      const count = dims?.reduce((a, d) => a * d, 1) ?? -1;
      if (
        !dims ||
        dims.length > 8 ||
        dims.some((d) => !Number.isInteger(d) || d < 0) ||
        count !== length
      )
        throw new TypeError(
          `ctx.model("${name}").run: input "${key}" needs dims (whole numbers) and data of their product's length`,
        );
      total += length;
      if (total > MAX_MODEL_VALUES)
        throw new RangeError(
          `ctx.model("${name}").run: at most ${MAX_MODEL_VALUES} input values per call`,
        );
      const data = new Array<number>(length);
      for (let i = 0; i < length; i++) data[i] = Number(t!.data![i]);
      wire[key] = { dims, data };
    }
    const time = Number.isNaN(this.time) ? null : this.time;
    const reply = JSON.parse(
      this.modelCall(JSON.stringify({ bar: this.bar, time, model: name, inputs: wire })),
    ) as { ok?: { outputs: Record<string, { dims: number[]; data: number[] }> }; fail?: string };
    if (!reply.ok) throw new Error(`ctx.model("${name}").run: ${String(reply.fail)}`);
    const out: Record<string, ModelOutput> = {};
    for (const [key, t] of Object.entries(reply.ok.outputs))
      out[key] = Object.freeze({
        dims: Object.freeze([...t.dims]),
        data: Float64Array.from(t.data),
      });
    return Object.freeze(out);
  }

  private log(level: "info" | "warn", message: unknown, fields: unknown): void {
    if (this.logsKept >= this.config.logLines) {
      this.logsDropped++;
      return;
    }
    this.logsKept++;
    const max = this.config.logLineChars;
    const line: LogLine = {
      bar: this.bar,
      time: Number.isNaN(this.time) ? null : this.time,
      level,
      message: String(message).slice(0, max),
    };
    const f = primitiveFields(fields, max);
    if (f) line.fields = f;
    if (this.logLine) this.logLine(JSON.stringify(line));
    else this.logs.push(line);
  }

  /** The lines of a call that failed (they go with its failure), and the run's dropped count. */
  failedCallLogs(): { logs: LogLine[]; logsDropped: number } {
    return { logs: this.takeLogs(), logsDropped: this.logsDropped };
  }

  private takeLogs(): LogLine[] {
    const logs = this.logs;
    this.logs = [];
    return logs;
  }

  private call(fn: ((...a: never[]) => unknown) | undefined, arg?: unknown): void {
    if (typeof fn !== "function") return;
    // One argument past the context at most (onFill's fill): no rest array per bar.
    const result =
      arg === undefined
        ? (fn as (c: unknown) => unknown).call(this.definition, this.ctx)
        : (fn as (c: unknown, a: unknown) => unknown).call(this.definition, this.ctx, arg);
    if (
      result !== undefined &&
      result !== null &&
      typeof (result as { then?: unknown }).then === "function"
    )
      throw new TypeError(
        "a strategy callback returned a promise: callbacks are synchronous, and nothing asynchronous ever runs",
      );
  }

  /** Collects what the current bar asked for; true when something changed (a decision). */
  private collect(bar: number): boolean {
    const changed = this.changed;
    if (changed.length === 0 && this.orders.length === 0 && this.cancels.length === 0) return false;
    this.decisions.push({
      bar,
      time: this.time,
      targets: changed,
      orders: this.orders,
      cancels: this.cancels,
    });
    this.changed = noneChanged();
    this.orders = [];
    this.cancels = [];
    return true;
  }

  /**
   * The portfolio, as the host's order path holds it at the current bar. Within `sure` it is the
   * one the host sent. Past it (the strategy ran ahead of the kernel: after a decision of this
   * call, or past the bars the kernel could vouch for), the runtime answers the host with the
   * decisions so far and waits, in the middle of the strategy's call, for the portfolio as of
   * this bar's open: the host replies once its kernel has acted on those decisions and reached
   * this bar. The strategy reads what a bar-by-bar run would have shown it, to the bit.
   */
  private hostState(): PortfolioView {
    if (this.bar < this.sure) return this.portfolioView;
    if (!this.exchange)
      throw new RuntimeFault(
        "strategy_error",
        "the strategy read the portfolio ahead of the host, and no host is there to ask",
      );
    const partial: DecideAnswer = {
      stoppedAfter: this.bar - 1,
      waitingAt: this.bar,
      decisions: this.decisions,
      logs: this.takeLogs(),
      logsDropped: this.logsDropped,
    };
    this.decisions = [];
    const reply = JSON.parse(this.exchange(JSON.stringify({ ok: partial }))) as ResumeMeta;
    const held = this.held!;
    if (
      !Number.isInteger(reply.sure) ||
      reply.sure <= this.bar ||
      reply.sure > held.base + held.rows
    )
      throw new RuntimeFault("strategy_error", "the host resumed the sandbox with bad bounds");
    this.portfolioView = reply.portfolio;
    this.sure = reply.sure;
    return this.portfolioView;
  }

  init(): InitAnswer {
    this.bar = -1;
    this.call(this.definition.init);
    // init sets targets or orders only as a first answer; they go with the first bar's decision.
    return {
      params: { ...this.params },
      declared: JSON.parse(JSON.stringify(this.definition.params ?? {})) as Record<
        string,
        ParamSpec
      >,
      lookback: this.lookback,
      logs: this.takeLogs(),
      logsDropped: this.logsDropped,
    };
  }

  /**
   * Takes a block's rows (the host's columns, see protocol.ts) and runs bars meta.from..meta.to-1:
   * up to the first decision, or, given `meta.sure`, on past decisions (see `hostState`) while
   * no fill can reach the strategy unasked: a strategy with `onFill` stops before a bar whose
   * open may fill (at or past `sure`).
   */
  decide(meta: BlockMeta, columns: Float64Array | undefined): DecideAnswer {
    if (columns) {
      if (columns.length !== columnsLength(meta.rows, this.series.length))
        throw new RuntimeFault("strategy_error", "the host sent a block of the wrong size");
      this.held = { base: meta.base, rows: meta.rows, columns };
    }
    const held = this.held;
    if (!held || meta.from < held.base || meta.to > held.base + held.rows || meta.from > meta.to)
      throw new RuntimeFault("strategy_error", "the host asked for bars the sandbox does not hold");
    const ahead = meta.sure !== undefined;
    if (ahead && (!Number.isInteger(meta.sure) || meta.sure! <= meta.from || meta.sure! > meta.to))
      throw new RuntimeFault("strategy_error", "the host asked with bad bounds");
    this.portfolioView = meta.portfolio;
    this.sure = ahead ? meta.sure! : meta.to;
    this.decisions = [];
    const { rows, columns: c } = held;
    const nSym = this.series.length;
    const listens = typeof this.definition.onFill === "function";
    this.bar = meta.from - 1;
    for (const fill of meta.fills) {
      this.time = fill.time;
      this.call(this.definition.onFill, Object.freeze({ ...fill }) as Fill);
    }
    let stoppedAfter = meta.from - 1;
    for (let i = meta.from; i < meta.to; i++) {
      if (i >= this.sure && listens) break;
      const r = i - held.base;
      const t = c[r]!;
      for (let s = 0; s < nSym; s++) {
        const close = c[rows * (1 + 3 * nSym + s) + r]!;
        if (Number.isNaN(close)) continue;
        this.series[s]!.push(
          t,
          c[rows * (1 + s) + r]!,
          c[rows * (1 + nSym + s) + r]!,
          c[rows * (1 + 2 * nSym + s) + r]!,
          close,
          c[rows * (1 + 4 * nSym + s) + r]!,
        );
      }
      this.time = t;
      this.bar = i;
      this.call(this.definition.onBar);
      stoppedAfter = i;
      if (this.collect(i)) {
        if (!ahead) break;
        // The kernel acts at this close: from the next bar on, the portfolio is the host's to tell.
        if (this.sure > i + 1) this.sure = i + 1;
      }
    }
    const decisions = this.decisions;
    this.decisions = [];
    return { stoppedAfter, decisions, logs: this.takeLogs(), logsDropped: this.logsDropped };
  }

  /**
   * Trusted code in this process (the built-in families, through InProcessStrategy): one bar of
   * the universe's one symbol goes in, onBar runs, and the answer is the weight it targets now
   * (NaN before its first target). What a bar-at-a-time caller cannot carry fails the run:
   * explicit orders, cancels and targets in units (the portfolio is not there to read either).
   */
  stepOne(b: BarColumns, t: number): number {
    this.first.pushAt(b, t);
    this.time = b.time[t]!;
    this.bar++;
    this.call(this.definition.onBar);
    if (this.changed.length !== 0 || this.orders.length !== 0 || this.cancels.length !== 0)
      this.takeWeight();
    return this.weighted ? this.weight : NaN;
  }

  // The weight as a small integer while the strategy's weights are whole (the built-ins' -1, 0
  // and 1), and whether it has one: a field that starts as NaN holds a boxed double, and each
  // bar's answer was then a new heap number (garbage a bar, and collections the engine's own
  // allocation sites were judged by).
  private weight = 0;
  private weighted = false;

  private takeWeight(): void {
    if (this.orders.length !== 0 || this.cancels.length !== 0 || this.series.length !== 1)
      throw new RuntimeFault(
        "strategy_error",
        "an in-process strategy answers one symbol's weight only (no orders or cancels)",
      );
    const target = this.changed[this.changed.length - 1]!.target;
    if (!("weight" in target))
      throw new RuntimeFault("strategy_error", "an in-process strategy targets weights, not units");
    this.weight = target.weight;
    this.weighted = true;
    this.changed = noneChanged();
  }

  stop(): StopAnswer {
    this.bar = -1;
    this.sure = 0;
    this.decisions = [];
    this.call(this.definition.onStop);
    this.collect(-1);
    const decisions = this.decisions;
    this.decisions = [];
    return { decisions, logs: this.takeLogs(), logsDropped: this.logsDropped };
  }

  snapshot(): SandboxSnapshot {
    checkJson(this.state, "state", new Set(), 0);
    return {
      v: 1,
      state: JSON.parse(JSON.stringify(this.state)) as JsonValue,
      standing: [...this.standing].map(([symbol, target]) => ({ symbol, ...target })),
      nextOrder: this.nextOrder,
      random: [...this.random.s],
      logsKept: this.logsKept,
      logsDropped: this.logsDropped,
      bars: Object.fromEntries(this.series.map((s) => [s.symbol, s.toJson()])),
    };
  }

  private restore(snap: SandboxSnapshot): void {
    if (snap.v !== 1)
      throw new RuntimeFault("strategy_error", "the snapshot is not one this runtime wrote");
    this.state = (snap.state ?? {}) as { [key: string]: JsonValue };
    for (const t of (snap.standing ?? []) as { symbol: string; weight?: number; units?: number }[])
      this.stand(t.symbol, t.weight !== undefined ? { weight: t.weight } : { units: t.units! });
    this.nextOrder = snap.nextOrder as number;
    this.random.s.set(snap.random as number[]);
    this.logsKept = snap.logsKept as number;
    this.logsDropped = snap.logsDropped as number;
    const bars = (snap.bars ?? {}) as Record<string, number[][]>;
    for (const s of this.series)
      for (const row of bars[s.symbol] ?? [])
        s.push(row[0]!, row[1]!, row[2]!, row[3]!, row[4]!, row[5]!);
  }
}

/** The strategy's stack without the runtime's or the host's frames, and no host paths. */
export function strategyStack(error: unknown): string | undefined {
  if (!(error instanceof Error)) return undefined;
  const stack = typeof error.stack === "string" ? error.stack : "";
  const lines = stack.split("\n");
  const head = `${error.name}: ${error.message}`;
  const frames = lines
    .filter((l) => /^\s+at /.test(l) && l.includes(STRATEGY_FILE))
    .map((l) => l.replace(/\(?\/[^\s()]*\//g, (m) => (m.startsWith("(") ? "(" : "")));
  return [head, ...frames].join("\n").slice(0, 8_000);
}

export function describeFailure(error: unknown): RuntimeAnswer<never> {
  if (error instanceof RuntimeFault) return { fail: { code: error.code, message: error.message } };
  let message: string;
  try {
    message =
      error instanceof Error
        ? `${error.name}: ${error.message}`
        : `the strategy threw ${String(error)}`;
  } catch {
    message = "the strategy threw a value that cannot be shown";
  }
  if (/Array buffer allocation failed/.test(message))
    return {
      fail: {
        code: "strategy_memory",
        message: `the strategy ran out of memory (${message.slice(0, 200)})`,
      },
    };
  return {
    fail: { code: "strategy_error", message: message.slice(0, 2_000), stack: strategyStack(error) },
  };
}
