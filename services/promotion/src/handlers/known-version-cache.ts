import type { KnownVersionRow } from "../store/promotion.table.js";

/** A bot version as a create last found it in the projection, by the artifact's bot_ref and version. */
export interface KnownVersionCache {
  get(botRef: string, version: number): KnownVersionRow | undefined;
  set(botRef: string, version: number, row: KnownVersionRow): void;
  forget(botRef: string, version: number): void;
}

/**
 * The bot versions creates named lately, so a create need not read the projection first. A hint,
 * never the truth: a request gated on a cached row is recorded only if the projection still holds
 * that row (`insertRequestIfProjected`), in the same statement; else the create forgets it and
 * gates again on what the projection holds now. The oldest entry goes first past `max`.
 *
 * @example
 * const versions = knownVersionCache();
 * versions.set("alpha", 1, row);
 * versions.get("alpha", 1); // row
 */
export function knownVersionCache(max = 1024): KnownVersionCache {
  const rows = new Map<string, KnownVersionRow>();
  const key = (botRef: string, version: number) => `${version}\u0000${botRef}`;
  return {
    get: (botRef, version) => rows.get(key(botRef, version)),
    set(botRef, version, row) {
      const k = key(botRef, version);
      rows.delete(k);
      rows.set(k, row);
      if (rows.size > max) rows.delete(rows.keys().next().value!);
    },
    forget: (botRef, version) => void rows.delete(key(botRef, version)),
  };
}
