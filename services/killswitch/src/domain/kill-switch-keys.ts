/** The key-value keys of the spec: svc:bots:killswitch:<scope>:<target>. */
export const KEY_PREFIX = "svc:bots:killswitch:";
export const PLATFORM_KEY = `${KEY_PREFIX}platform:platform`;

export type ScopeName = "bot" | "fleet" | "platform";
export type ModeName = "cancel" | "flatten" | "freeze";

export function keyOf(scope: ScopeName, target: string): string {
  return `${KEY_PREFIX}${scope}:${target}`;
}

/** The scope and target a key names, or null for a key outside the kill-switch space. */
export function parseKey(key: string): { scope: ScopeName; target: string } | null {
  const m = /^svc:bots:killswitch:(bot|fleet|platform):(.+)$/.exec(key);
  return m ? { scope: m[1] as ScopeName, target: m[2]! } : null;
}

/** What a key's value says. Any non-empty value engages (a hand-set "1" cancels by default). */
export interface KeyValue {
  name?: string;
  mode: ModeName;
  reason: string;
  by?: string;
}

export function parseKeyValue(value: string): KeyValue {
  try {
    const v = JSON.parse(value) as Partial<KeyValue>;
    if (v && typeof v === "object" && !Array.isArray(v)) {
      const mode = v.mode === "flatten" || v.mode === "freeze" ? v.mode : "cancel";
      return { name: v.name, mode, reason: typeof v.reason === "string" ? v.reason : "", by: v.by };
    }
  } catch {
    // A value set by hand with redis-cli: its text is the reason.
  }
  return { mode: "cancel", reason: value };
}

/** The subject on which engage and release are broadcast. */
export const CHANGED_SUBJECT = "svc.killswitch.changed";

/**
 * Parses a duration such as 4h, 30m, 90s or 1h30m into seconds; null when malformed or zero.
 */
export function ttlSeconds(ttl: string): number | null {
  if (!/^([0-9]+(h|m|s))+$/.test(ttl)) return null;
  let total = 0;
  for (const [, n, unit] of ttl.matchAll(/([0-9]+)(h|m|s)/g))
    total += Number(n) * (unit === "h" ? 3600 : unit === "m" ? 60 : 1);
  return total > 0 ? total : null;
}
