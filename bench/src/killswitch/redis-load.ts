// bench/killswitch/redis-load: what the runners' kill-switch polls cost Redis. N watchers (the
// runner's own, keys of a bot in a fleet: three per MGET) against a private Redis, counted by
// Redis itself (INFO commandstats) over windows of one poll interval once the first polls are past.
// Without runners beside them (their bars), so no process is too busy to poll on time: the count
// is what N runners ask of Redis, however many processes they are spread over.
// Usage: npx tsx bench/src/killswitch/redis-load.ts [--watchers 10000] [--windows 3] [--out FILE]
import { writeFileSync } from "node:fs";
import { loadavg } from "node:os";
import { fileURLToPath } from "node:url";
import { createMemoryBus } from "@svc/lib/bus";
import { withDeadline } from "@svc/lib/deadline";
import { openKeyValueStore } from "@svc/lib/kv";
import { keysFor, watchKillSwitch } from "@svc/bots/runtime";
import { startPrivateRedis } from "../../../test/support/private-servers.js";
import { machine } from "../machine.js";
import { commandStats, redisCpuMs, redisInfo, totalCalls } from "./redis-info.js";

const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
};
const watchers = arg("watchers", 10_000);
const windows = arg("windows", 3);
const pollMs = 5_000;
const outAt = process.argv.indexOf("--out");
const loadAtStart = loadavg()[0];

const redis = await startPrivateRedis();
const kv = await openKeyValueStore({ url: redis.url });
const bus = createMemoryBus();
// Polls the watchers began and polls that failed (the store's own deadline): Redis counts only
// the commands that reached it.
let polls = 0;
let failed = 0;
const counted = {
  ...kv,
  getMany: (keys: string[]) => {
    polls++;
    return kv.getMany(keys).catch((err: unknown) => {
      failed++;
      throw err;
    });
  },
};
const watching = Array.from({ length: watchers }, (_, i) =>
  watchKillSwitch({
    kv: counted,
    bus,
    keys: keysFor(`bench-${i}`, "bench"),
    pollMs,
    onEngage: () => {},
    onRelease: () => {},
    onBlind: () => {},
  }),
);
// The first polls come all at once, as the watchers start; count from the next interval on.
await new Promise((r) => setTimeout(r, pollMs));
const rows = [];
for (let w = 0; w < windows; w++) {
  const before = await redisInfo(redis.url);
  const [polls0, failed0] = [polls, failed];
  const t0 = performance.now();
  await new Promise((r) => setTimeout(r, pollMs));
  const after = await redisInfo(redis.url);
  const scale = pollMs / (performance.now() - t0);
  const delta = (f: (i: Map<string, string>) => number) => (f(after) - f(before)) * scale;
  const bytes = (field: string) => delta((i) => Number(i.get(field) ?? 0));
  const mget = delta((i) => commandStats(i, "mget").calls);
  rows.push({
    polls_begun_per_poll_interval: Math.round((polls - polls0) * scale),
    polls_failed_per_poll_interval: Math.round((failed - failed0) * scale),
    mget_per_poll_interval: Math.round(mget),
    commands_per_poll_interval: Math.round(delta(totalCalls)),
    mget_usec_in_redis_per_call:
      Math.round((delta((i) => commandStats(i, "mget").usec) / mget) * 100) / 100,
    redis_cpu_ms_per_poll_interval: Math.round(delta(redisCpuMs) * 10) / 10,
    kib_in_per_poll_interval: Math.round(bytes("total_net_input_bytes") / 1024),
    kib_out_per_poll_interval: Math.round(bytes("total_net_output_bytes") / 1024),
  });
  console.log(rows.at(-1));
}
for (const w of watching) await w.stop();
await withDeadline(kv.close(), 2_000, "Redis close").catch(() => undefined);
await redis.stop();
const result = {
  benchmark:
    "Redis load of the kill-switch polls: one MGET of a runner's three keys per runner per poll interval (jittered 0.9-1.0 of it)",
  machine: machine(),
  command: `npx tsx bench/src/killswitch/redis-load.ts ${process.argv.slice(2).join(" ")}`,
  settings: { watchers, poll_interval_s: pollMs / 1000, keys_per_mget: 3 },
  load_average_1m: { start: loadAtStart, end: loadavg()[0] },
  windows: rows,
};
writeFileSync(
  outAt > 0
    ? process.argv[outAt + 1]!
    : fileURLToPath(new URL("../../results/killswitch-redis-load.json", import.meta.url)),
  `${JSON.stringify(result, null, 2)}\n`,
);
process.exit(0);
