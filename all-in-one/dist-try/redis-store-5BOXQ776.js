import { createRequire as __svcCreateRequire } from "node:module"; const require = __svcCreateRequire(import.meta.url);
import {
  withDeadline
} from "./chunk-WHDG35AA.js";
import "./chunk-VRQZRDEA.js";

// lib/src/kv/redis-store.ts
import { createClient } from "redis";

// lib/src/kv/coalesced-reads.ts
function coalescedReads(readAll) {
  let batch = [];
  const flush = () => {
    const callers = batch;
    batch = [];
    const unique = [...new Set(callers.flatMap((c) => c.keys))];
    readAll(unique).then(
      (values) => {
        const byKey = new Map(unique.map((k, i) => [k, values[i] ?? null]));
        for (const c of callers) c.settle(byKey);
      },
      (err) => {
        for (const c of callers) c.fail(err);
      }
    );
  };
  return (keys) => {
    if (keys.length === 0) return Promise.resolve([]);
    return new Promise((resolve, reject) => {
      if (batch.length === 0) setImmediate(flush);
      batch.push({
        keys,
        settle: (byKey) => resolve(keys.map((k) => byKey.get(k) ?? null)),
        fail: reject
      });
    });
  };
}

// lib/src/kv/redis-store.ts
async function createRedisStore(url, opts = {}) {
  const timeoutMs = opts.timeoutMs ?? 1e3;
  let connectedOnce = false;
  const client = createClient({
    url,
    disableOfflineQueue: true,
    commandOptions: { timeout: timeoutMs },
    socket: {
      connectTimeout: Math.max(timeoutMs, 2e3),
      // At start an unreachable Redis is a configuration problem: fail with it. Once running,
      // keep reconnecting: the kill-switch pollers report the outage meanwhile.
      reconnectStrategy: (retries, cause) => connectedOnce ? Math.min(100 * 2 ** retries, 2e3) : new Error(`cannot reach Redis at ${redacted(url)}: ${cause.message}`)
    }
  });
  client.on("ready", () => {
    connectedOnce = true;
  });
  client.on("error", () => {
  });
  await client.connect();
  const wrap = async (what, fn) => {
    try {
      return await withDeadline(fn(), timeoutMs * 2, `Redis ${what}`);
    } catch (err) {
      throw new Error(
        `key-value store (Redis) unreachable during ${what}: ${err.message}`,
        { cause: err }
      );
    }
  };
  const mGetTogether = coalescedReads((keys) => client.mGet(keys));
  return {
    get: (key) => wrap("get", () => client.get(key)),
    getMany: (keys) => keys.length === 0 ? Promise.resolve([]) : wrap("mget", () => mGetTogether(keys)),
    set: (key, value, opts2) => wrap(
      "set",
      async () => void await client.set(
        key,
        value,
        opts2?.ttlSeconds ? { EX: opts2.ttlSeconds } : void 0
      )
    ),
    delete: (key) => wrap("delete", async () => await client.del(key) > 0),
    increment: (key, ttlSeconds) => wrap("incr", async () => {
      const n = await client.incr(key);
      if (n === 1) await client.expire(key, ttlSeconds);
      return n;
    }),
    scan: (prefix) => wrap("scan", async () => {
      const keys = [];
      for await (const batch of client.scanIterator({
        MATCH: `${escapeGlob(prefix)}*`,
        COUNT: 500
      }))
        keys.push(...batch);
      if (keys.length === 0) return [];
      const values = await client.mGet(keys);
      return keys.flatMap((key, i) => values[i] == null ? [] : [{ key, value: values[i] }]);
    }),
    ping: () => wrap("ping", async () => void await client.ping()),
    close: async () => {
      if (!client.isOpen) return;
      try {
        if (!client.isReady) throw new Error("not connected");
        await withDeadline(client.quit(), timeoutMs, "Redis quit");
      } catch {
        try {
          client.destroy();
        } catch {
        }
      }
    }
  };
}
function escapeGlob(s) {
  return s.replace(/[*?[\]\\]/g, "\\$&");
}
function redacted(url) {
  const u = new URL(url);
  if (u.password) u.password = "***";
  return u.toString();
}
export {
  createRedisStore
};
//# sourceMappingURL=redis-store-5BOXQ776.js.map
