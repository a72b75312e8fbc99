import type { KeyValueStore } from "./key-value-store.js";

/** In-process store with TTLs, for the all-in-one topology and for tests. */
export function createMemoryStore(now: () => number = Date.now): KeyValueStore {
  const entries = new Map<string, { value: string; expiresAt: number | null }>();
  const live = (key: string) => {
    const e = entries.get(key);
    if (e && e.expiresAt !== null && e.expiresAt <= now()) {
      entries.delete(key);
      return undefined;
    }
    return e;
  };
  return {
    async get(key) {
      return live(key)?.value ?? null;
    },
    async getMany(keys) {
      return keys.map((key) => live(key)?.value ?? null);
    },
    async set(key, value, opts) {
      entries.set(key, {
        value,
        expiresAt: opts?.ttlSeconds ? now() + opts.ttlSeconds * 1000 : null,
      });
    },
    async delete(key) {
      const existed = live(key) !== undefined;
      entries.delete(key);
      return existed;
    },
    async increment(key, ttlSeconds) {
      const e = live(key);
      const value = String(Number(e?.value ?? 0) + 1);
      entries.set(key, { value, expiresAt: e ? e.expiresAt : now() + ttlSeconds * 1000 });
      return Number(value);
    },
    async scan(prefix) {
      return [...entries.keys()]
        .filter((k) => k.startsWith(prefix) && live(k))
        .map((key) => ({ key, value: entries.get(key)!.value }));
    },
    async ping() {},
    async close() {
      entries.clear();
    },
  };
}
