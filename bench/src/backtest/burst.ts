// 200 backtests posted at once through the gateway, on Postgres and on PGlite: how many fail
// (the goal: none), how fast they complete against one run alone, and how `GET /bots/{ref}` and
// `/healthz` answer while they run against idle. The platform runs in this process, as
// `npm start` does; the requests are sent from it too.
// Usage: npx tsx bench/src/backtest/burst.ts [--runs 200] [--days 20000] [--workers 2]
//        [--backends postgres,pglite] [--out FILE] [--cpu-prof DIR]
// --cpu-prof writes the main thread's CPU profile of the burst (first submission to last run
// ended) to DIR/burst-<backend>.cpuprofile; profile-summary.ts says where its time went.
import { mkdirSync, writeFileSync } from "node:fs";
import { Session } from "node:inspector/promises";
import os from "node:os";
import { fileURLToPath } from "node:url";
import { startPlatform, type RunningPlatform } from "@svc/all-in-one";
import { loadConfig } from "@svc/lib/config";
import { withScratchDatabase } from "../identity/scratch-database.js";
import { machine } from "../machine.js";

const arg = (name: string, fallback: string) => {
  const at = process.argv.indexOf(`--${name}`);
  return at > 0 ? process.argv[at + 1]! : fallback;
};
const RUNS = Number(arg("runs", "200"));
const DAYS = Number(arg("days", "20000"));
const WORKERS = arg("workers", "2");
const BACKENDS = arg("backends", "postgres,pglite").split(",");
const OUT = arg(
  "out",
  fileURLToPath(new URL("../../results/backtest-burst.json", import.meta.url)),
);
const PROFILE_DIR = arg("cpu-prof", "");
const BOTS = 4;
const DAY = 86_400_000;
const round2 = (x: number) => Math.round(x * 100) / 100;
const load = () => os.loadavg().map(round2);

const spec = (slug: string) => ({
  name: slug,
  slug,
  kind: "trading",
  strategy: { family: "ma_crossover", parameters: { fast: 10, slow: 40 } },
  engine: { initial_cash: 100000, fee_bps: 5, slippage_bps: 2, position_size: 1 },
  // Risk limits: event-driven runs, the slower path, bar by bar.
  risk: { max_order_units: 1_000_000 },
});
const range = (seed: number) => ({
  data_source: `synthetic:${seed}`,
  start: "2000-01-01T00:00:00Z",
  end: new Date(Date.UTC(2000, 0, 1) + DAYS * DAY).toISOString(),
});

async function send(base: string, method: string, path: string, body?: unknown) {
  const res = await fetch(base + path, {
    method,
    headers: body ? { "content-type": "application/json" } : {},
    body: body ? JSON.stringify(body) : undefined,
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined, headers: res.headers };
}

function percentiles(xs: number[]) {
  const s = [...xs].sort((a, b) => a - b);
  const at = (q: number) => round2(s[Math.min(s.length - 1, Math.floor(q * s.length))]!);
  return { n: s.length, p50: at(0.5), p99: at(0.99), max: round2(s[s.length - 1]!) };
}

/** Latencies of GET /bots/{ref} and /healthz, one request at a time, until `until` says stop. */
async function probe(base: string, until: () => boolean, min = 0, phase = () => "idle") {
  const seen = new Map<
    string,
    { bots: number[]; health: number[]; notOk: Record<number, number> }
  >();
  let count = 0;
  while (!until() || count < min) {
    const at = phase();
    const into = seen.get(at) ?? { bots: [], health: [], notOk: {} };
    seen.set(at, into);
    let t = performance.now();
    const b = await send(base, "GET", "/bots/burst-0");
    into.bots.push(performance.now() - t);
    // A deadline passed under load (504) is a figure of the run, counted, not the bench's end.
    if (b.status !== 200) into.notOk[b.status] = (into.notOk[b.status] ?? 0) + 1;
    t = performance.now();
    await send(base, "GET", "/healthz");
    into.health.push(performance.now() - t);
    count++;
    await new Promise((r) => setTimeout(r, 20));
  }
  return Object.fromEntries(
    [...seen].map(([at, v]) => [
      at,
      {
        get_bot_ms: percentiles(v.bots),
        healthz_ms: percentiles(v.health),
        ...(Object.keys(v.notOk).length ? { get_bot_not_200: v.notOk } : {}),
      },
    ]),
  );
}

async function statuses(base: string): Promise<string[]> {
  const all: string[] = [];
  for (let b = 0; b < BOTS; b++) {
    let token = "";
    do {
      const page = await send(
        base,
        "GET",
        `/bots/burst-${b}/deployments?limit=100${token ? `&page_token=${token}` : ""}`,
      );
      all.push(...page.body.items.map((d: { status: string }) => d.status));
      token = page.body.next_page_token ?? "";
    } while (token);
  }
  return all;
}
const finished = (s: string[]) => s.every((x) => ["success", "failed", "halted"].includes(x));

/** The main thread's CPU profile from now until the returned function is called. */
async function profileMainThread(name: string): Promise<() => Promise<void>> {
  if (!PROFILE_DIR) return async () => {};
  const session = new Session();
  session.connect();
  await session.post("Profiler.enable");
  await session.post("Profiler.setSamplingInterval", { interval: 500 });
  await session.post("Profiler.start");
  return async () => {
    const { profile } = await session.post("Profiler.stop");
    mkdirSync(PROFILE_DIR, { recursive: true });
    writeFileSync(`${PROFILE_DIR}/burst-${name}.cpuprofile`, JSON.stringify(profile));
    session.disconnect();
  };
}

async function measure(p: RunningPlatform, backend: string) {
  const base = p.url;
  for (let b = 0; b < BOTS; b++) await send(base, "POST", "/bots", spec(`burst-${b}`));
  const idle = (await probe(base, () => true, 200)).idle!;
  // One run alone, three times: its time from submission to success.
  const alone: number[] = [];
  for (let i = 0; i < 3; i++) {
    const t = performance.now();
    const r = await send(base, "POST", "/bots/burst-0/backtest", range(1000 + i));
    if (r.status !== 202) throw new Error(`a single run answered ${r.status}`);
    for (;;) {
      const s = await statuses(base);
      if (finished(s)) break;
      await new Promise((r) => setTimeout(r, 10));
    }
    alone.push(performance.now() - t);
  }
  const oneRunS = [...alone].sort((a, b) => a - b)[1]! / 1000;
  const before = (await statuses(base)).length;

  const stopProfile = await profileMainThread(backend);
  const t0 = performance.now();
  let answeredAt = 0;
  let done = false;
  let last: string[] = [];
  const posting = Promise.all(
    Array.from({ length: RUNS }, (_, i) =>
      send(base, "POST", `/bots/burst-${i % BOTS}/backtest`, range(i)),
    ),
  ).finally(() => (answeredAt = performance.now() - t0));
  const watching = (async () => {
    await posting;
    for (;;) {
      last = await statuses(base);
      if (finished(last)) break;
      // Once a second: the watch reads every run's row (a dozen pages of 100), load of the
      // bench's own that a person following a run would not make.
      await new Promise((r) => setTimeout(r, 1_000));
    }
    done = true;
  })();
  // Probed from the first submission on: while they are answered (the requests check each run's
  // bars on the event loop), and once every one is answered, while they run.
  const phases = await probe(
    base,
    () => done,
    0,
    () => (answeredAt ? "running" : "submitting"),
  ).catch(async (err: unknown) => {
    // The probe's own error is the one to report, not the watch's once the platform closes.
    await Promise.allSettled([posting, watching]);
    throw err;
  });
  const busy = phases.running ?? phases.submitting!;
  const answers = await posting;
  const acceptedIn = answeredAt / 1000;
  await watching;
  const tookS = (performance.now() - t0) / 1000;
  await stopProfile();
  const accepted = answers.filter((r) => r.status === 202).length;
  const count = (s: string) => last.filter((x) => x === s).length;
  return {
    one_run_s: round2(oneRunS),
    one_run_alone_ms: alone.map(round2),
    posted: RUNS,
    answers: Object.fromEntries(
      [...new Set(answers.map((r) => r.status))].map((s) => [
        s,
        answers.filter((r) => r.status === s).length,
      ]),
    ),
    refused_with_retry_after: answers.filter(
      (r) => r.status !== 202 && r.headers.has("retry-after"),
    ).length,
    all_answered_in_s: round2(acceptedIn),
    ended: { success: count("success") - before, failed: count("failed"), halted: count("halted") },
    accepted,
    completed_in_s: round2(tookS),
    runs_per_s: round2(accepted / tookS),
    one_run_rate_per_s: round2(1 / oneRunS),
    throughput_of_one_run_rate: round2(accepted / tookS / (1 / oneRunS)),
    idle,
    while_submitting: phases.submitting,
    while_running: phases.running,
    get_bot_p99_of_idle: round2(busy.get_bot_ms.p99 / idle.get_bot_ms.p99),
    healthz_p99_of_idle: round2(busy.healthz_ms.p99 / idle.healthz_ms.p99),
  };
}

async function onBackend(backend: "postgres" | "pglite") {
  const env = { SVC_PORT: "0", SVC_LOG_LEVEL: "silent", SVC_BACKTEST_WORKERS: WORKERS };
  const run = async (extra: Record<string, string>) => {
    const p = await startPlatform(loadConfig({ ...env, ...extra }));
    try {
      return await measure(p, backend);
    } finally {
      await p.close();
    }
  };
  return backend === "pglite"
    ? run({ SVC_DATA_DIR: "memory://" })
    : withScratchDatabase("bench_backtest_burst", (url) => run({ SVC_DATABASE_URL: url }));
}

const loadAtStart = load();
const postgres = BACKENDS.includes("postgres") ? await onBackend("postgres") : undefined;
const pglite = BACKENDS.includes("pglite") ? await onBackend("pglite") : undefined;
const result = {
  machine: { ...machine(), nproc: os.cpus().length, cpu_model: os.cpus()[0]?.model },
  settings: { runs: RUNS, bars_per_run: DAYS, workers: Number(WORKERS), bots: BOTS },
  load_average: { at_start: loadAtStart, at_end: load() },
  postgres,
  pglite,
};
writeFileSync(OUT, JSON.stringify(result, null, 2) + "\n");
console.log(JSON.stringify(result, null, 2));
