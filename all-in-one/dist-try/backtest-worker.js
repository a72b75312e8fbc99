import { createRequire as __svcCreateRequire } from "node:module"; const require = __svcCreateRequire(import.meta.url);
import {
  BacktestRun,
  EngineInputError,
  RiskGuard,
  anyLimit,
  barsAt,
  resolveStrategy,
  streamBars,
  vectorisedRun
} from "./chunk-TVOHPEJA.js";
import "./chunk-VRQZRDEA.js";

// services/bots/src/runtime/backtest-worker.ts
import { parentPort } from "node:worker_threads";

// services/bots/src/execution/refusal-counter.ts
var RefusalCounter = class {
  constructor(inner, refused) {
    this.inner = inner;
    this.refused = refused;
    this.name = inner.name;
  }
  inner;
  refused;
  name;
  check(order, context) {
    const verdict = this.inner.check(order, context);
    if (!verdict.accept) {
      const key = verdict.control ?? this.inner.name;
      this.refused.set(key, (this.refused.get(key) ?? 0) + 1);
    }
    return verdict;
  }
  accepted(order, context) {
    this.inner.accepted?.(order, context);
  }
};

// services/bots/src/runtime/backtest-worker.ts
var SLICE = 4096;
var port = parentPort;
if (!port) throw new Error("backtest-worker.ts runs as a worker thread (backtest-pool.ts)");
var waiting = /* @__PURE__ */ new Map();
var nextAsk = 0;
function ask(msg) {
  return new Promise((resolve) => {
    waiting.set(msg.ask, resolve);
    port.postMessage(msg);
  });
}
function remoteDatasets(runId) {
  return {
    async describe(name) {
      const a = await ask({ type: "describe", run: runId, ask: nextAsk++, name });
      return a.type === "described" ? a.info : void 0;
    },
    async *chunks(name) {
      for (; ; ) {
        const a = await ask({ type: "chunk", run: runId, ask: nextAsk++, name });
        if (a.type !== "chunk" || !a.bars) return;
        yield a.bars;
      }
    }
  };
}
async function run(job, control) {
  const refused = /* @__PURE__ */ new Map();
  const { family, params } = resolveStrategy(job.family, job.params);
  const checks = anyLimit(job.risk) ? [
    new RefusalCounter(
      new RiskGuard({ limits: job.risk, startEquity: job.settings.initialCash }),
      refused
    )
  ] : void 0;
  const options = { ...checks ? { checks } : {}, symbol: job.symbol };
  const engine = family.columns && !anyLimit(job.risk) ? vectorisedRun(family, params, job.settings, options) : new BacktestRun(family.create(params), job.settings, options);
  const { dataSource, startMs, endMs, timeframe } = job.bars;
  let done = 0;
  const opts = { datasets: remoteDatasets(job.id), timeframe };
  for await (const bars of streamBars(dataSource, startMs, endMs, opts)) {
    for (let from = 0; from < bars.length; from += SLICE) {
      if (Atomics.load(control, 0) !== 0) return { type: "stopped", run: job.id };
      const to = Math.min(from + SLICE, bars.length);
      engine.feed(barsAt(bars, from, to));
      done += to - from;
      Atomics.store(control, 1, done);
    }
  }
  if (Atomics.load(control, 0) !== 0) return { type: "stopped", run: job.id };
  const metrics = engine.finish();
  return {
    type: "done",
    run: job.id,
    metrics: refused.size > 0 ? { ...metrics, riskRejections: Object.fromEntries(refused) } : metrics
  };
}
port.on("message", (msg) => {
  if (msg.type === "run") {
    run(msg.job, msg.control).then(
      (answer2) => port.postMessage(answer2),
      (err) => port.postMessage({
        type: "error",
        run: msg.job.id,
        error: err instanceof EngineInputError ? { name: err.name, message: err.message, code: err.code, field: err.field } : {
          name: err?.name ?? "Error",
          message: err?.message ?? String(err)
        }
      })
    );
    return;
  }
  const answer = waiting.get(msg.ask);
  waiting.delete(msg.ask);
  answer?.(msg);
});
//# sourceMappingURL=backtest-worker.js.map
