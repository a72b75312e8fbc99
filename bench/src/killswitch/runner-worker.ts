// One worker of the kill-switch benchmark: N real BotRunner instances, each with its own
// kill-switch watcher (the process's one bus subscription fans out to them; each polls its keys
// on its own), recording when each drained and stopped. The times go to the parent in one message
// once every runner of the worker has stopped (or when the parent asks): one IPC message per
// runner would be work this process and the parent do while other workers are still fanning out
// the broadcast, which is the bench's cost, not the runners'. The times are read from a clock
// without a BigInt per reading (clock.ts).
import { parentPort, workerData } from "node:worker_threads";
import { openEventBus } from "@svc/lib/bus";
import { killSwitchKey, listenKillSwitchKeys } from "@svc/lib/contracts";
import { withDeadline } from "@svc/lib/deadline";
import { sharedClock } from "./clock.js";
import { openKeyValueStore } from "@svc/lib/kv";
import {
  BotRunner,
  generateBars,
  keysFor,
  resolveStrategy,
  watchKillSwitch,
} from "@svc/bots/runtime";

// A worker thread, or (drain-latency.ts --processes) a child process of its own with an IPC
// channel: the same runners, reporting the same way.
const port = parentPort ?? {
  postMessage: (m: unknown) => void process.send!(m),
  on: (_: "message", fn: (m: unknown) => void) => process.on("message", fn),
};
const { count, natsUrl, redisUrl, pollMs, speed, offset } = (workerData ??
  JSON.parse(process.env.BENCH_WORKER_DATA!)) as {
  count: number;
  natsUrl: string;
  redisUrl: string;
  pollMs: number;
  speed: number;
  offset: number;
};
// The monotonic clock every process of the bench shares (hrtime), read without a BigInt per call.
const now = sharedClock();
const say = (what: string) => {
  if (process.env.BENCH_VERBOSE)
    console.error(`${new Date().toISOString()} worker ${offset} ${what}`);
};
const bus = await openEventBus({ url: natsUrl });
const kv = await openKeyValueStore({ url: redisUrl });
const bars = generateBars({ seed: 1, count: 10_000 });
const { family, params } = resolveStrategy("ma_crossover", { fast: 3, slow: 8 });

const draining = new Float64Array(count).fill(NaN);
// When the watcher called the runner's halt: the fan-out reached it.
const halted = new Float64Array(count).fill(NaN);
const stopped = new Float64Array(count).fill(NaN);
const frozen = new Float64Array(count).fill(NaN);
let stoppedCount = 0;
let frozenCount = 0;
// When the broadcast reached this process (the first handler of its subscription is this one,
// ahead of every runner's), and the process's CPU time from then until its last runner stopped.
let heard = NaN;
let cpuAtHeard: NodeJS.CpuUsage | undefined;
let cpuMs = NaN;
const heardListener = listenKillSwitchKeys(bus, [killSwitchKey("platform", "platform")], (e) => {
  if (!e.engaged || cpuAtHeard) return;
  heard = now();
  cpuAtHeard = process.cpuUsage();
});
let reported = false;
const report = () => {
  if (reported) return;
  reported = true;
  port.postMessage({
    heard,
    cpuMs,
    draining: Array.from(draining),
    halted: Array.from(halted),
    stopped: Array.from(stopped),
    frozen: Array.from(frozen),
  });
};

// Other workers may still be handing the broadcast to their runners when this one is done: its
// report (and the parent reading it) waits until they are, so it takes no CPU from them.
const reportSoon = () => void setTimeout(report, 250);

const watchers: Array<ReturnType<typeof watchKillSwitch>> = [];
const runners: BotRunner[] = [];
// The runners' own clock (performance.now()) on the shared one.
const sharedOffset = now() - performance.now();
for (let i = 0; i < count; i++) {
  const slug = `bench-${offset + i}`;
  // The watcher first: it is the runner's gate, as in a paper session.
  const watcher = watchKillSwitch({
    kv,
    bus,
    keys: keysFor(slug, "bench"),
    pollMs,
    onEngage: () => {
      halted[i] = now();
      const stopping = runners[i]!;
      // Draining from when it stopped starting bars: the gate's time if the broadcast closed
      // it, or this halt's.
      void stopping.halt("bench", "cancel").then(() => {
        draining[i] = stopping.drainingSince + sharedOffset;
        stopped[i] = now();
        if (++stoppedCount < count) return;
        if (cpuAtHeard) {
          const cpu = process.cpuUsage(cpuAtHeard);
          cpuMs = (cpu.user + cpu.system) / 1000;
        }
        reportSoon();
      });
    },
    onRelease: () => {},
    onBlind: (blind) => {
      if (!blind) return;
      frozen[i] = now();
      if (++frozenCount === count) reportSoon();
    },
  });
  watchers.push(watcher);
  runners[i] = new BotRunner({
    symbol: "X",
    bars,
    startIndex: 0,
    speed,
    strategy: family.create(params),
    costs: { feeBps: 1, slippageBps: 1, positionSize: 1 },
    broker: { cash: 1e5, units: 0 },
    sink: async () => {},
    killSwitch: watcher,
  });
}
port.postMessage({ ready: count });
port.on("message", async (m) => {
  if (m === "stop") {
    report();
    // A process's message is written asynchronously: exit once it has left.
    if (!parentPort) await new Promise((resolve) => process.send!("stopping", resolve));
    say("reported");
    await heardListener.stop();
    for (const w of watchers) await w.stop();
    say("watchers stopped");
    // The process exits next: a close that does not end in a second (Redis's QUIT has no
    // deadline of its own) must not keep it, and the round, waiting.
    await withDeadline(bus.close(), 1_000, "bus close").catch(() => undefined);
    await withDeadline(kv.close(), 1_000, "kv close").catch(() => say("kv close timed out"));
    process.exit(0);
  }
});
