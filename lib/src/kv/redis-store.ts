import { createClient } from "redis";
import { withDeadline } from "../deadline/index.js";
import { coalescedReads } from "./coalesced-reads.js";
import type { KeyValueStore } from "./key-value-store.js";

/**
 * Redis through node-redis. Commands fail fast while disconnected (no offline queue) so a kill
 * switch poller learns at once that the store is unreachable instead of waiting on a queue, and
 * every command has a deadline: a Redis that is stopped with its connection open (SIGSTOP, a
 * frozen VM) accepts commands and never answers, and must look unreachable too.
 */
export async function createRedisStore(
  url: string,
  opts: { timeoutMs?: number } = {},
): Promise<KeyValueStore> {
  const timeoutMs = opts.timeoutMs ?? 1_000;
  let connectedOnce = false;
  const client = createClient({
    url,
    disableOfflineQueue: true,
    commandOptions: { timeout: timeoutMs },
    socket: {
      connectTimeout: Math.max(timeoutMs, 2_000),
      // At start an unreachable Redis is a configuration problem: fail with it. Once running,
      // keep reconnecting: the kill-switch pollers report the outage meanwhile.
      reconnectStrategy: (retries, cause) =>
        connectedOnce
          ? Math.min(100 * 2 ** retries, 2_000)
          : new Error(`cannot reach Redis at ${redacted(url)}: ${cause.message}`),
    },
  });
  client.on("ready", () => {
    connectedOnce = true;
  });
  // Without a listener, a connection error would be an unhandled 'error' event and crash the process.
  client.on("error", () => {});
  await client.connect();
  const wrap = async <T>(what: string, fn: () => Promise<T>): Promise<T> => {
    try {
      // A scan is several commands: the whole call gets the deadline too, not just each command.
      return await withDeadline(fn(), timeoutMs * 2, `Redis ${what}`);
    } catch (err) {
      throw new Error(
        `key-value store (Redis) unreachable during ${what}: ${(err as Error).message}`,
        { cause: err },
      );
    }
  };
  const mGetTogether = coalescedReads((keys) => client.mGet(keys));
  return {
    get: (key) => wrap("get", () => client.get(key)),
    getMany: (keys) =>
      keys.length === 0 ? Promise.resolve([]) : wrap("mget", () => mGetTogether(keys)),
    set: (key, value, opts) =>
      wrap(
        "set",
        async () =>
          void (await client.set(
            key,
            value,
            opts?.ttlSeconds ? { EX: opts.ttlSeconds } : undefined,
          )),
      ),
    delete: (key) => wrap("delete", async () => (await client.del(key)) > 0),
    increment: (key, ttlSeconds) =>
      wrap("incr", async () => {
        const n = await client.incr(key);
        // Only the first count sets the lifetime, so the window does not slide with each call.
        if (n === 1) await client.expire(key, ttlSeconds);
        return n;
      }),
    scan: (prefix) =>
      wrap("scan", async () => {
        const keys: string[] = [];
        for await (const batch of client.scanIterator({
          MATCH: `${escapeGlob(prefix)}*`,
          COUNT: 500,
        }))
          keys.push(...batch);
        if (keys.length === 0) return [];
        const values = await client.mGet(keys);
        return keys.flatMap((key, i) => (values[i] == null ? [] : [{ key, value: values[i]! }]));
      }),
    ping: () => wrap("ping", async () => void (await client.ping())),
    close: async () => {
      if (!client.isOpen) return;
      try {
        // QUIT needs the server: without it, it would wait for a reconnect that may never come.
        if (!client.isReady) throw new Error("not connected");
        // A Redis that hangs never answers QUIT: a close must still end.
        await withDeadline(client.quit(), timeoutMs, "Redis quit");
      } catch {
        // Quitting needs the server; without it, drop the connection attempts instead.
        try {
          client.destroy();
        } catch {
          // already closed
        }
      }
    },
  };
}

/** Redis MATCH is a glob: a literal prefix must escape its glob characters. */
function escapeGlob(s: string): string {
  return s.replace(/[*?[\]\\]/g, "\\$&");
}

function redacted(url: string): string {
  const u = new URL(url);
  if (u.password) u.password = "***";
  return u.toString();
}
