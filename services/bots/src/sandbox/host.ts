import type { ChildProcess } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import type { Bars } from "../engine/bars.js";
import { childSources } from "./build.js";
import { checkLimits, DEFAULT_SANDBOX_LIMITS, type SandboxLimits } from "./limits.js";
import { spawnIsolated } from "./isolation.js";
import { mapStrategyStack } from "./stack-map.js";
import { blockFrame, frame, FRAME_HEADER_BYTES, jsonFrame, Kind } from "./protocol.js";
import type {
  BlockMeta,
  DecideAnswer,
  FillView,
  InitAnswer,
  InitRequest,
  LogLine,
  ModelCall,
  ModelServer,
  PortfolioView,
  ResumeMeta,
  RuntimeAnswer,
  SandboxSnapshot,
  StopAnswer,
  StrategyFailureCode,
} from "./types.js";

/** A run failed because of its strategy: the run ends `failed` with `code`. */
export class StrategyFailure extends Error {
  /**
   * The strategy's log lines written before the failure, set by the run that failed (a backtest
   * keeps them with the run: GET .../deployments/{id}/logs).
   */
  strategyLogs?: { lines: readonly LogLine[]; dropped: number };
  /** The lines the failing call wrote before it failed (the host keeps them with the run's). */
  callLogs?: { lines: readonly LogLine[]; dropped: number };

  constructor(
    readonly code: StrategyFailureCode,
    message: string,
    /** The strategy's own stack (frames of its bundle only, no host path), for strategy_error. */
    readonly strategyStack?: string,
  ) {
    super(message);
    this.name = "StrategyFailure";
  }
}

/** The sandbox itself could not run (bubblewrap or node refused to start): not the strategy's doing. */
export class SandboxUnavailable extends Error {
  constructor(message: string) {
    super(message);
    this.name = "SandboxUnavailable";
  }
}

/** Lines a sandbox that never started leaves on stderr (bwrap's own, node refusing a flag, ld.so). */
const DID_NOT_START =
  /^bwrap: |bad option|error while loading shared libraries|execvp|Failed to reserve virtual memory for CodeRange/m;

/** One block of bars: each symbol's columns in the universe's order, all of one length and times. */
export type SandboxBlock = readonly Bars[];

export interface SandboxOptions {
  /** The strategy bundle: one CommonJS script whose default export is the definition. */
  bundle: string;
  /** Parameter values; the strategy's declared defaults fill the rest. */
  params?: Record<string, unknown>;
  /** The universe, in the bot's order (a block's columns come in this order). */
  symbols: readonly string[];
  /** Bars kept per symbol; the strategy's own `lookback` (or 1) when unset. */
  lookback?: number;
  /** Seeds the strategy's Math.random: the same seed gives the same numbers. */
  seed?: number;
  limits?: Partial<SandboxLimits>;
  /** A snapshot of an earlier run to resume (its state, bars and standing targets). */
  restore?: SandboxSnapshot;
  /** The bundle's source map: a failure's stack then names the uploaded files' lines. */
  sourceMap?: string;
  /** The version's models, run outside the sandbox when the strategy asks (ctx.model). */
  models?: ModelServer;
}

export interface Sandbox {
  /** Loads the strategy, resolves its params and runs init (or restores). Call once, first. */
  init(): Promise<InitAnswer>;
  /**
   * Runs `onFill` for `fills`, then `onBar` for bars from..to-1 of `block`, and answers after the
   * first bar where the strategy changed a target or sent or cancelled an order (`stoppedAfter`
   * is that bar; the host fills at the next open and calls again from stoppedAfter + 1 with the
   * new portfolio), or after bar to-1. Called again with the same block, the bars are not sent
   * again. Rejects with StrategyFailure, after which the sandbox is ended.
   */
  decide(
    block: SandboxBlock,
    from: number,
    to: number,
    portfolio: PortfolioView,
    fills?: readonly FillView[],
    horizon?: number,
  ): Promise<DecideAnswer>;
  /**
   * Given `horizon` (in from+1..to) to `decide`, the strategy runs on past its decisions: the
   * portfolio and fills hold for bars before `horizon` unless it decides, and where it reads the
   * portfolio past that, it answers `waitingAt` and waits, mid-call, for the portfolio as of
   * that bar's open: `resume` sends it, with the horizon from that bar on.
   */
  resume(portfolio: PortfolioView, horizon: number): Promise<DecideAnswer>;
  /** The run's state, to resume it with `restore` (ctx.state must be JSON, or this fails). */
  snapshot(): Promise<SandboxSnapshot>;
  /** Runs onStop and ends the process. */
  stop(): Promise<StopAnswer>;
  /** Ends the process now, without onStop (idempotent). */
  kill(): void;
  /** Resolves when the process has ended. */
  readonly exited: Promise<void>;
  /** The process id of the sandbox (bwrap's), for operators' tools. */
  readonly pid: number | undefined;
  /** Why the run failed, once it has (SandboxUnavailable: the platform's fault, not the strategy's). */
  readonly failure: StrategyFailure | SandboxUnavailable | undefined;
}

/** The same block: the same symbols' columns (a kernel may pass a fresh array of the same ones). */
function sameBlock(a: SandboxBlock, b: SandboxBlock): boolean {
  return a === b || (a.length === b.length && a.every((bars, i) => bars === b[i]));
}

/** The processes under `pid` (bwrap's own and the sandbox's node), from /proc. */
function descendants(pid: number): number[] {
  const found: number[] = [];
  const stack = [pid];
  while (stack.length) {
    const parent = stack.pop()!;
    let children = "";
    try {
      for (const task of fs.readdirSync(`/proc/${parent}/task`))
        children += ` ${fs.readFileSync(`/proc/${parent}/task/${task}/children`, "utf8")}`;
    } catch {
      continue; // gone already
    }
    for (const child of children.split(/\s+/).filter(Boolean).map(Number)) {
      found.push(child);
      stack.push(child);
    }
  }
  return found;
}

/** The lowest priority: a spinning strategy then takes only CPU no one else wants. */
export const DEMOTED_NICE = 19;

const STDERR_KEPT = 16 * 1024;
const OUT_OF_MEMORY =
  /Reached heap limit|bad_alloc|JavaScript heap out of memory|Fatal process out of memory|Allocation failed|Out of memory|Cannot allocate memory|out of memory/i;

/** Starts a strategy's process in its sandbox (see docs/architecture.md, "Strategy sandbox"). */
export async function startSandbox(options: SandboxOptions): Promise<Sandbox> {
  const limits: SandboxLimits = { ...DEFAULT_SANDBOX_LIMITS, ...options.limits };
  checkLimits(limits);
  if (options.symbols.length === 0) throw new RangeError("a strategy needs at least one symbol");
  const sources = await childSources();
  const child = spawnIsolated(sources.bootstrap, {
    heapMb: limits.memoryMb,
    addressSpaceMb: limits.addressSpaceMb,
    cpuSeconds: limits.runCpuSeconds,
  });
  return new SandboxProcess(child, sources, options, limits);
}

class SandboxProcess implements Sandbox {
  failure: StrategyFailure | SandboxUnavailable | undefined;
  private answered = false;
  get pid(): number | undefined {
    return this.child.pid;
  }
  readonly exited: Promise<void>;
  private stderr = "";
  private input: Buffer = Buffer.alloc(0);
  /** Log lines the child sent as they were written, not yet handed out with an answer or failure. */
  private streamed: LogLine[] = [];
  private pending:
    | {
        resolve: (json: string) => void;
        reject: (e: StrategyFailure | SandboxUnavailable) => void;
        timer: NodeJS.Timeout;
        /** When the call's limit ends it (moved on by the time its models took). */
        deadline: number;
      }
    | undefined;
  private timedOut = false;
  private killedByHost = false;
  private stopping = false;
  private ended = false;
  /**
   * The block the child holds, its rows, and the bar it expects next (bars go in order); when
   * `waiting`, the bar whose call waits for the portfolio.
   */
  private held:
    { block: SandboxBlock; base: number; rows: number; next: number; waiting: boolean } | undefined;
  private initialised = false;

  constructor(
    private readonly child: ChildProcess,
    private readonly sources: { bootstrap: string; runtime: string },
    private readonly options: SandboxOptions,
    private readonly limits: SandboxLimits,
  ) {
    child.stdin!.on("error", () => undefined);
    child.stdout!.on("data", (chunk: Buffer) => this.onData(chunk));
    child.stderr!.on("data", (chunk: Buffer) => {
      this.stderr = (this.stderr + chunk.toString("utf8")).slice(-STDERR_KEPT);
    });
    this.exited = new Promise((resolve) => {
      child.on("error", (error) => {
        this.onExit(null, null, `the sandbox did not start: ${error.message}`);
        resolve();
      });
      child.on("close", (code, signal) => {
        this.onExit(code, signal);
        resolve();
      });
    });
  }

  private onData(chunk: Buffer): void {
    this.input = this.input.length ? Buffer.concat([this.input, chunk]) : chunk;
    for (;;) {
      if (this.input.length < FRAME_HEADER_BYTES) return;
      const length = this.input.readUInt32LE(0);
      if (length > this.limits.maxAnswerBytes) {
        this.fail(
          new StrategyFailure(
            "strategy_error",
            `the strategy's answer (${length} bytes) is over the limit of ${this.limits.maxAnswerBytes}`,
          ),
        );
        return;
      }
      if (this.input.length < FRAME_HEADER_BYTES + length) return;
      const kind = this.input[4];
      const body = this.input
        .subarray(FRAME_HEADER_BYTES, FRAME_HEADER_BYTES + length)
        .toString("utf8");
      this.input = this.input.subarray(FRAME_HEADER_BYTES + length);
      const pending = this.pending;
      if (kind === Kind.ModelCall && pending) {
        this.serveModel(body);
        continue;
      }
      if (kind === Kind.Log && pending) {
        if (!this.keepStreamed(body)) return;
        continue;
      }
      if (kind !== Kind.Answer || !pending) {
        this.fail(new StrategyFailure("strategy_error", "the sandbox answered out of turn"));
        return;
      }
      this.pending = undefined;
      this.answered = true;
      clearTimeout(pending.timer);
      pending.resolve(body);
    }
  }

  /** Keeps a streamed line; a line that is not one fails the run (the child is not trusted). */
  private keepStreamed(body: string): boolean {
    let line: unknown;
    try {
      line = JSON.parse(body);
    } catch {
      line = undefined;
    }
    const l = line as Partial<LogLine> | undefined;
    if (
      typeof l !== "object" ||
      l === null ||
      typeof l.message !== "string" ||
      (l.level !== "info" && l.level !== "warn") ||
      this.streamed.length >= this.limits.logLines
    ) {
      this.fail(
        new StrategyFailure("strategy_error", "the sandbox sent a log line that is not one"),
      );
      return false;
    }
    this.streamed.push(l as LogLine);
    return true;
  }

  private takeStreamed(): LogLine[] {
    const lines = this.streamed;
    this.streamed = [];
    return lines;
  }

  /** A failure keeps the lines its call streamed before it (a killed call answers none). */
  private withStreamed<F extends StrategyFailure | SandboxUnavailable>(failure: F): F {
    if (failure instanceof StrategyFailure && this.streamed.length > 0) {
      const earlier = failure.callLogs;
      failure.callLogs = {
        lines: [...this.takeStreamed(), ...(earlier?.lines ?? [])],
        dropped: earlier?.dropped ?? 0,
      };
    }
    return failure;
  }

  /**
   * Runs the model the strategy asked for, mid-call, and answers the child. The call's own limit
   * (and its demotion as slow) stops meanwhile and starts afresh after; the model's limit (SVC_MODEL_CALL_TIMEOUT_MS) is its own, and a model past
   * it, or out of memory, fails the run.
   */
  private serveModel(body: string): void {
    const answer = (value: unknown) => {
      if (!this.ended && !this.killedByHost)
        this.child.stdin!.write(jsonFrame(Kind.ModelResult, value));
    };
    let call: ModelCall;
    try {
      call = JSON.parse(body) as ModelCall;
    } catch {
      this.fail(
        new StrategyFailure("strategy_error", "the sandbox sent a model call that is not JSON"),
      );
      return;
    }
    const server = this.options.models;
    if (!server) {
      answer({ fail: "this run has no models" });
      return;
    }
    // The model's time is the model's limit's, not the strategy's: the call's clock stops, and
    // starts afresh when the answer goes back. A block of many bars asks a model each bar; its
    // call is bounded between two answers (the runtime allows a few model calls a bar), and the
    // whole run by its CPU seconds.
    const pending = this.pending!;
    const slow = this.slow;
    clearTimeout(pending.timer);
    clearTimeout(slow?.timer);
    const resume = () => {
      if (this.pending !== pending) return;
      pending.deadline = Date.now() + this.limits.callTimeoutMs;
      pending.timer = setTimeout(() => this.callTimedOut(), this.limits.callTimeoutMs);
      if (slow && this.slow === slow && !this.demoted) {
        slow.at = Date.now() + this.limits.slowCallMs;
        slow.timer = setTimeout(() => this.demote(), this.limits.slowCallMs);
      }
    };
    server
      .run(call)
      .finally(resume)
      .then(
        (outputs) => answer({ ok: { outputs } }),
        (err: Error & { fatal?: boolean; timedOut?: boolean }) => {
          if (err.fatal)
            this.fail(
              new StrategyFailure(
                err.timedOut ? "strategy_timeout" : "strategy_error",
                err.message,
              ),
            );
          else answer({ fail: err.message });
        },
      );
  }

  private classifyExit(
    code: number | null,
    signal: NodeJS.Signals | null,
    note?: string,
  ): StrategyFailure | SandboxUnavailable {
    if (!this.answered && !this.timedOut && (note || DID_NOT_START.test(this.stderr)))
      return new SandboxUnavailable(
        `the strategy sandbox did not start: ${note ?? this.stderr.trim().slice(0, 500)}`,
      );
    if (this.timedOut)
      return new StrategyFailure(
        "strategy_timeout",
        `the strategy's call ran over its limit of ${this.limits.callTimeoutMs} ms and was stopped`,
      );
    if (OUT_OF_MEMORY.test(this.stderr))
      return new StrategyFailure(
        "strategy_memory",
        `the strategy ran out of memory (limit ${this.limits.memoryMb} MiB of heap, ${this.limits.addressSpaceMb} MiB of address space)`,
      );
    if (signal === "SIGXCPU" || code === 128 + 24)
      return new StrategyFailure(
        "strategy_timeout",
        `the run used its ${this.limits.runCpuSeconds} s of CPU and was stopped`,
      );
    const how = note ?? `exit code ${code ?? "none"}${signal ? `, signal ${signal}` : ""}`;
    const tail = this.stderr.trim().split("\n").slice(-3).join(" | ").slice(0, 500);
    return new StrategyFailure(
      "strategy_error",
      `the strategy's process ended (${how})${tail ? `: ${tail}` : ""}`,
    );
  }

  private onExit(code: number | null, signal: NodeJS.Signals | null, note?: string): void {
    if (this.ended) return;
    this.ended = true;
    const pending = this.pending;
    this.pending = undefined;
    if (pending) clearTimeout(pending.timer);
    if (this.stopping && !pending) return;
    if (this.killedByHost && !this.timedOut && !pending) return;
    if (!this.failure) this.failure = this.withStreamed(this.classifyExit(code, signal, note));
    pending?.reject(this.failure);
  }

  private fail(failure: StrategyFailure): void {
    this.failure ??= this.withStreamed(failure);
    const pending = this.pending;
    this.pending = undefined;
    if (pending) {
      clearTimeout(pending.timer);
      pending.reject(this.failure);
    }
    this.kill();
  }

  private callTimedOut(): void {
    this.timedOut = true;
    this.kill();
  }

  private demoted = false;
  /** The current call's demotion (when it counts as slow), moved on by its models' time too. */
  private slow: { at: number; timer: NodeJS.Timeout } | undefined;

  /** Renices the run's processes (bwrap's and node's main thread, the one running the strategy). */
  private demote(): void {
    if (this.demoted || this.ended || this.child.pid === undefined) return;
    this.demoted = true;
    for (const pid of [this.child.pid, ...descendants(this.child.pid)]) {
      try {
        os.setPriority(pid, DEMOTED_NICE);
      } catch {
        // gone, or not ours to renice: the call's limit still ends it
      }
    }
  }

  kill(): void {
    if (this.ended || this.killedByHost) return;
    this.killedByHost = true;
    this.child.kill("SIGKILL");
  }

  /** What init may take beyond slowCallMs before it counts as slow: node's own start. */
  private static readonly START_MS = 2_000;

  private async request<T>(bytes: Uint8Array, slowAfterMs = this.limits.slowCallMs): Promise<T> {
    if (this.failure) throw this.failure;
    if (this.ended || this.killedByHost) throw new Error("the sandbox has ended");
    if (this.pending) throw new Error("the sandbox takes one call at a time");
    const slowAt = Date.now() + Math.min(slowAfterMs, this.limits.callTimeoutMs);
    this.slow = this.demoted
      ? undefined
      : { at: slowAt, timer: setTimeout(() => this.demote(), slowAt - Date.now()) };
    const json = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => this.callTimedOut(), this.limits.callTimeoutMs);
      this.pending = { resolve, reject, timer, deadline: Date.now() + this.limits.callTimeoutMs };
      this.child.stdin!.write(bytes);
    }).finally(() => {
      clearTimeout(this.slow?.timer);
      this.slow = undefined;
    });
    const answer = JSON.parse(json) as RuntimeAnswer<T>;
    if ("fail" in answer) {
      const f = answer.fail;
      const stack =
        f.stack === undefined ? undefined : mapStrategyStack(f.stack, this.options.sourceMap);
      const failure = new StrategyFailure(f.code, f.message, stack);
      if (f.logs) failure.callLogs = { lines: f.logs, dropped: f.logsDropped ?? 0 };
      this.fail(failure);
      throw this.failure!;
    }
    // The lines streamed during the call go out with the answer that carries the call's lines.
    const ok = answer.ok as { logs?: LogLine[] } | undefined;
    if (ok && Array.isArray(ok.logs) && this.streamed.length > 0)
      ok.logs = [...this.takeStreamed(), ...ok.logs];
    return answer.ok;
  }

  async init(): Promise<InitAnswer> {
    if (this.initialised) throw new Error("init runs once");
    this.initialised = true;
    const request: InitRequest = {
      runtime: this.sources.runtime,
      strategy: this.options.bundle,
      config: {
        params: this.options.params ?? {},
        symbols: [...this.options.symbols],
        ...(this.options.lookback !== undefined ? { lookback: this.options.lookback } : {}),
        seed: this.options.seed ?? 0,
        ...(this.options.models ? { models: [...this.options.models.names] } : {}),
        logLines: this.limits.logLines,
        logLineChars: this.limits.logLineChars,
        ...(this.options.restore ? { restore: this.options.restore } : {}),
      },
    };
    return this.request<InitAnswer>(
      jsonFrame(Kind.Init, request),
      this.limits.slowCallMs + SandboxProcess.START_MS,
    );
  }

  decide(
    block: SandboxBlock,
    from: number,
    to: number,
    portfolio: PortfolioView,
    fills: readonly FillView[] = [],
    horizon?: number,
  ): Promise<DecideAnswer> {
    const symbols = this.options.symbols.length;
    if (block.length !== symbols)
      return Promise.reject(
        new RangeError(`the block has ${block.length} symbols' columns, the universe ${symbols}`),
      );
    const length = block[0]!.length;
    if (!Number.isInteger(from) || !Number.isInteger(to) || from < 0 || to > length || from >= to)
      return Promise.reject(
        new RangeError(`bars ${from}..${to} are not within the block's ${length}`),
      );
    if (horizon !== undefined && (!Number.isInteger(horizon) || horizon <= from || horizon > to))
      return Promise.reject(
        new RangeError(`horizon ${horizon} is not within bars ${from + 1}..${to}`),
      );
    const held = this.held;
    if (held?.waiting)
      return Promise.reject(
        new RangeError(`the strategy waits for the portfolio at bar ${held.next}: resume it`),
      );
    const base = {
      portfolio,
      fills: [...fills],
      ...(horizon !== undefined ? { sure: horizon } : {}),
    };
    if (held && sameBlock(held.block, block) && from >= held.base && to <= held.base + held.rows) {
      if (from !== held.next)
        return Promise.reject(
          new RangeError(
            `bars go in order: the strategy saw bar ${held.next - 1}, not ${from - 1}`,
          ),
        );
      const meta: BlockMeta = { base: held.base, rows: held.rows, from, to, ...base };
      return this.track(this.request<DecideAnswer>(jsonFrame(Kind.Continue, meta)));
    }
    const rows = to - from;
    const columns = [block[0]!.time.subarray(from, to)];
    for (const field of ["open", "high", "low", "close", "volume"] as const) {
      for (const bars of block) {
        if (bars.length !== length)
          return Promise.reject(new RangeError("the block's symbols differ in length"));
        columns.push(bars[field].subarray(from, to));
      }
    }
    this.held = { block, base: from, rows, next: from, waiting: false };
    const meta: BlockMeta = { base: from, rows, from, to, ...base };
    return this.track(this.request<DecideAnswer>(blockFrame(meta, columns)));
  }

  resume(portfolio: PortfolioView, horizon: number): Promise<DecideAnswer> {
    const held = this.held;
    if (!held?.waiting) return Promise.reject(new RangeError("the strategy is not waiting"));
    if (!Number.isInteger(horizon) || horizon <= held.next || horizon > held.base + held.rows)
      return Promise.reject(
        new RangeError(`horizon ${horizon} is not past the waiting bar ${held.next}`),
      );
    const meta: ResumeMeta = { portfolio, sure: horizon };
    return this.track(this.request<DecideAnswer>(jsonFrame(Kind.Resume, meta)));
  }

  /**
   * Keeps where the child is, from its answer, after checking the answer against it: the child
   * runs a strategy nobody trusts, and the bars it names place orders.
   */
  private async track(answer: Promise<DecideAnswer>): Promise<DecideAnswer> {
    const a = await answer;
    const held = this.held!;
    const waiting = a.waitingAt !== undefined;
    const next = waiting ? a.waitingAt! : a.stoppedAfter + 1;
    let last = held.next - 1;
    let valid =
      Number.isInteger(next) &&
      next >= held.next &&
      next <= held.base + held.rows &&
      a.stoppedAfter === next - 1;
    for (const d of a.decisions) {
      valid &&= Number.isInteger(d.bar) && d.bar > last && d.bar < next;
      last = d.bar;
    }
    if (!valid) {
      this.fail(new StrategyFailure("strategy_error", "the sandbox answered bars out of order"));
      throw this.failure!;
    }
    held.next = next;
    held.waiting = waiting;
    return a;
  }

  snapshot(): Promise<SandboxSnapshot> {
    // Mid-call, its state is half a bar's: a snapshot is taken between bars only.
    if (this.held?.waiting)
      return Promise.reject(
        new RangeError(
          `the strategy waits for the portfolio at bar ${this.held.next}: resume it first`,
        ),
      );
    return this.request<SandboxSnapshot>(frame(Kind.Snapshot, new Uint8Array(0)));
  }

  async stop(): Promise<StopAnswer> {
    this.stopping = true;
    const answer = await this.request<StopAnswer>(frame(Kind.Stop, new Uint8Array(0)));
    this.kill();
    return answer;
  }
}
