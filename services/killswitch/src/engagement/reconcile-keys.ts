import { readEngagers, sameEngagers, type KeyEngagers } from "../domain/key-engagers.js";
import {
  KILL_SWITCH_KEY_PREFIX,
  killSwitchKey,
  parseKillSwitchKey,
  type KillSwitchScopeName,
} from "@svc/lib/contracts";
import {
  deleteLapsedSwitch,
  recordAudit,
  listSwitches,
  lockKey,
} from "../store/killswitch.repository.js";
import { broadcastSync, engagerOf, syncKey, type KeyDeps } from "./key-sync.js";

/**
 * One pass that makes the keys agree with the switches recorded in the database: switches whose
 * TTL elapsed are released (row, audit and key together), a key that lacks a recorded switch (a
 * write that failed, a crash between commit and write, a key deleted by hand) gets it back, and
 * a key holding a switch that has no row (a crash before commit) loses it. Returns the keys it
 * rewrote. Runs every second; a store that does not answer makes it throw, and the next pass
 * tries again.
 */
export async function reconcileKeys(deps: KeyDeps): Promise<string[]> {
  // One read of the rows per pass: lapsed switches and the keys to look at both derive from it.
  const rows = await listSwitches(deps.db);
  const now = Date.now();
  const lapsedAt = (r: (typeof rows)[number]) =>
    r.expires_at !== null && new Date(r.expires_at).getTime() <= now;
  const expired = rows.filter(lapsedAt);
  const names = new Set(rows.map((r) => r.name));
  const stored = new Map((await deps.kv.scan(KILL_SWITCH_KEY_PREFIX)).map((e) => [e.key, e.value]));
  const targets = new Map<string, { scope: KillSwitchScopeName; target: string }>();
  for (const r of rows)
    targets.set(killSwitchKey(r.scope, r.target), { scope: r.scope, target: r.target });
  for (const key of stored.keys()) {
    const k = parseKillSwitchKey(key);
    if (k) targets.set(key, k);
  }
  const rewritten: string[] = [];
  for (const [key, { scope, target }] of targets) {
    const lapsed = expired.filter((r) => r.scope === scope && r.target === target);
    const wanted: KeyEngagers = {
      switches: Object.fromEntries(
        rows
          .filter((r) => r.scope === scope && r.target === target && !lapsedAt(r))
          .map((r) => [r.name, engagerOf(r)]),
      ),
      manual: null,
    };
    const current = readEngagers(stored.get(key) ?? null, names);
    wanted.manual = current.manual;
    if (lapsed.length === 0 && sameEngagers(current, wanted)) continue;
    const sync = await deps.db.transaction().execute(async (trx) => {
      await lockKey(trx, key);
      for (const r of lapsed) {
        if (await deleteLapsedSwitch(trx, r))
          await recordAudit(
            trx,
            { system: "system:ttl-sweep" },
            {
              action: "killswitch.released",
              outcome: "succeeded",
              resource: `kill_switch/${r.name}`,
              details: { name: r.name, key, reason: "ttl elapsed" },
            },
          );
      }
      const s = await syncKey(trx, deps.kv, scope, target);
      // An unwritten key must not leave a lapsed switch's row deleted: roll back, retry next pass.
      if (s.error) throw s.error;
      return s;
    });
    rewritten.push(key);
    await broadcastSync(deps.bus, sync, lapsed.length > 0 ? "ttl elapsed" : "reconciled");
  }
  return rewritten;
}
