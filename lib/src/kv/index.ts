import type { KeyValueStore } from "./key-value-store.js";
import { createMemoryStore } from "./memory-store.js";
import { createRedisStore } from "./redis-store.js";

export type { KeyValueStore };
export { createMemoryStore, createRedisStore };

/** Redis when a URL is configured, the in-process store otherwise. */
export async function openKeyValueStore(opts: {
  url?: string;
  timeoutMs?: number;
}): Promise<KeyValueStore> {
  return opts.url ? createRedisStore(opts.url, { timeoutMs: opts.timeoutMs }) : createMemoryStore();
}
