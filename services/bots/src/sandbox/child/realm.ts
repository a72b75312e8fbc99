/**
 * The strategy realm's entry: compiled in the child's fresh `vm` context before the strategy,
 * it takes away what a strategy must not have (clock, unseeded randomness, shared memory,
 * blocking waits, WebAssembly, GC observers, the console), freezes every intrinsic so the
 * strategy cannot change what the runtime relies on, then loads the strategy and answers the
 * bootstrap's requests with JSON strings only: nothing of this realm reaches the bootstrap's.
 */
import type { StrategyDefinition, ParamSpec } from "@svc/strategy-sdk";
import type { BlockMeta, RuntimeConfig } from "../types.js";
import { describeFailure, SeededRandom, StrategyRuntime } from "./runtime.js";

let runtime: StrategyRuntime | undefined;
let random: SeededRandom | undefined;
/**
 * The bootstrap's synchronous answer-and-wait (strings in, strings out), held here where no
 * strategy code can reach it: it is a function of node's realm.
 */
let exchange: ((answer: string) => string) | undefined;
/** The bootstrap's synchronous model call (strings in, strings out), held as `exchange` is. */
let modelCall: ((request: string) => string) | undefined;
/** The bootstrap's log line writer (a string in, nothing out), held as `exchange` is. */
let logLine: ((line: string) => void) | undefined;

function answer(run: () => unknown): string {
  try {
    return JSON.stringify({ ok: run() });
  } catch (error) {
    const failed = describeFailure(error);
    // What the strategy logged before it threw is the first thing its author reads.
    if ("fail" in failed && runtime) Object.assign(failed.fail, runtime.failedCallLogs());
    return JSON.stringify(failed);
  }
}

function harden(seed: number): void {
  const g = globalThis as Record<string, unknown>;
  for (const name of [
    "console",
    "SharedArrayBuffer",
    "Atomics",
    "WebAssembly",
    "WeakRef",
    "FinalizationRegistry",
  ])
    delete g[name];
  random = SeededRandom.fromSeed(seed);
  const r = random;
  Object.defineProperty(Math, "random", { value: () => r.next(), writable: false });
  const RealDate = Date;
  const clockless = () => {
    throw new TypeError("the sandbox has no clock: use ctx.time (the bar's time)");
  };
  function SandboxDate(this: unknown, ...args: unknown[]): Date {
    if (!new.target) clockless();
    if (args.length === 0) clockless();
    return Reflect.construct(RealDate, args, new.target) as Date;
  }
  Object.defineProperties(SandboxDate, {
    prototype: { value: RealDate.prototype, writable: false },
    UTC: { value: RealDate.UTC },
    parse: { value: RealDate.parse },
    now: { value: clockless },
  });
  Object.defineProperty(RealDate.prototype, "constructor", { value: SandboxDate });
  g.Date = SandboxDate;
  freezeAll(globalThis);
  // The global object itself cannot be frozen (it is the vm's contextified global): its own
  // properties are made read-only one by one, so no strategy replaces what the runtime calls.
  for (const key of Reflect.ownKeys(globalThis))
    Object.defineProperty(globalThis, key, {
      value: g[key as string],
      writable: false,
      configurable: false,
    });
}

/** Freezes every object reachable from the global: values, accessors and prototypes. */
function freezeAll(root: object): void {
  const seen = new Set<unknown>();
  const stack: unknown[] = [root];
  while (stack.length) {
    const o = stack.pop();
    if ((typeof o !== "object" && typeof o !== "function") || o === null || seen.has(o)) continue;
    seen.add(o);
    for (const key of Reflect.ownKeys(o)) {
      const d = Reflect.getOwnPropertyDescriptor(o, key);
      if (!d) continue;
      if ("value" in d) stack.push(d.value);
      else stack.push(d.get, d.set);
    }
    stack.push(Reflect.getPrototypeOf(o));
    if (o !== globalThis) freeze(o);
  }
}

/**
 * Object.freeze, key by key: every own property made read-only and fixed, then no new ones.
 * The result is the same (Object.isFrozen holds), but V8's Object.freeze of Object.prototype and
 * the typed arrays' prototypes switched off its fast path for typed arrays in this realm: the
 * runtime's and the strategy's typed-array work ran at half speed. Done this way, it does not.
 */
function freeze(o: object): void {
  for (const key of Reflect.ownKeys(o)) {
    const d = Reflect.getOwnPropertyDescriptor(o, key)!;
    Reflect.defineProperty(
      o,
      key,
      "value" in d ? { writable: false, configurable: false } : { configurable: false },
    );
  }
  Object.preventExtensions(o);
  if (!Object.isFrozen(o)) throw new TypeError("the strategy realm could not freeze an intrinsic");
}

type Factory = (
  module: { exports: Record<string, unknown> },
  exports: unknown,
  ...globals: unknown[]
) => void;

export const realm = {
  /** Takes away and freezes; the bootstrap calls it once, before compiling the strategy. */
  setup(
    configJson: string,
    hostExchange?: (answer: string) => string,
    hostModelCall?: (request: string) => string,
    hostLogLine?: (line: string) => void,
  ): void {
    if (hostExchange) {
      const outer = hostExchange;
      exchange = (answer: string) => String(outer(String(answer)));
    }
    if (hostModelCall) {
      const outer = hostModelCall;
      modelCall = (request: string) => String(outer(String(request)));
    }
    if (hostLogLine) {
      const outer = hostLogLine;
      logLine = (line: string) => void outer(String(line));
    }
    harden((JSON.parse(configJson) as RuntimeConfig).seed);
  },
  /** Runs the strategy bundle's module code, then resolves params and runs init (or restores). */
  load(factory: Factory, configJson: string, globalNamesJson: string): string {
    return answer(() => {
      const config = JSON.parse(configJson) as RuntimeConfig;
      const module = { exports: {} as Record<string, unknown> };
      const g = globalThis as Record<string, unknown>;
      const globals = (JSON.parse(globalNamesJson) as string[]).map((name) => g[name]);
      factory(module, module.exports, ...globals);
      const exported = module.exports;
      const definition = (exported.default ?? exported) as StrategyDefinition<
        Record<string, ParamSpec>
      >;
      runtime = new StrategyRuntime(
        definition,
        config,
        random ?? SeededRandom.fromSeed(config.seed),
        exchange,
        modelCall,
        logLine,
      );
      return runtime.init();
    });
  },
  decide(metaJson: string, columns: Float64Array | undefined): string {
    return answer(() => runtime!.decide(JSON.parse(metaJson) as BlockMeta, columns));
  },
  snapshot(): string {
    return answer(() => runtime!.snapshot());
  },
  stop(): string {
    return answer(() => runtime!.stop());
  },
};
