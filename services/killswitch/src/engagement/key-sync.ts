import type { Kysely, Transaction } from "kysely";
import type { EventBus } from "@svc/lib/bus";
import type { KeyValueStore } from "@svc/lib/kv";
import { readEngagers, valueFor, type Engager, type KeyEngagers } from "../domain/key-engagers.js";
import {
  killSwitchKey,
  publishKillSwitchChanged,
  type KillSwitchModeName,
  type KillSwitchScopeName,
} from "@svc/lib/contracts";
import { switchesOn, switchNames } from "../store/killswitch.repository.js";
import type { KillSwitchDatabase, KillSwitchRow } from "../store/killswitch.table.js";

export interface KeyDeps {
  db: Kysely<KillSwitchDatabase>;
  kv: KeyValueStore;
  bus: EventBus;
}

/** What one write of a key did: the engagers before and after, or why the store refused it. */
export interface KeySync {
  key: string;
  before: KeyEngagers | null;
  after: KeyEngagers;
  error?: Error;
}

export const engagerOf = (row: KillSwitchRow): Engager => ({
  mode: row.mode,
  reason: row.reason,
  by: row.engaged_by,
  expiresAt: row.expires_at ? new Date(row.expires_at).getTime() : null,
});

/**
 * Makes one key hold exactly the switches the database has on it (unexpired), plus the value set
 * by hand unless `dropManual`. Runs inside the caller's transaction, under the key's lock. A
 * store that does not answer is reported, not thrown: the caller decides whether that undoes
 * its change.
 */
export async function syncKey(
  trx: Transaction<KillSwitchDatabase>,
  kv: KeyValueStore,
  scope: KillSwitchScopeName,
  target: string,
  opts: { dropManual?: boolean } = {},
): Promise<KeySync> {
  const key = killSwitchKey(scope, target);
  const now = Date.now();
  const rows = (await switchesOn(trx, scope, target)).filter(
    (r) => !r.expires_at || new Date(r.expires_at).getTime() > now,
  );
  const after: KeyEngagers = {
    switches: Object.fromEntries(rows.map((r) => [r.name, engagerOf(r)])),
    manual: null,
  };
  let before: KeyEngagers | null = null;
  try {
    before = readEngagers(await kv.get(key), await switchNames(trx));
    after.manual = opts.dropManual ? null : before.manual;
    const next = valueFor(after);
    if (next === null) await kv.delete(key);
    else
      await kv.set(key, next.value, next.ttlSeconds ? { ttlSeconds: next.ttlSeconds } : undefined);
    return { key, before, after };
  } catch (err) {
    return { key, before, after, error: err as Error };
  }
}

/** Tells every runner at once; the key is the truth their polls fall back on. */
export function broadcastKey(
  bus: EventBus,
  key: string,
  engaged: boolean,
  mode: KillSwitchModeName,
  reason: string,
): Promise<void> {
  return publishKillSwitchChanged(bus, { key, engaged, mode, reason });
}

/** Broadcasts what a sync changed: released when nothing holds the key any more, engaged otherwise. */
export function broadcastSync(bus: EventBus, s: KeySync, why: string): Promise<void> {
  const next = valueFor(s.after);
  if (next === null)
    return publishKillSwitchChanged(bus, { key: s.key, engaged: false, reason: why });
  const v = JSON.parse(next.value) as { mode: KillSwitchModeName; reason: string };
  return broadcastKey(bus, s.key, true, v.mode, v.reason);
}
