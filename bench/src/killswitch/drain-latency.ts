// bench/killswitch: 1,000 real runner instances (each with its own bus subscription and
// key-value poll loop) over 4 worker threads; the platform scope is engaged through the gateway;
// time to Draining and to Stopped per bot, via NATS and with NATS down (key-value poll only).
// Usage: npx tsx bench/src/killswitch/drain-latency.ts [--runners 1000] [--workers 4] [--processes]
//          [--speed 2] [--out FILE] [--no-blind]
// --speed: bars per second each runner trades (2 by default: a paper session replayed 120 times
// faster than a live bot on one-minute bars, which trades 1/60 of a bar per second).
// --processes: each worker is a process of its own (as runner pods are), not a thread; the
// result goes to results/killswitch-processes.json.
import { fork } from "node:child_process";
import { writeFileSync } from "node:fs";
import { loadavg } from "node:os";
import { fileURLToPath } from "node:url";
import { Worker } from "node:worker_threads";
import { loadConfig } from "@svc/lib/config";
import { startPlatform } from "@svc/all-in-one";
import type { RunningPlatform } from "@svc/all-in-one";
import {
  startPrivateNats,
  startPrivateRedis,
  type PrivateServer,
} from "../../../test/support/private-servers.js";
import { machine } from "../machine.js";

const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
};
const runners = arg("runners", 1000);
const workers = arg("workers", 4);
const asProcesses = process.argv.includes("--processes");
// A fraction reads as one: --speed 1/60 is a live bot on one-minute bars.
const speedArg = process.argv[process.argv.indexOf("--speed") + 1] ?? "";
const speed = process.argv.includes("--speed")
  ? speedArg
      .split("/")
      .map(Number)
      .reduce((a, b) => a / b)
  : 2;
if (!(speed > 0)) throw new Error(`--speed takes bars per second (2, 0.5, 1/60), not ${speedArg}`);
const outAt = process.argv.indexOf("--out");

/** What the rounds need of a worker, thread or process. */
interface Pool {
  on(event: "message", fn: (m: never) => void): void;
  postMessage(m: unknown): void;
  once(event: "exit", fn: (code?: unknown) => void): void;
}

function startWorker(data: Record<string, unknown>): Pool {
  if (!asProcesses)
    return new Worker(fileURLToPath(new URL("./runner-worker.mjs", import.meta.url)), {
      workerData: data,
    }) as unknown as Pool;
  const child = fork(fileURLToPath(new URL("./runner-worker.ts", import.meta.url)), {
    execArgv: ["--import", "tsx"],
    env: { ...process.env, BENCH_WORKER_DATA: JSON.stringify(data) },
  });
  return {
    on: (_e, fn) => void child.on("message", fn as (m: unknown) => void),
    postMessage: (m) => void child.send(m as string),
    once: (_e, fn) => void child.once("exit", () => fn()),
  };
}
const pollMs = 5_000;
const now = () => Number(process.hrtime.bigint()) / 1e6;

type Fault = "none" | "nats-down" | "redis-hung-nats-down";

async function round(label: string, fault: Fault) {
  const stopNats = fault !== "none";
  const redis = await startPrivateRedis();
  const nats = await startPrivateNats();
  const platform = await startPlatform(
    loadConfig({
      SVC_PORT: "0",
      SVC_DATA_DIR: "memory://",
      SVC_LOG_LEVEL: "silent",
      SVC_REDIS_URL: redis.url,
      SVC_NATS_URL: nats.url,
    }),
  );
  const results: Array<{ draining: number; stopped: number }> = [];
  const frozen: number[] = [];
  const pool: Pool[] = [];
  await Promise.all(
    Array.from({ length: workers }, (_, w) => {
      const count = Math.floor(runners / workers) + (w < runners % workers ? 1 : 0);
      const worker = startWorker({
        count,
        natsUrl: nats.url,
        redisUrl: redis.url,
        pollMs,
        speed,
        offset: w * 10_000,
      });
      pool.push(worker);
      return new Promise<void>((resolve) =>
        worker.on(
          "message",
          (m: { ready?: number; frozen?: number; draining: number; stopped: number }) => {
            if (m.ready !== undefined) resolve();
            else if (m.frozen !== undefined) frozen.push(m.frozen);
            else results.push(m);
          },
        ),
      );
    }),
  );
  // A running platform is warm: exercise the engage path once on a fleet no runner watches.
  const warm = {
    method: "PUT",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ scope: "fleet", target: "warm-up", mode: "cancel", reason: "warm-up" }),
  };
  for (let i = 0; i < 3; i++) {
    await fetch(`${platform.url}/kill-switches/warm-up`, warm);
    await fetch(`${platform.url}/kill-switches/warm-up`, { method: "DELETE" });
  }
  // Let every poll loop start its cycle.
  await new Promise((r) => setTimeout(r, pollMs + 500));
  if (fault === "redis-hung-nats-down")
    return blindRound(label, { redis, nats, platform, pool, frozen });
  if (stopNats) await nats.stop();
  const t0 = now();
  const res = await fetch(`${platform.url}/kill-switches/bench`, {
    method: "PUT",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      scope: "platform",
      target: "platform",
      mode: "cancel",
      reason: "bench",
    }),
  });
  if (res.status !== 200) throw new Error(`engage failed: ${res.status} ${await res.text()}`);
  const deadline = Date.now() + pollMs * 3;
  while (results.length < runners && Date.now() < deadline)
    await new Promise((r) => setTimeout(r, 20));
  for (const w of pool) w.postMessage("stop");
  await Promise.all(pool.map((w) => new Promise((r) => w.once("exit", r))));
  await platform.close().catch(() => undefined);
  if (!stopNats) await nats.stop();
  await redis.stop();
  const drain = results.map((r) => r.draining - t0).sort((a, b) => a - b);
  const stop = results.map((r) => r.stopped - t0).sort((a, b) => a - b);
  const q = (xs: number[], p: number) =>
    Math.round(xs[Math.min(xs.length - 1, Math.floor(p * xs.length))]! * 10) / 10;
  const row = {
    path: label,
    runners,
    drained: results.length,
    draining_p50_ms: q(drain, 0.5),
    draining_p99_ms: q(drain, 0.99),
    draining_max_ms: q(drain, 1),
    stopped_p99_ms: q(stop, 0.99),
    stopped_max_ms: q(stop, 1),
  };
  console.log(row);
  return row;
}

/**
 * Redis stopped with its connections open (SIGSTOP) and NATS killed at the same instant: the
 * time until each runner, unable to learn of a halt, freezes itself (no new orders).
 */
async function blindRound(
  label: string,
  o: {
    redis: PrivateServer;
    nats: PrivateServer;
    platform: RunningPlatform;
    pool: Pool[];
    frozen: number[];
  },
) {
  o.redis.pause();
  await o.nats.stop();
  const t0 = now();
  const deadline = Date.now() + pollMs * 6;
  while (o.frozen.length < runners && Date.now() < deadline)
    await new Promise((r) => setTimeout(r, 20));
  o.redis.resume();
  for (const w of o.pool) w.postMessage("stop");
  await Promise.all(o.pool.map((w) => new Promise((r) => w.once("exit", r))));
  await o.platform.close().catch(() => undefined);
  await o.redis.stop();
  const times = o.frozen.map((t) => t - t0).sort((a, b) => a - b);
  const q = (xs: number[], p: number) =>
    Math.round(xs[Math.min(xs.length - 1, Math.floor(p * xs.length))]! * 10) / 10;
  const row = {
    path: label,
    runners,
    frozen: times.length,
    frozen_p50_ms: q(times, 0.5),
    frozen_p99_ms: q(times, 0.99),
    frozen_max_ms: q(times, 1),
  };
  console.log(row);
  return row;
}

const viaNats = await round("NATS broadcast (+ key-value poll)", "none");
const pollOnly = await round("NATS down: key-value poll only", "nats-down");
// --no-blind: the fail-safe round takes four poll intervals and more; it answers another question.
const blind = process.argv.includes("--no-blind")
  ? undefined
  : await round(
      "Redis hung (SIGSTOP) and NATS down: time to fail-safe freeze",
      "redis-hung-nats-down",
    );
const result = {
  benchmark: "time from the engage request through the gateway to Draining / Stopped, per runner",
  machine: machine(),
  settings: {
    runners,
    workers,
    workers_are: asProcesses ? "processes" : "worker threads of one process",
    poll_interval_s: pollMs / 1000,
    bars_per_second_per_runner: speed,
    runner: "BotRunner with a paper broker, cancel mode",
  },
  load_average_1m_at_end: loadavg()[0],
  anchors:
    "spec drill: Draining within 10 s; target p99 < 50 ms via NATS, < poll_interval_s + 0.5 s by polling alone; blind runners freeze after three failed polls (3 x poll_interval_s, each poll bounded by its deadline)",
  reference: {
    run: "2026-11-22, before the hardening issue",
    draining_p99_ms_via_nats: 32.2,
    draining_max_ms_poll_only: 4485.8,
    frozen_with_redis_hung: "never (a hung poll stalled the loop)",
  },
  rows: blind ? [viaNats, pollOnly, blind] : [viaNats, pollOnly],
};
writeFileSync(
  outAt > 0
    ? process.argv[outAt + 1]!
    : fileURLToPath(
        new URL(`../../results/killswitch${asProcesses ? "-processes" : ""}.json`, import.meta.url),
      ),
  `${JSON.stringify(result, null, 2)}\n`,
);
process.exit(0);
