import fs from "node:fs";
import net from "node:net";
import { create } from "@bufbuild/protobuf";
import {
  Code,
  ConnectError,
  createClient,
  decodeBinaryHeader,
  type Client,
} from "@connectrpc/connect";
import { createGrpcTransport, Http2SessionManager } from "@connectrpc/connect-node";
import {
  BlockSchema,
  OrderType,
  Side,
  StrategyService,
  type Decision,
  type Fill,
  type LogLine as WireLogLine,
  type Portfolio,
} from "@svc/gen/svc/strategy/v1/strategy_pb.js";
import type { Bars } from "../../engine/bars.js";
import { StrategyFailure } from "../../sandbox/index.js";
import type { LogLine, SandboxLimits, SandboxSnapshot } from "../../sandbox/index.js";
import type { StrategyProcess } from "../../sandbox/python/process.js";
import type { SandboxHostSnapshot } from "./sandbox-host.js";
import type {
  AsyncStrategyHost,
  BarBlock,
  DecisionSink,
  KernelFill,
  PortfolioView,
} from "./strategy-host.js";

/** Log lines a run keeps from its strategy (as SandboxHost). */
const LOGS_KEPT = 1_000;
/** How often the host looks for the service's socket while it starts. */
const SOCKET_POLL_MS = 10;
/** What the service may take to come up (an interpreter loading gRPC) beside Init's own limit. */
const START_MS = 5_000;
/** How long a call that broke off waits for the process's exit, to say how it ended. */
const EXIT_WAIT_MS = 1_000;

export type GrpcHostLimits = Pick<
  SandboxLimits,
  | "callTimeoutMs"
  | "maxAnswerBytes"
  | "logLines"
  | "logLineChars"
  | "runCpuSeconds"
  | "addressSpaceMb"
>;

export interface GrpcHostOptions {
  /** The Unix socket the strategy service listens on (a sandboxed process's, or a sidecar's). */
  socketPath: string;
  /** The symbol the kernel trades: the strategy's universe. */
  symbol: string;
  limits: GrpcHostLimits;
  /** The service's process when this host started it: ended on a failure, asked why it ended. */
  process?: StrategyProcess;
}

export interface GrpcInit {
  params?: Record<string, unknown>;
  seed?: number;
  lookback?: number;
  /** A snapshot this strategy answered before, its bars put back (withBars): the run resumes. */
  restore?: SandboxSnapshot;
}

/** What init answered: the parameters the run uses, their declarations, the bars kept. */
export interface GrpcInitAnswer {
  params: Record<string, unknown>;
  /** By name: {type, default, min?, max?, values?, description?} as the strategy declared them. */
  declared: Record<string, GrpcDeclaredParam>;
  lookback: number;
}

export interface GrpcDeclaredParam {
  type: "int" | "number" | "boolean" | "enum";
  default?: unknown;
  min?: number;
  max?: number;
  values?: string[];
  description?: string;
}

/**
 * A strategy in any language, served over gRPC (proto/svc/strategy/v1), as the kernel's host. It
 * answers like SandboxHost: the kernel's view and fills go out with each decide, the one decision
 * the strategy stops at comes back. Every call has the run's per-call deadline; a call past it
 * ends the run strategy_timeout, a service that dies or answers out of protocol strategy_error, a
 * strategy that raises strategy_error with its stack (strategy_memory for Python's MemoryError),
 * and parameters that do not fit invalid_params. After a failure the process is ended and every
 * later call rejects with the same failure. Explicit orders and cancels go through the kernel as
 * a TypeScript strategy's do, the strategy knowing them by the ids its ctx.order gave them; its
 * snapshot (ctx.state and the rest, as the Python runtime keeps it) has SandboxHost's shape, so a
 * paper session keeps and resumes it alike.
 */
export class GrpcStrategyHost implements AsyncStrategyHost {
  readonly logs: LogLine[] = [];
  logsDropped = 0;
  private logsDrained = 0;
  failure: StrategyFailure | undefined;
  /** What init resolved: the parameters the run uses, their declarations, the bars kept. */
  resolved: GrpcInitAnswer | undefined;
  /** The strategy's order ids and the venue's, both ways. */
  private readonly venueIds = new Map<string, string>();
  private readonly strategyIds = new Map<string, string>();
  private readonly sessions: Http2SessionManager;
  private readonly client: Client<typeof StrategyService>;
  private fillsDue: KernelFill[] = [];
  private averagePrice = 0;
  private units = 0;
  private held: { block: Bars; base: number; rows: number; next: number } | undefined;

  constructor(private readonly options: GrpcHostOptions) {
    const url = "http://strategy.local";
    this.sessions = new Http2SessionManager(url, undefined, {
      createConnection: () => net.connect(options.socketPath),
    });
    this.client = createClient(
      StrategyService,
      createGrpcTransport({
        baseUrl: url,
        sessionManager: this.sessions,
        readMaxBytes: options.limits.maxAnswerBytes,
      }),
    );
  }

  /** Waits for the service's socket, then resolves the params and runs the strategy's init. */
  async init(init: GrpcInit = {}): Promise<GrpcInitAnswer> {
    await this.socketReady();
    const { limits } = this.options;
    const answer = await this.call(() =>
      this.client.init(
        {
          params: (init.params ?? {}) as never,
          symbols: [this.options.symbol],
          lookback: init.lookback ?? 0,
          seed: BigInt(init.seed ?? 0),
          logLines: limits.logLines,
          logLineChars: limits.logLineChars,
          restore: init.restore ? JSON.stringify(init.restore) : "",
        },
        { timeoutMs: limits.callTimeoutMs },
      ),
    );
    this.keep(answer.logs, answer.logsDropped);
    this.resolved = {
      params: (answer.params ?? {}) as Record<string, unknown>,
      declared: (answer.declared ?? {}) as unknown as Record<string, GrpcDeclaredParam>,
      lookback: answer.lookback,
    };
    return this.resolved;
  }

  /** The Python runtime's snapshot and the host's books, in SandboxHost's shape. */
  async snapshot(working: readonly string[] = []): Promise<SandboxHostSnapshot> {
    const answer = await this.call(() =>
      this.client.snapshot({}, { timeoutMs: this.options.limits.callTimeoutMs }),
    );
    let sandbox: SandboxSnapshot;
    try {
      sandbox = JSON.parse(answer.state) as SandboxSnapshot;
    } catch {
      throw this.fail(
        new StrategyFailure(
          "strategy_error",
          "the strategy service answered a snapshot that is not JSON",
        ),
      );
    }
    const orderRefs: [string, string][] = [];
    for (const venueId of working) {
      const ref = this.strategyIds.get(venueId);
      if (ref !== undefined) orderRefs.push([ref, venueId]);
    }
    return {
      sandbox,
      units: this.units,
      averagePrice: this.averagePrice,
      lookback: this.resolved?.lookback ?? 1,
      ...(orderRefs.length > 0 ? { orderRefs } : {}),
    };
  }

  /** The books of a resumed run, as SandboxHost.restoreBooks. */
  restoreBooks(snapshot: SandboxHostSnapshot): void {
    this.units = snapshot.units;
    this.averagePrice = snapshot.averagePrice;
    for (const [ref, venueId] of snapshot.orderRefs ?? []) this.placed(ref, venueId);
  }

  placed(ref: string, orderId: string | undefined): void {
    if (orderId === undefined) return;
    this.venueIds.set(ref, orderId);
    this.strategyIds.set(orderId, ref);
  }

  /** The id a strategy knows an order by: its own, or `target:` and the venue's for a target's. */
  private strategyId(venueId: string): string {
    return this.strategyIds.get(venueId) ?? `target:${venueId}`;
  }

  abort(): void {
    this.fail(new StrategyFailure("strategy_error", "the run was stopped"));
  }

  drainLogs(): { lines: readonly LogLine[]; dropped: number } {
    const lines = this.logs.slice(this.logsDrained);
    this.logsDrained = this.logs.length;
    return { lines, dropped: this.logsDropped };
  }

  fills(fills: readonly KernelFill[]): void {
    for (const f of fills) {
      const signed = f.side === "buy" ? f.units : -f.units;
      const next = this.units + signed;
      if (next === 0) this.averagePrice = 0;
      else if (this.units === 0 || Math.sign(next) !== Math.sign(this.units))
        this.averagePrice = f.price;
      else if (Math.sign(signed) === Math.sign(this.units))
        this.averagePrice =
          (this.averagePrice * Math.abs(this.units) + f.price * f.units) / Math.abs(next);
      this.units = next;
      this.fillsDue.push(f);
    }
  }

  async decide(
    block: BarBlock,
    from: number,
    to: number,
    view: PortfolioView,
    out: DecisionSink,
  ): Promise<number> {
    const fills = this.takeFills(block.time[from]!);
    const held = this.held;
    const holds = held?.block === block && from >= held.base && to <= held.base + held.rows;
    if (holds && from !== held.next)
      throw new RangeError(
        `bars go in order: the strategy saw bar ${held.next - 1}, not ${from - 1}`,
      );
    const rows = holds ? undefined : blockRows(block, from, to);
    if (!holds) this.held = { block, base: from, rows: to - from, next: from };
    const answer = await this.call(() =>
      this.client.decide(
        {
          ...(rows ? { block: rows } : {}),
          start: BigInt(from),
          end: BigInt(to),
          portfolio: this.portfolio(view),
          fills,
        },
        { timeoutMs: this.options.limits.callTimeoutMs },
      ),
    );
    this.keep(answer.logs, answer.logsDropped);
    const stoppedAfter = Number(answer.stoppedAfter);
    const decision = answer.decisions[0];
    const inRange = stoppedAfter >= from && stoppedAfter < to;
    if (
      !inRange ||
      answer.decisions.length > 1 ||
      (decision ? Number(decision.bar) !== stoppedAfter : stoppedAfter !== to - 1)
    )
      throw this.fail(
        new StrategyFailure(
          "strategy_error",
          `the strategy service answered out of protocol: asked bars ${from}..${to - 1}, it stopped after ${stoppedAfter} with ${answer.decisions.length} decisions`,
        ),
      );
    this.held!.next = stoppedAfter + 1;
    if (!decision) return to;
    this.write(decision, out, view);
    return stoppedAfter;
  }

  async stop(): Promise<void> {
    try {
      if (this.failure) return;
      const answer = await this.call(() =>
        this.client.stop(
          { fills: this.takeFills(Number.NaN) },
          { timeoutMs: this.options.limits.callTimeoutMs },
        ),
      );
      this.keep(answer.logs, answer.logsDropped);
    } finally {
      this.close();
    }
  }

  /** How the service's process ended, once it has; undefined for a service this host did not start. */
  get exited(): StrategyProcess["exited"] | undefined {
    return this.options.process?.exited;
  }

  /** Closes the connection and ends the service's process, if this host started it. */
  close(): void {
    this.sessions.abort();
    this.options.process?.kill();
  }

  private takeFills(time: number): Fill[] {
    const fills = this.fillsDue.map(
      (f) =>
        ({
          orderId: this.strategyId(f.orderId),
          symbol: this.options.symbol,
          side: f.side === "buy" ? Side.BUY : Side.SELL,
          units: f.units,
          price: f.price,
          fee: f.fee,
          time,
        }) as Fill,
    );
    this.fillsDue = [];
    return fills;
  }

  private portfolio(view: PortfolioView): Portfolio {
    const symbol = this.options.symbol;
    return {
      cash: view.cash,
      positions:
        view.units === 0 ? [] : [{ symbol, units: view.units, averagePrice: this.averagePrice }],
      openOrders: view.working.map((o) => ({
        id: this.strategyId(o.id),
        symbol,
        side: o.side === "buy" ? Side.BUY : Side.SELL,
        type: ORDER_TYPES[o.kind],
        units: o.units,
        ...(o.limitPrice !== undefined ? { limitPrice: o.limitPrice } : {}),
        ...(o.stopPrice !== undefined ? { stopPrice: o.stopPrice } : {}),
      })),
    } as Portfolio;
  }

  /**
   * One decision, as SandboxHost.write: cancels (by the venue's id of the strategy's order), a
   * weight target, a units target as the market order that brings the position there, then the
   * explicit orders, each named by the strategy's id (`ref`) so `placed` can map it.
   */
  private write(d: Decision, out: DecisionSink, view: PortfolioView): void {
    const at = `at bar time ${new Date(d.time).toISOString()}`;
    for (const id of d.cancels) {
      const venueId = this.venueIds.get(id);
      // An order refused, filled or cancelled already, or never made: nothing to cancel.
      if (venueId !== undefined && view.working.some((o) => o.id === venueId)) out.cancel(venueId);
    }
    for (const change of d.targets) {
      const value = change.target.value;
      if (typeof value !== "number" || !Number.isFinite(value))
        throw this.fail(
          new StrategyFailure(
            "strategy_error",
            `the strategy answered a target without a finite value ${at}`,
          ),
        );
      if (change.target.case === "weight") {
        out.target(value);
        continue;
      }
      const delta = value - view.units;
      if (delta !== 0)
        out.order({ side: delta > 0 ? "buy" : "sell", units: Math.abs(delta), kind: "market" });
    }
    for (const order of d.orders) {
      const kind = ORDER_KINDS[order.type];
      if (!kind || (order.side !== Side.BUY && order.side !== Side.SELL))
        throw this.fail(
          new StrategyFailure(
            "strategy_error",
            `the strategy answered order ${order.id} without a side and a type (market, limit, stop) ${at}`,
          ),
        );
      out.order({
        side: order.side === Side.BUY ? "buy" : "sell",
        units: order.units,
        kind,
        ...(kind === "limit" ? { limitPrice: order.limitPrice } : {}),
        ...(kind === "stop" ? { stopPrice: order.stopPrice } : {}),
        ref: order.id,
      });
    }
  }

  /** The lines a call wrote before it raised, sent in its trailer (strategy-logs-bin, JSON). */
  private keepFailedCallLogs(error: ConnectError): void {
    const sent = error.metadata.get("strategy-logs-bin");
    if (sent === null) return;
    try {
      const { lines, dropped } = JSON.parse(new TextDecoder().decode(decodeBinaryHeader(sent))) as {
        lines: [number, number, string, string][];
        dropped: number;
      };
      this.keep(
        lines.map(([bar, time, level, message]) => ({
          bar: BigInt(bar),
          time,
          level,
          message: String(message),
        })) as unknown as WireLogLine[],
        BigInt(dropped),
      );
    } catch {
      // A trailer that is not what the runtime sends: the lines are lost, the failure is not.
    }
  }

  private keep(lines: readonly WireLogLine[], dropped: bigint): void {
    for (const line of lines)
      if (this.logs.length < LOGS_KEPT)
        this.logs.push({
          bar: Number(line.bar),
          time: line.bar < 0n ? null : line.time,
          level: line.level === "warn" ? "warn" : "info",
          message: line.message,
        });
      else this.logsDropped++;
    this.logsDropped = Math.max(this.logsDropped, Number(dropped));
  }

  private async socketReady(): Promise<void> {
    const { socketPath, process } = this.options;
    const deadline = Date.now() + START_MS + this.options.limits.callTimeoutMs;
    let gone = false;
    void process?.exited.then(() => (gone = true));
    while (!fs.existsSync(socketPath)) {
      if (gone) throw this.fail(await this.ended(undefined));
      if (Date.now() > deadline)
        throw this.fail(
          new StrategyFailure(
            "strategy_timeout",
            `the strategy service did not listen on its socket within ${START_MS + this.options.limits.callTimeoutMs} ms`,
          ),
        );
      await new Promise((resolve) => setTimeout(resolve, SOCKET_POLL_MS));
    }
  }

  private async call<T>(send: () => Promise<T>): Promise<T> {
    if (this.failure) throw this.failure;
    try {
      return await send();
    } catch (error) {
      throw this.fail(await this.classify(ConnectError.from(error)));
    }
  }

  private async classify(error: ConnectError): Promise<StrategyFailure> {
    const { limits } = this.options;
    if (error.code === Code.DeadlineExceeded)
      return new StrategyFailure(
        "strategy_timeout",
        `the strategy's call ran over its limit of ${limits.callTimeoutMs} ms and was stopped`,
      );
    if (error.code === Code.InvalidArgument)
      return new StrategyFailure("invalid_params", error.rawMessage);
    this.keepFailedCallLogs(error);
    // The trailer says the strategy's own code raised (the runtime sends it with its frames).
    const stack = error.metadata.get("strategy-stack-bin");
    if (stack !== null) {
      const text = new TextDecoder().decode(decodeBinaryHeader(stack));
      if (/^MemoryError\b/.test(error.rawMessage) || /^MemoryError\b/m.test(text))
        return this.outOfMemory(text);
      return new StrategyFailure("strategy_error", error.rawMessage, text);
    }
    if (error.code === Code.ResourceExhausted)
      return new StrategyFailure(
        "strategy_error",
        `the strategy's answer is over the limit of ${limits.maxAnswerBytes} bytes: ${error.rawMessage}`,
      );
    return this.ended(error);
  }

  /** The call broke off: the process ended (say how), or the service failed the call itself. */
  private async ended(error: ConnectError | undefined): Promise<StrategyFailure> {
    const process = this.options.process;
    const exit = process
      ? await Promise.race([
          process.exited,
          new Promise<undefined>((resolve) =>
            setTimeout(() => resolve(undefined), EXIT_WAIT_MS).unref(),
          ),
        ])
      : undefined;
    if (exit && (exit.signal === "SIGXCPU" || exit.code === 128 + 24))
      return new StrategyFailure(
        "strategy_timeout",
        `the run used its ${this.options.limits.runCpuSeconds} s of CPU and was stopped`,
      );
    const tail = process?.stderrTail() ?? "";
    if (exit && /MemoryError|Cannot allocate memory|std::bad_alloc/.test(tail))
      return this.outOfMemory();
    if (exit)
      return new StrategyFailure(
        "strategy_error",
        `the strategy's process ended (exit code ${exit.code ?? "none"}${exit.signal ? `, signal ${exit.signal}` : ""})${tail ? `: ${tail.split("\n").slice(-3).join(" | ")}` : ""}`,
      );
    return new StrategyFailure(
      "strategy_error",
      `the strategy service failed the call (${error ? `${Code[error.code]}: ${error.rawMessage}` : "no answer"})`,
    );
  }

  private outOfMemory(stack?: string): StrategyFailure {
    return new StrategyFailure(
      "strategy_memory",
      `the strategy ran out of memory (limit ${this.options.limits.addressSpaceMb} MiB of address space)`,
      stack,
    );
  }

  private fail(failure: StrategyFailure): StrategyFailure {
    this.failure ??= failure;
    this.close();
    return this.failure;
  }
}

const ORDER_TYPES = {
  market: OrderType.MARKET,
  limit: OrderType.LIMIT,
  stop: OrderType.STOP,
} as const;
const ORDER_KINDS: Partial<Record<OrderType, "market" | "limit" | "stop">> = {
  [OrderType.MARKET]: "market",
  [OrderType.LIMIT]: "limit",
  [OrderType.STOP]: "stop",
};

/** Bars from..to-1 of `block` as the contract's Block (the kernel's index of the first row). */
function blockRows(block: Bars, from: number, to: number) {
  return create(BlockSchema, {
    base: BigInt(from),
    time: Array.from(block.time.subarray(from, to)),
    symbols: [
      {
        open: Array.from(block.open.subarray(from, to)),
        high: Array.from(block.high.subarray(from, to)),
        low: Array.from(block.low.subarray(from, to)),
        close: Array.from(block.close.subarray(from, to)),
        volume: Array.from(block.volume.subarray(from, to)),
      },
    ],
  });
}
