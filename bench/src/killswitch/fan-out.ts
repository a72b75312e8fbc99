// bench/killswitch/fan-out: what one runner process spends per runner when a kill-switch
// broadcast reaches it. N real BotRunner instances and their watchers on the in-process bus and
// store (no network: the process's own cost only); a broadcast of the platform key, then the
// time until every runner is Draining (the synchronous fan-out) and until every one is Stopped
// (the stopping work the microtasks after it do). Rounds alternate, each with fresh runners.
// Usage: npx tsx bench/src/killswitch/fan-out.ts [--runners 1250] [--rounds 10] [--speed 2]
import { performance } from "node:perf_hooks";
import { createMemoryBus } from "@svc/lib/bus";
import { createMemoryStore } from "@svc/lib/kv";
import { killSwitchKey, publishKillSwitchChanged } from "@svc/lib/contracts";
import {
  BotRunner,
  generateBars,
  keysFor,
  resolveStrategy,
  watchKillSwitch,
} from "@svc/bots/runtime";

const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
};
const runners = arg("runners", 1250);
const rounds = arg("rounds", 10);
const speed = arg("speed", 2);
const bars = generateBars({ seed: 1, count: 10_000 });
const { family, params } = resolveStrategy("ma_crossover", { fast: 3, slow: 8 });

async function round(r: number) {
  const bus = createMemoryBus();
  const kv = createMemoryStore();
  const draining = new Float64Array(runners);
  const stopped = new Float64Array(runners);
  let left = runners;
  let allStopped!: () => void;
  const done = new Promise<void>((resolve) => (allStopped = resolve));
  const watchers = [];
  for (let i = 0; i < runners; i++) {
    const runner = new BotRunner({
      symbol: "X",
      bars,
      startIndex: 0,
      speed,
      strategy: family.create(params),
      costs: { feeBps: 1, slippageBps: 1, positionSize: 1 },
      broker: { cash: 1e5, units: 0 },
      sink: async () => {},
    });
    watchers.push(
      watchKillSwitch({
        kv,
        bus,
        keys: keysFor(`bench-${r}-${i}`, "bench"),
        pollMs: 5_000,
        onEngage: () => {
          draining[i] = performance.now();
          void runner.halt("bench", "cancel").then(() => {
            stopped[i] = performance.now();
            if (--left === 0) allStopped();
          });
        },
        onRelease: () => {},
        onBlind: () => {},
      }),
    );
  }
  // Every runner in its pace wait, every poll loop past its first poll.
  await new Promise((resolve) => setTimeout(resolve, 600));
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  void publishKillSwitchChanged(bus, {
    key: killSwitchKey("platform", "platform"),
    engaged: true,
    mode: "cancel",
    reason: "bench",
  });
  const fannedOut = performance.now();
  await done;
  const end = performance.now();
  const cpu = process.cpuUsage(cpu0);
  for (const w of watchers) await w.stop();
  await bus.close();
  const us = (ms: number) => Math.round((ms * 1e6) / runners) / 1000;
  return {
    fan_out_us_per_runner: us(fannedOut - t0),
    last_draining_ms: Math.round((draining.reduce((a, b) => Math.max(a, b)) - t0) * 100) / 100,
    stopped_us_per_runner: us(end - fannedOut),
    last_stopped_ms: Math.round((stopped.reduce((a, b) => Math.max(a, b)) - t0) * 100) / 100,
    cpu_ms: Math.round((cpu.user + cpu.system) / 10) / 100,
  };
}

const rows = [];
for (let r = 0; r < rounds; r++) {
  const row = await round(r);
  console.log(row);
  rows.push(row);
}
const median = (xs: number[]) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
console.log({
  runners,
  // The machine is shared: the least a round took is the one least interrupted.
  min_fan_out_us_per_runner: Math.min(...rows.map((x) => x.fan_out_us_per_runner)),
  min_stopped_us_per_runner: Math.min(...rows.map((x) => x.stopped_us_per_runner)),
  median_fan_out_us_per_runner: median(rows.map((x) => x.fan_out_us_per_runner)),
  median_last_draining_ms: median(rows.map((x) => x.last_draining_ms)),
  median_stopped_us_per_runner: median(rows.map((x) => x.stopped_us_per_runner)),
  median_last_stopped_ms: median(rows.map((x) => x.last_stopped_ms)),
});
process.exit(0);
