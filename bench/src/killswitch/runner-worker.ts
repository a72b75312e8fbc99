// One worker thread of the kill-switch benchmark: N real BotRunner instances, each with its own
// bus subscription and its own key-value poll loop, reporting when each drained and stopped.
import { parentPort, workerData } from "node:worker_threads";
import { openEventBus } from "@svc/lib/bus";
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
  postMessage: (m: unknown) => process.send!(m),
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
const now = () => Number(process.hrtime.bigint()) / 1e6;
const bus = await openEventBus({ url: natsUrl });
const kv = await openKeyValueStore({ url: redisUrl });
const bars = generateBars({ seed: 1, count: 10_000 });
const { family, params } = resolveStrategy("ma_crossover", { fast: 3, slow: 8 });

const watchers: Array<ReturnType<typeof watchKillSwitch>> = [];
for (let i = 0; i < count; i++) {
  const slug = `bench-${offset + i}`;
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
      keys: keysFor(slug, "bench"),
      pollMs,
      onEngage: () => {
        const draining = now();
        void runner
          .halt("bench", "cancel")
          .then(() => port.postMessage({ draining, stopped: now() }));
      },
      onRelease: () => {},
      onBlind: (blind) => {
        if (blind) port.postMessage({ frozen: now() });
      },
    }),
  );
}
port.postMessage({ ready: count });
port.on("message", async (m) => {
  if (m === "stop") {
    for (const w of watchers) await w.stop();
    await bus.close().catch(() => undefined);
    await kv.close().catch(() => undefined);
    process.exit(0);
  }
});
