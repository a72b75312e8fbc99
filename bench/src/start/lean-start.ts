// bench/start: `npm start` on a fresh data folder, against the start as it was, side by side in
// one run: time to the ready line, CPU used until then (the whole tree's, and the platform's main
// thread's: the critical path, steadier than wall time on a shared machine), resident memory
// idle after ready, after a steady load (autocannon on GET /bots and GET /auth/whoami) and
// again once idle: watched each second until it is back at its idle level (or --idle-seconds
// passed), since V8 gives back what a load grew only when it collects for memory's sake, about a
// minute and a half after the load's last collection on this machine, not seconds after.
// The reference is the old command line (`npx tsx all-in-one/src/main.ts`: tsx compiling the
// sources) with the old database settings (no template: initdb and every migration; PostgreSQL's
// 128 MiB shared_buffers); it shares today's code otherwise. Rounds alternate the two commands.
// Usage: npm run -w bench lean-start -- [--runs 3] [--load-seconds 20] [--idle-seconds 30]
//        [--connections 8] [--reference-checkout DIR] [--out FILE]
// --reference-checkout: the reference is `npm start` of another checkout instead (a worktree of
// an earlier commit sharing this node_modules), to measure what changed since.
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import autocannon from "autocannon";
import { machine } from "../machine.js";
import { platformProcess, sampleTree, type ProcessSample } from "./process-tree.js";

const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
};
const settings = {
  runs: arg("runs", 3),
  loadSeconds: arg("load-seconds", 20),
  idleSeconds: arg("idle-seconds", 150),
  connections: arg("connections", 8),
};
const root = fileURLToPath(new URL("../../../", import.meta.url));
const text = (name: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : undefined;
};
const referenceCheckout = text("reference-checkout");
const load = () => Math.round(loadavg()[0]! * 100) / 100;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Variant {
  name: "lean" | "reference";
  command: string[];
  env: Record<string, string>;
  cwd: string;
}
const VARIANTS: Variant[] = [
  { name: "lean", command: ["npm", "start"], env: {}, cwd: root },
  referenceCheckout
    ? { name: "reference", command: ["npm", "start"], env: {}, cwd: referenceCheckout }
    : {
        name: "reference",
        command: ["npx", "tsx", "all-in-one/src/main.ts"],
        env: { SVC_PGLITE_TEMPLATE_DIR: "off", SVC_PGLITE_SHARED_BUFFERS_MB: "128" },
        cwd: root,
      },
];

interface Started {
  child: ChildProcess;
  url: string;
  readyMs: number;
  printedReadyMs: number;
  /** Whether npm start rebuilt its bundle first (another engineer's edit since the last run). */
  rebuiltBundle: boolean;
}

/** Spawns a start in its own process group and waits for its ready line. */
function start(variant: Variant, dataDir: string): Promise<Started> {
  const t0 = performance.now();
  const child = spawn(variant.command[0]!, variant.command.slice(1), {
    cwd: variant.cwd,
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
    env: {
      ...process.env,
      ...variant.env,
      SVC_DATA_DIR: dataDir,
      SVC_PORT: "0",
      SVC_LOG_FORMAT: "json",
      SVC_LOG_LEVEL: "warn",
    },
  });
  let out = "";
  let err = "";
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => fail(new Error("no ready line within 180 s")), 180_000);
    const fail = (e: Error) => {
      clearTimeout(timer);
      stop(child).finally(() => reject(new Error(`${variant.name}: ${e.message}\n${err}`)));
    };
    child.stderr!.on("data", (d: Buffer) => (err += d.toString()));
    child.stdout!.on("data", (d: Buffer) => {
      out += d.toString();
      const m = /svc platform ready in (\d+) ms at (\S+)/.exec(out);
      if (!m) return;
      clearTimeout(timer);
      child.removeAllListeners("exit");
      child.stdout!.removeAllListeners("data");
      child.stdout!.resume();
      resolve({
        child,
        url: m[2]!,
        readyMs: Math.round(performance.now() - t0),
        printedReadyMs: Number(m[1]),
        rebuiltBundle: err.includes("bundled the platform"),
      });
    });
    child.on("exit", (code) => fail(new Error(`exited with ${code} before it was ready`)));
  });
}

/** Whether any process of the group is still there. */
function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * SIGINT to the whole group (npm, its shell, the platform), SIGKILL if it lingers. Waits for every
 * process of the group, not only npm: npm exits at once while the platform still closes PGlite
 * (a checkpoint written to disk), and the next run would be timed beside that close.
 */
async function stop(child: ChildProcess): Promise<void> {
  if (child.pid === undefined) return;
  const pgid = child.pid;
  if (child.exitCode === null) process.kill(-pgid, "SIGINT");
  const deadline = Date.now() + 20_000;
  while (groupAlive(pgid) && Date.now() < deadline) await sleep(50);
  if (groupAlive(pgid)) process.kill(-pgid, "SIGKILL");
}

const mib = (kib: number) => Math.round(kib / 102.4) / 10;
function memory(samples: ProcessSample[]) {
  const platform = platformProcess(samples);
  return {
    platform_rss_mib: mib(platform?.rssKib ?? 0),
    tree_rss_mib: mib(samples.reduce((s, p) => s + p.rssKib, 0)),
    platform_peak_rss_mib: mib(platform?.peakRssKib ?? 0),
  };
}

async function oneRun(variant: Variant) {
  const dataDir = mkdtempSync(join(tmpdir(), `svc-lean-start-${variant.name}-`));
  rmSync(dataDir, { recursive: true });
  const loadAtStart = load();
  const s = await start(variant, dataDir);
  try {
    const atReady = sampleTree(s.child.pid!);
    const cpuToReady = atReady.reduce((sum, p) => sum + p.cpuMs, 0);
    const mainThreadCpuToReady = platformProcess(atReady)?.mainThreadCpuMs ?? 0;
    await sleep(2_000);
    const idle = sampleTree(s.child.pid!);
    const r = await autocannon({
      url: s.url,
      connections: settings.connections,
      duration: settings.loadSeconds,
      requests: [
        { method: "GET", path: "/bots" },
        { method: "GET", path: "/auth/whoami" },
      ],
    });
    const loaded = sampleTree(s.child.pid!);
    const idleRss = memory(idle).platform_rss_mib;
    const loadEnded = performance.now();
    let rested = loaded;
    let backAfterS: number | null = null;
    while (performance.now() - loadEnded < settings.idleSeconds * 1000) {
      await sleep(1_000);
      rested = sampleTree(s.child.pid!);
      // Within 2 %: a few pages of code the JIT compiled under load stay, as they should.
      if (memory(rested).platform_rss_mib <= idleRss * 1.02) {
        backAfterS = Math.round((performance.now() - loadEnded) / 1000);
        break;
      }
    }
    return {
      load_average: loadAtStart,
      ready_ms: s.readyMs,
      printed_ready_ms: s.printedReadyMs,
      rebuilt_bundle: s.rebuiltBundle,
      cpu_ms_to_ready: cpuToReady,
      main_thread_cpu_ms_to_ready: mainThreadCpuToReady,
      processes: idle.map((p) => p.command.split(" ").slice(0, 3).join(" ")),
      idle_after_ready: memory(idle),
      after_load: { ...memory(loaded), requests_per_s: Math.round(r.requests.average) },
      non_2xx: r.non2xx,
      after_idle: { ...memory(rested), back_to_idle_level_after_s: backAfterS },
    };
  } finally {
    await stop(s.child);
    rmSync(dataDir, { recursive: true, force: true });
  }
}

function spread(values: number[]) {
  const v = [...values].sort((a, b) => a - b);
  return { min: v[0]!, median: v[Math.floor(v.length / 2)]!, max: v[v.length - 1]! };
}

// One start of each, not counted: builds the console, the bundle and the template, and fills
// tsx's compile cache, so every counted run starts from what a second `npm start` finds.
const loadStart = load();
for (const v of VARIANTS) {
  process.stderr.write(`warm-up: ${v.name}\n`);
  const dataDir = mkdtempSync(join(tmpdir(), "svc-lean-start-warm-"));
  await stop((await start(v, join(dataDir, "data"))).child);
  rmSync(dataDir, { recursive: true, force: true });
}
const runs: Record<Variant["name"], Awaited<ReturnType<typeof oneRun>>[]> = {
  lean: [],
  reference: [],
};
for (let i = 0; i < settings.runs; i++) {
  for (const v of i % 2 === 0 ? VARIANTS : [...VARIANTS].reverse()) {
    const r = await oneRun(v);
    runs[v.name].push(r);
    process.stderr.write(
      `${v.name} run ${i + 1}: ready ${r.ready_ms} ms (cpu ${r.cpu_ms_to_ready} ms, main thread ${r.main_thread_cpu_ms_to_ready} ms), rss ${r.idle_after_ready.platform_rss_mib} MiB idle, ${r.after_load.platform_rss_mib} MiB after load (${r.after_load.requests_per_s} req/s), ${r.after_idle.platform_rss_mib} MiB after idle (${r.after_idle.back_to_idle_level_after_s === null ? "not back to its idle level" : `back to its idle level after ${r.after_idle.back_to_idle_level_after_s} s`}); load ${r.load_average}\n`,
    );
  }
}
const summary = (name: Variant["name"]) => {
  const rs = runs[name];
  return {
    ready_ms: spread(rs.map((r) => r.ready_ms)),
    cpu_ms_to_ready: spread(rs.map((r) => r.cpu_ms_to_ready)),
    main_thread_cpu_ms_to_ready: spread(rs.map((r) => r.main_thread_cpu_ms_to_ready)),
    platform_rss_mib_idle_after_ready: spread(rs.map((r) => r.idle_after_ready.platform_rss_mib)),
    tree_rss_mib_idle_after_ready: spread(rs.map((r) => r.idle_after_ready.tree_rss_mib)),
    platform_peak_rss_mib_to_ready: spread(rs.map((r) => r.idle_after_ready.platform_peak_rss_mib)),
    platform_rss_mib_after_load: spread(rs.map((r) => r.after_load.platform_rss_mib)),
    platform_rss_mib_after_idle: spread(rs.map((r) => r.after_idle.platform_rss_mib)),
    // Runs whose RSS came back within 2 % of its idle level, and after how long (s).
    back_to_idle_level: {
      runs: rs.filter((r) => r.after_idle.back_to_idle_level_after_s !== null).length,
      of: rs.length,
      after_s: spread(
        rs.flatMap((r) =>
          r.after_idle.back_to_idle_level_after_s === null
            ? []
            : [r.after_idle.back_to_idle_level_after_s],
        ),
      ),
    },
    requests_per_s: spread(rs.map((r) => r.after_load.requests_per_s)),
  };
};
const lean = summary("lean");
const reference = summary("reference");
const ratio = (k: Exclude<keyof typeof lean, "back_to_idle_level">) =>
  Math.round((reference[k].median / lean[k].median) * 100) / 100;
const result = {
  figure: referenceCheckout
    ? `npm start on a fresh data folder vs npm start of the checkout in ${referenceCheckout}, alternated in one run`
    : "npm start on a fresh data folder vs the start as it was (npx tsx all-in-one/src/main.ts, no PGlite template, shared_buffers 128 MiB), alternated in one run",
  machine: machine(),
  load_average: { start: loadStart, end: load() },
  settings,
  goals: { ready_ms: 2000, rss_mib: 300 },
  lean,
  reference,
  reference_over_lean_medians: {
    ready_ms: ratio("ready_ms"),
    cpu_ms_to_ready: ratio("cpu_ms_to_ready"),
    main_thread_cpu_ms_to_ready: ratio("main_thread_cpu_ms_to_ready"),
    platform_rss_mib_idle_after_ready: ratio("platform_rss_mib_idle_after_ready"),
    tree_rss_mib_idle_after_ready: ratio("tree_rss_mib_idle_after_ready"),
    platform_peak_rss_mib_to_ready: ratio("platform_peak_rss_mib_to_ready"),
    platform_rss_mib_after_load: ratio("platform_rss_mib_after_load"),
    requests_per_s: ratio("requests_per_s"),
  },
  runs,
};
const file =
  text("out") ?? fileURLToPath(new URL("../../results/lean-start.json", import.meta.url));
writeFileSync(file, `${JSON.stringify(result, null, 2)}\n`);
process.stdout.write(
  `${JSON.stringify({ lean, reference, ratios: result.reference_over_lean_medians }, null, 2)}\n`,
);
