import { seededRandom } from "@svc/lib/quant";

/** A value a strategy parameter takes: a built-in family's or a code strategy's (enum: a string). */
export type SweepValue = number | boolean | string;

/**
 * One declared parameter, as a built-in family (engine/strategies) or the SDK's `param` helpers
 * declare it; a family's parameters have a minimum and no maximum.
 */
export interface DeclaredParam {
  type: "int" | "number" | "boolean" | "enum";
  min?: number;
  max?: number;
  values?: readonly string[];
}

/** One varied parameter as the request gave it: a list of values or a range. */
export interface SweepParameterInput {
  name: string;
  values: unknown[];
  min?: number;
  max?: number;
  step?: number;
}

export interface SweepPlanInput {
  mode: "grid" | "random";
  parameters: SweepParameterInput[];
  /** Random search: combinations to draw. */
  samples: number;
  seed: number;
  declared: Record<string, DeclaredParam>;
  /** The version's own parameters, defaults filled in: what a combination does not vary. */
  base: Record<string, SweepValue>;
  /** Most combinations (SVC_SWEEP_MAX_COMBINATIONS, divided among walk-forward folds). */
  maxCombinations: number;
  /** What the bound is called in the message, with where it comes from. */
  bound: string;
  /** A rule between parameters (slow > fast): a message when a combination breaks it. */
  check?: (params: Record<string, SweepValue>) => string | null;
}

export interface SweepPlan {
  /** Each combination's whole parameters (base with its values over it), in sweep order. */
  combinations: Array<Record<string, SweepValue>>;
  /** Combinations left out because they break a rule between parameters. */
  skipped: number;
}

/** What a person got wrong in a sweep request: a 400 naming the field. */
export class SweepInputError extends Error {
  constructor(
    readonly code: "invalid_parameter" | "sweep_too_large",
    message: string,
    readonly field: string,
    readonly details: Record<string, string | number> = {},
  ) {
    super(message);
    this.name = "SweepInputError";
  }
}

/** Float steps drift (0.1 * 3 != 0.3): a range's last value is kept within this of max. */
const STEP_SLACK = 1e-9;
/** Draws tried per sample before a random search settles for what it found distinct. */
const DRAWS_PER_SAMPLE = 20;

/**
 * Checks a sweep request against the strategy's declarations and lays out its combinations:
 * every value within its declaration (a 400 naming parameter and value otherwise), the size
 * counted before anything is expanded (a 400 naming the size and the bound), combinations that
 * break a rule between parameters skipped and counted.
 */
export function planSweep(input: SweepPlanInput): SweepPlan {
  if (input.parameters.length === 0)
    throw new SweepInputError(
      "invalid_parameter",
      `a sweep varies at least one parameter; this strategy declares ${Object.keys(input.declared).join(", ") || "none"}`,
      "parameters",
    );
  const seen = new Set<string>();
  const axes = input.parameters.map((p, i) => {
    const field = `parameters[${i}]`;
    const decl = Object.hasOwn(input.declared, p.name) ? input.declared[p.name] : undefined;
    if (!decl)
      throw new SweepInputError(
        "invalid_parameter",
        `${JSON.stringify(p.name)} is not a parameter of this strategy; it declares ${Object.keys(input.declared).join(", ") || "none"}`,
        `${field}.name`,
      );
    if (seen.has(p.name))
      throw new SweepInputError(
        "invalid_parameter",
        `${p.name} is named twice; give all its values in one entry`,
        `${field}.name`,
      );
    seen.add(p.name);
    return axisOf(p, decl, field, input);
  });

  if (input.mode === "grid") {
    const size = axes.reduce((n, a) => n * a.count, 1);
    if (size > input.maxCombinations) throw tooLarge(size, input, "the grid has");
    return keepValid(product(axes), input);
  }
  if (!(input.samples >= 1))
    throw new SweepInputError(
      "invalid_parameter",
      "a random search needs samples: how many combinations to draw (1 or more)",
      "samples",
    );
  if (input.samples > input.maxCombinations)
    throw tooLarge(input.samples, input, "samples asks for");
  return draw(axes, input);
}

interface Axis {
  name: string;
  /** Values of a grid, or null for a continuous range a random search draws from. */
  count: number;
  at(i: number): SweepValue;
  /** A random value of the axis, from `u` in [0, 1). */
  pick(u: number): SweepValue;
}

function axisOf(
  p: SweepParameterInput,
  decl: DeclaredParam,
  field: string,
  input: SweepPlanInput,
): Axis {
  const hasRange = p.min !== undefined || p.max !== undefined || p.step !== undefined;
  if (p.values.length > 0 && hasRange)
    throw new SweepInputError(
      "invalid_parameter",
      `${p.name}: give values or a range (min, max, step), not both`,
      field,
    );
  if (p.values.length > 0) {
    const values = p.values.map((v, j) => checkValue(p.name, decl, v, `${field}.values[${j}]`));
    const distinct = [...new Map(values.map((v) => [JSON.stringify(v), v])).values()];
    return {
      name: p.name,
      count: distinct.length,
      at: (i) => distinct[i]!,
      pick: (u) => distinct[Math.floor(u * distinct.length)]!,
    };
  }
  if (!hasRange)
    throw new SweepInputError(
      "invalid_parameter",
      `${p.name}: give the values to try, or a range (min, max and, for a grid, step)`,
      field,
    );
  if (decl.type !== "int" && decl.type !== "number")
    throw new SweepInputError(
      "invalid_parameter",
      `${p.name} is ${decl.type === "boolean" ? "true or false" : `one of ${decl.values?.join(", ")}`}: give its values, a range is for numbers`,
      field,
    );
  if (p.min === undefined || p.max === undefined)
    throw new SweepInputError("invalid_parameter", `${p.name}: a range needs min and max`, field);
  const min = checkValue(p.name, decl, p.min, `${field}.min`) as number;
  const max = checkValue(p.name, decl, p.max, `${field}.max`) as number;
  if (max < min)
    throw new SweepInputError(
      "invalid_parameter",
      `${p.name}: max (${max}) is below min (${min})`,
      `${field}.max`,
    );
  const whole = decl.type === "int";
  const step = p.step ?? (whole ? 1 : undefined);
  const pick = (u: number) =>
    whole ? min + Math.floor(u * (max - min + 1)) : min + u * (max - min);
  if (step === undefined) {
    if (input.mode === "grid")
      throw new SweepInputError(
        "invalid_parameter",
        `${p.name}: a grid over a range of numbers needs its step`,
        `${field}.step`,
      );
    // A random search draws anywhere in the range: it has no count of its own.
    return { name: p.name, count: 0, at: () => min, pick };
  }
  if (!(Number.isFinite(step) && step > 0) || (whole && !Number.isInteger(step)))
    throw new SweepInputError(
      "invalid_parameter",
      `${p.name}: step must be ${whole ? "a whole number" : "a number"} above 0`,
      `${field}.step`,
    );
  const count = Math.floor((max - min) / step + STEP_SLACK) + 1;
  return {
    name: p.name,
    count,
    at: (i) => {
      const v = min + i * step;
      // The decimal a person wrote (0.1 + 0.2 steps), not its binary neighbour.
      return whole ? v : Number(v.toPrecision(12));
    },
    pick,
  };
}

/** A value within its declaration, or a 400 naming parameter, value and what it must be. */
function checkValue(name: string, decl: DeclaredParam, v: unknown, field: string): SweepValue {
  const bad = (must: string) =>
    new SweepInputError(
      "invalid_parameter",
      `${name}: ${JSON.stringify(v) ?? String(v)} ${must}`,
      field,
    );
  switch (decl.type) {
    case "boolean":
      if (typeof v !== "boolean") throw bad("is not true or false");
      return v;
    case "enum":
      if (typeof v !== "string" || !decl.values?.includes(v))
        throw bad(`is not one of its values (${decl.values?.join(", ")})`);
      return v;
    default: {
      if (typeof v !== "number" || !Number.isFinite(v)) throw bad("is not a finite number");
      if (decl.type === "int" && !Number.isSafeInteger(v)) throw bad("is not a whole number");
      if (decl.min !== undefined && v < decl.min)
        throw bad(`is below its declared minimum ${decl.min}`);
      if (decl.max !== undefined && v > decl.max)
        throw bad(`is above its declared maximum ${decl.max}`);
      return v;
    }
  }
}

function tooLarge(size: number, input: SweepPlanInput, what: string): SweepInputError {
  const n = Number.isFinite(size) ? size.toLocaleString("en-US") : "unbounded";
  return new SweepInputError(
    "sweep_too_large",
    `${what} ${n} combinations; a sweep runs at most ${input.maxCombinations.toLocaleString("en-US")} (${input.bound}): narrow a range, take a larger step, or use a random search`,
    "parameters",
    { combinations: Number.isFinite(size) ? size : -1, limit: input.maxCombinations },
  );
}

/** Every combination, the last parameter varying fastest. */
function product(axes: Axis[]): Array<Record<string, SweepValue>> {
  const out: Array<Record<string, SweepValue>> = [];
  const idx = axes.map(() => 0);
  for (;;) {
    out.push(Object.fromEntries(axes.map((a, k) => [a.name, a.at(idx[k]!)])));
    let k = axes.length - 1;
    while (k >= 0 && ++idx[k]! >= axes[k]!.count) idx[k--] = 0;
    if (k < 0) return out;
  }
}

function keepValid(varied: Array<Record<string, SweepValue>>, input: SweepPlanInput): SweepPlan {
  const combinations: Array<Record<string, SweepValue>> = [];
  let skipped = 0;
  for (const v of varied) {
    const params = { ...input.base, ...v };
    if (input.check?.(params)) skipped++;
    else combinations.push(params);
  }
  if (combinations.length === 0) {
    const why = input.check?.({ ...input.base, ...varied[0] });
    throw new SweepInputError(
      "invalid_parameter",
      `every combination breaks a rule between the parameters (${why}); widen the ranges`,
      "parameters",
    );
  }
  return { combinations, skipped };
}

/**
 * `samples` distinct combinations drawn with the seed; a draw that repeats one or breaks a rule
 * between parameters is drawn again (a skipped one counted), and a space smaller than `samples`
 * gives what it holds.
 */
function draw(axes: Axis[], input: SweepPlanInput): SweepPlan {
  const random = seededRandom(input.seed);
  const seen = new Set<string>();
  const combinations: Array<Record<string, SweepValue>> = [];
  let skipped = 0;
  for (let tries = 0; combinations.length < input.samples; tries++) {
    if (tries >= input.samples * DRAWS_PER_SAMPLE) break;
    const varied = Object.fromEntries(axes.map((a) => [a.name, a.pick(random.next())]));
    const key = JSON.stringify(axes.map((a) => varied[a.name]));
    if (seen.has(key)) continue;
    seen.add(key);
    const params = { ...input.base, ...varied };
    if (input.check?.(params)) skipped++;
    else combinations.push(params);
  }
  if (combinations.length === 0)
    throw new SweepInputError(
      "invalid_parameter",
      "no combination drawn keeps the rules between the parameters; widen the ranges",
      "parameters",
    );
  return { combinations, skipped };
}

/** A walk-forward fold's windows, as epoch milliseconds. */
export interface FoldWindow {
  isStart: number;
  isEnd: number;
  oosEnd: number;
}

/**
 * The range cut into inSample + folds equal segments: fold i (from 0) is in-sample over segments
 * i .. i + inSample - 1 and out-of-sample over the next one; the last fold ends at `end`.
 */
export function foldWindows(
  start: number,
  end: number,
  folds: number,
  inSample: number,
): FoldWindow[] {
  const segment = Math.floor((end - start) / (inSample + folds));
  return Array.from({ length: folds }, (_, i) => ({
    isStart: start + i * segment,
    isEnd: start + (i + inSample) * segment,
    oosEnd: i === folds - 1 ? end : start + (i + inSample + 1) * segment,
  }));
}
