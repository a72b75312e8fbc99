import { randomBytes } from "node:crypto";
import { createClient } from "redis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eventually } from "../../../test/support/until.js";
import { createMemoryStore, openKeyValueStore, type KeyValueStore } from "./index.js";

const redisUrl = process.env.SVC_TEST_REDIS_URL ?? "redis://127.0.0.1:6379";

/** The in-process store's clock, moved by the test instead of waiting. */
let now = Date.now();

describe.each([
  [
    "in-process",
    () => Promise.resolve(createMemoryStore(() => now)),
    (ms: number) => void (now += ms),
  ],
  // Redis keeps its own time: the test waits for the key to go.
  ["redis", () => openKeyValueStore({ url: redisUrl }), () => {}],
] as const)("key-value store: %s", (_name, open, timePasses) => {
  let kv: KeyValueStore;
  const ns = `svc-test:${randomBytes(4).toString("hex")}:`;
  beforeAll(async () => {
    kv = await open();
  });
  afterAll(async () => {
    for (const { key } of await kv.scan(ns)) await kv.delete(key);
    await kv.close();
  });

  it("sets, gets, deletes", async () => {
    expect(await kv.get(`${ns}a`)).toBeNull();
    await kv.set(`${ns}a`, "1");
    expect(await kv.get(`${ns}a`)).toBe("1");
    expect(await kv.delete(`${ns}a`)).toBe(true);
    expect(await kv.delete(`${ns}a`)).toBe(false);
  });

  it("reads several keys in one call, in the order asked, missing ones as null", async () => {
    await kv.set(`${ns}m1`, "one");
    await kv.set(`${ns}m3`, "three");
    expect(await kv.getMany([`${ns}m3`, `${ns}m2`, `${ns}m1`])).toEqual(["three", null, "one"]);
    expect(await kv.getMany([])).toEqual([]);
  });

  it("scans by a literal prefix, glob characters included", async () => {
    await kv.set(`${ns}ks:bot:x`, "engaged");
    await kv.set(`${ns}ks:fleet:y`, "engaged");
    await kv.set(`${ns}k*:bot:z`, "star");
    await kv.set(`${ns}other`, "no");
    const keys = (await kv.scan(`${ns}ks:`)).map((e) => e.key).sort();
    expect(keys).toEqual([`${ns}ks:bot:x`, `${ns}ks:fleet:y`]);
    expect((await kv.scan(`${ns}k*`)).map((e) => e.value)).toEqual(["star"]);
  });

  it("expires keys after their TTL", async () => {
    await kv.set(`${ns}ttl`, "v", { ttlSeconds: 1 });
    expect(await kv.get(`${ns}ttl`)).toBe("v");
    timePasses(1_000);
    await eventually(
      "the key expires",
      () => kv.get(`${ns}ttl`),
      (v) => v === null,
      3_000,
    );
  });
});

describe("redis store and a plain Redis client see the same keys", () => {
  it("a key set by hand (as with redis-cli) is read by the store", async () => {
    const raw = createClient({ url: redisUrl });
    await raw.connect();
    const kv = await openKeyValueStore({ url: redisUrl });
    const key = `svc-test:${randomBytes(4).toString("hex")}:svc:bots:killswitch:platform:platform`;
    await raw.set(key, "drill");
    expect(await kv.get(key)).toBe("drill");
    await kv.delete(key);
    expect(await raw.get(key)).toBeNull();
    await raw.quit();
    await kv.close();
  });

  it("fails fast with a clear error, without crashing, when Redis is unreachable", async () => {
    await expect(openKeyValueStore({ url: "redis://:secret@127.0.0.1:1" })).rejects.toThrow(
      /cannot reach Redis at redis:\/\/:\*\*\*@127.0.0.1:1/,
    );
  });
});

// Thousands of kill-switch watchers in one process poll together (they start together): each
// poll must be answered, and Redis must not be sent one command per watcher. One MGET each once
// queued 10,000 commands on one connection that outlived their deadlines unwritten, after which
// the client failed every poll (reproduced with node-redis 5.12 at load 6 on 2 cores).
describe("key-value store: redis, a burst of polls", () => {
  it("answers 10,000 reads started at once with a few MGETs", async () => {
    const kv = await openKeyValueStore({ url: redisUrl });
    const admin = createClient({ url: redisUrl });
    await admin.connect();
    const mgets = async () => {
      const line = (await admin.info("commandstats"))
        .split("\n")
        .find((l) => l.startsWith("cmdstat_mget:"));
      return Number(/calls=(\d+)/.exec(line ?? "")?.[1] ?? 0);
    };
    const ns = `svc-test:${randomBytes(4).toString("hex")}:`;
    try {
      await kv.set(`${ns}platform`, "engaged");
      const before = await mgets();
      for (let round = 0; round < 3; round++) {
        const answers = await Promise.all(
          Array.from({ length: 10_000 }, (_, i) =>
            kv.getMany([`${ns}platform`, `${ns}fleet:${i % 10}`, `${ns}bot:${i}`]),
          ),
        );
        expect(answers.filter((a) => a[0] === "engaged" && a[2] === null)).toHaveLength(10_000);
      }
      // Other test files share this Redis: a bound far under one command per read.
      expect((await mgets()) - before).toBeLessThan(1_000);
    } finally {
      await kv.delete(`${ns}platform`);
      await kv.close();
      await admin.quit();
    }
  });
});
