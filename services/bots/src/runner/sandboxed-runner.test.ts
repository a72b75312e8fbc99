import { afterEach, describe, expect, it } from "vitest";
import { generateBars } from "../engine/synthetic-source.js";
import {
  SandboxHost,
  withBars,
  type SandboxHostSnapshot,
} from "../execution/kernel/sandbox-host.js";
import { startSandbox, type Sandbox, type SandboxLimits } from "../sandbox/index.js";
import { BotRunner, type StrategyState } from "./bot-runner.js";
import type { RunnerEvent } from "./events.js";
import { foldEvents, workingOrders } from "./state.js";

const SYMBOL = "BTC-USD";
const bars = generateBars({ seed: 11, count: 300 });
const settings = { initialCash: 100_000, feeBps: 5, slippageBps: 3, positionSize: 0.5 };

/**
 * Counts the bars it saw in ctx.state, says so in init (a resumed run's init sees the count
 * restored), logs every tenth bar, and flips long and flat on a moving average.
 */
const COUNTER = `module.exports.default = {
  params: {},
  lookback: 20,
  init(ctx) { ctx.log.info("init", { seen: ctx.state.seen ?? 0 }); },
  onBar(ctx) {
    ctx.state.seen = (ctx.state.seen ?? 0) + 1;
    if (ctx.state.seen % 10 === 0) ctx.log.info("bar", { seen: ctx.state.seen });
    const b = ctx.bars(ctx.symbols[0]);
    if (b.length < 20) return;
    const closes = b.closes(20);
    let sum = 0; for (const c of closes) sum += c;
    ctx.target(ctx.symbols[0], { weight: b.latest.close > sum / 20 ? 1 : 0 });
  },
};`;

const started: Sandbox[] = [];
afterEach(() => {
  for (const s of started.splice(0)) s.kill();
});

async function hostOf(
  bundle: string,
  o: { limits?: Partial<SandboxLimits>; resume?: { state: StrategyState } } = {},
) {
  const snapshot = o.resume?.state.host as SandboxHostSnapshot | undefined;
  const sandbox = await startSandbox({
    bundle,
    symbols: [SYMBOL],
    seed: 7,
    ...(o.limits ? { limits: o.limits } : {}),
    ...(snapshot ? { restore: withBars(snapshot, SYMBOL, bars, o.resume!.state.bar) } : {}),
  });
  started.push(sandbox);
  const host = new SandboxHost(sandbox, SYMBOL);
  host.initialised(await sandbox.init());
  if (snapshot) host.restoreBooks(snapshot);
  return { host, sandbox };
}

/** A paper session of a sandboxed strategy from `startIndex`, on the books of `before`. */
function session(host: SandboxHost, startIndex: number, before: RunnerEvent[], target?: number) {
  const events: RunnerEvent[] = [];
  let state: StrategyState | undefined;
  /** The events committed with `state` (one batch: a bar's events and the state after it). */
  let committed = 0;
  // A real session's history starts with session_started, which sets the fold's cash.
  const history: RunnerEvent[] = [
    {
      type: "session_started",
      data: {
        task_id: "paper-1",
        version: 1,
        symbol: SYMBOL,
        initial_cash: settings.initialCash,
        data_source: "synthetic:11",
      },
    },
    ...before,
  ];
  const folded = foldEvents(
    history.map((e, i) => ({ seq: i + 1, type: e.type, occurredAt: new Date(0), data: e.data })),
  );
  const runner = new BotRunner({
    symbol: SYMBOL,
    bars,
    startIndex,
    speed: 0,
    host,
    ...(target !== undefined ? { resumeTarget: target } : {}),
    costs: settings,
    broker: {
      cash: folded.cash,
      units: folded.positions[SYMBOL] ?? 0,
      idPrefix: "paper-1-",
      nextOrderId: before.filter((e) => e.type === "order_placed").length + 1,
      // An order placed at the last committed bar fills at the next bar's open, resumed or not.
      openOrders: workingOrders(folded.openOrders),
    },
    sink: async (batch, s) => {
      events.push(...batch);
      if (s) {
        state = s;
        committed = events.length;
      }
    },
  });
  return { runner, events, state: () => state, committed: () => events.slice(0, committed) };
}

/**
 * A session of `bundle` whose sandbox is killed once its state as of bar `bar` (or later) is
 * committed, as a crashed runner leaves it: the state kept last, and the events committed with it.
 */
async function crashAfter(bundle: string, bar: number) {
  const first = await hostOf(bundle);
  const part = session(first.host, 0, []);
  await new Promise<void>((resolve) => {
    const poll = setInterval(() => {
      if ((part.state()?.bar ?? -1) >= bar) {
        clearInterval(poll);
        resolve();
      }
    }, 1);
  });
  first.sandbox.kill();
  await part.runner.finished().catch(() => undefined);
  return { state: part.state()!, before: part.committed() };
}

const TRADING = ["order_placed", "order_filled", "position_changed"];
const trading = (events: RunnerEvent[]) =>
  events.filter((e) => TRADING.includes(e.type)).map((e) => JSON.stringify(e));
const logs = (events: RunnerEvent[]) =>
  events.flatMap((e) => (e.type === "strategy_log" ? [e.data] : []));

describe("a paper session of a sandboxed strategy (BotRunner with an async host)", () => {
  it("records its ctx.log lines as strategy_log events with the time of their bar", async () => {
    const { host } = await hostOf(COUNTER);
    const s = session(host, 0, []);
    expect(await s.runner.finished()).toBe("finished");
    const lines = logs(s.events);
    expect(lines[0]).toEqual({ time: null, level: "info", message: "init", fields: { seen: 0 } });
    const tenth = lines.find((l) => l.message === "bar" && l.fields?.seen === 10)!;
    expect(tenth.time).toBe(bars.time[9]);
    expect(lines.filter((l) => l.message === "bar")).toHaveLength(30);
    expect(trading(s.events).length).toBeGreaterThan(4);
    expect(s.state()).toMatchObject({ bar: 299 });
  });

  it("caps a flood of log lines per run and records how many it dropped", async () => {
    const flood = `module.exports.default = { params: {}, onBar(ctx) { for (let i = 0; i < 1000; i++) ctx.log.warn("flood " + i); } };`;
    const { host } = await hostOf(flood, { limits: { logLines: 50 } });
    const s = session(host, 0, []);
    await s.runner.finished();
    expect(logs(s.events)).toHaveLength(50);
    const dropped = s.events.filter((e) => e.type === "strategy_log_dropped");
    // Once when dropping starts, once with the run's total at its end: never an event a bar.
    expect(dropped.map((e) => e.data)).toEqual([{ dropped: 950 }, { dropped: 300 * 1000 - 50 }]);
  });

  it("resumed from the state kept with its last bar, places the orders of an uninterrupted run and counts on", async () => {
    const whole = session((await hostOf(COUNTER)).host, 0, []);
    await whole.runner.finished();

    // The first run stops after bar 149 (as a crashed runner's last committed bar would be).
    const { state, before } = await crashAfter(COUNTER, 149);

    const { host } = await hostOf(COUNTER, { resume: { state } });
    const rest = session(host, state.bar + 1, before, state.target ?? undefined);
    await rest.runner.finished();
    // init ran again, with ctx.state restored.
    expect(logs(rest.events)[0]).toMatchObject({
      message: "init",
      fields: { seen: state.bar + 1 },
    });
    expect(logs(rest.events).at(-1)).toMatchObject({ message: "bar", fields: { seen: 300 } });
    expect(trading([...before, ...rest.events])).toEqual(trading(whole.events));
  });

  it("resumed with a limit order working, knows the order by the id it gave it and cancels it", async () => {
    // A limit buy far under the price at its third bar (it never fills), kept in ctx.state;
    // every bar it logs the ids of its open orders, and it cancels the order at its 60th bar.
    const resting = `module.exports.default = {
      params: {},
      onBar(ctx) {
        const s = ctx.symbols[0];
        ctx.state.n = (ctx.state.n ?? 0) + 1;
        if (ctx.state.n === 3)
          ctx.state.id = ctx.order({ symbol: s, side: "buy", units: 1, type: "limit", limitPrice: 1 });
        if (ctx.state.n === 60) ctx.cancel(ctx.state.id);
        ctx.log.info("open", { ids: ctx.portfolio.openOrders.map((o) => o.id).join(","), mine: ctx.state.id ?? "" });
      },
    };`;
    const { state, before } = await crashAfter(resting, 20);

    const { host } = await hostOf(resting, { resume: { state } });
    const rest = session(host, state.bar + 1, before);
    await rest.runner.finished();
    const lines = logs(rest.events).filter((l) => l.message === "open");
    // Its own id, as before the crash: not the venue's, nor a target's.
    expect(lines[0]!.fields).toEqual({
      ids: lines[0]!.fields!.mine,
      mine: expect.stringMatching(/./),
    });
    const cancelled = rest.events.filter((e) => e.type === "order_cancelled");
    expect(cancelled).toHaveLength(1);
    expect(lines.at(-1)!.fields!.ids).toBe("");
  });

  it("a halt bites while the strategy's call is in flight: it does not wait for the call's limit", async () => {
    // Spins from bar 5 on; the call's own limit (60 s) is far past this test's.
    const spinner = `module.exports.default = { params: {}, lookback: 10, onBar(ctx) { ctx.target(ctx.symbols[0], { weight: 1 }); if (ctx.bars(ctx.symbols[0]).length > 5) for (;;) {} } };`;
    const { host, sandbox } = await hostOf(spinner, { limits: { callTimeoutMs: 60_000 } });
    const s = session(host, 0, []);
    await new Promise<void>((resolve) => {
      const poll = setInterval(() => {
        if (s.events.some((e) => e.type === "bar_received" && e.data.index === 4)) {
          clearInterval(poll);
          resolve();
        }
      }, 5);
    });
    await new Promise((r) => setTimeout(r, 200));
    await s.runner.halt("drill", "flatten");
    expect(s.runner.phase).toBe("Stopped");
    expect(await s.runner.finished()).toBe("stopped");
    await sandbox.exited;
    expect(s.runner.position).toBe(0);
    // The bar the strategy never answered is not recorded: a resumed session shows it again.
    const seen = s.events.flatMap((e) => (e.type === "bar_received" ? [e.data.index] : []));
    expect(seen).toEqual([0, 1, 2, 3, 4]);
    expect(s.events.at(-1)).toMatchObject({ type: "phase_changed", data: { phase: "Stopped" } });
  }, 20_000);

  it("stopped from outside (a shutdown handing the session over), it does not wait for a call in flight either", async () => {
    const spinner = `module.exports.default = { params: {}, lookback: 10, onBar(ctx) { if (ctx.bars(ctx.symbols[0]).length > 2) for (;;) {} } };`;
    const { host, sandbox } = await hostOf(spinner, { limits: { callTimeoutMs: 60_000 } });
    const s = session(host, 0, []);
    await new Promise<void>((resolve) => {
      const poll = setInterval(() => {
        if (s.events.some((e) => e.type === "bar_received" && e.data.index === 1)) {
          clearInterval(poll);
          resolve();
        }
      }, 5);
    });
    await new Promise((r) => setTimeout(r, 200));
    s.runner.phase = "Stopped";
    expect(await s.runner.finished()).toBe("stopped");
    await sandbox.exited;
  }, 20_000);

  it("a strategy's failure rejects the run with its code, keeping the events of the bars before", async () => {
    const thrower = `module.exports.default = { params: {}, lookback: 10, onBar(ctx) { if (ctx.bars(ctx.symbols[0]).length > 3) throw new Error("boom"); } };`;
    const { host } = await hostOf(thrower);
    const s = session(host, 0, []);
    await expect(s.runner.finished()).rejects.toMatchObject({ code: "strategy_error" });
    const seen = s.events.flatMap((e) => (e.type === "bar_received" ? [e.data.index] : []));
    expect(seen).toEqual([0, 1, 2, 3]);
  });
});
