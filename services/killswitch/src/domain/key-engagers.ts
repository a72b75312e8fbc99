import { readKillSwitchValue, type KillSwitchModeName } from "@svc/lib/contracts";

/** One switch holding a key engaged. */
export interface Engager {
  mode: KillSwitchModeName;
  reason: string;
  by: string;
  /** Epoch milliseconds at which a timed switch lapses; null until released. */
  expiresAt: number | null;
}

/**
 * Everything that holds one key engaged: the named switches of this service, and a value set by
 * hand (redis-cli), kept verbatim, that only deleting it releases.
 */
export interface KeyEngagers {
  switches: Record<string, Engager>;
  manual: string | null;
}

/** Stricter modes win when several switches hold one key: freeze < cancel < flatten. */
const STRICTNESS: Record<KillSwitchModeName, number> = { freeze: 0, cancel: 1, flatten: 2 };
export const MAX_TTL_SECONDS = 30 * 86_400;

export function strictest(modes: KillSwitchModeName[]): KillSwitchModeName | null {
  return modes.reduce<KillSwitchModeName | null>(
    (a, m) => (a === null || STRICTNESS[m] > STRICTNESS[a] ? m : a),
    null,
  );
}

interface StoredValue {
  mode: KillSwitchModeName;
  reason: string;
  name: string;
  by: string;
  switches: Record<string, Engager>;
  manual?: string;
}

/**
 * Reads a key's value. Values this service wrote carry `switches`; a value written by the
 * previous version (one `name`) is that one switch when it names a known switch; anything else
 * was set by hand.
 */
export function readEngagers(raw: string | null, knownNames: ReadonlySet<string>): KeyEngagers {
  if (raw === null || raw === "") return { switches: {}, manual: null };
  try {
    const v = JSON.parse(raw) as Partial<StoredValue> | null;
    if (v && typeof v === "object" && !Array.isArray(v)) {
      if (v.switches && typeof v.switches === "object")
        return {
          switches: { ...v.switches },
          manual: typeof v.manual === "string" ? v.manual : null,
        };
      if (typeof v.name === "string" && knownNames.has(v.name)) {
        const legacy = readKillSwitchValue(raw);
        return {
          switches: {
            [v.name]: {
              mode: legacy.mode,
              reason: legacy.reason,
              by: legacy.by ?? "",
              expiresAt: null,
            },
          },
          manual: null,
        };
      }
    }
  } catch {
    // not JSON: set by hand
  }
  return { switches: {}, manual: raw };
}

/**
 * The value a key must hold for its engagers, or null when nothing holds it (the key is
 * deleted). The top-level mode and reason are what runners read: the strictest engager's.
 */
export function valueFor(e: KeyEngagers): { value: string; ttlSeconds?: number } | null {
  const names = Object.keys(e.switches).sort();
  if (names.length === 0 && e.manual === null) return null;
  const manualMode = e.manual === null ? null : readKillSwitchValue(e.manual).mode;
  const mode = strictest([
    ...names.map((n) => e.switches[n]!.mode),
    ...(manualMode ? [manualMode] : []),
  ])!;
  const winner = names.find((n) => e.switches[n]!.mode === mode);
  const reason = winner ? e.switches[winner]!.reason : readKillSwitchValue(e.manual!).reason;
  const stored: StoredValue = {
    mode,
    reason:
      names.length + (e.manual === null ? 0 : 1) > 1
        ? `${reason} (and ${names.length + (e.manual === null ? 0 : 1) - 1} more)`
        : reason,
    name: winner ?? "(set by hand)",
    by: winner ? e.switches[winner]!.by : "(set directly in the key-value store)",
    switches: Object.fromEntries(names.map((n) => [n, e.switches[n]!])),
    ...(e.manual === null ? {} : { manual: e.manual }),
  };
  // When every engager is timed, the key lapses by itself with the last of them, even if this
  // service is down; any untimed engager keeps it until released.
  const expiries = names.map((n) => e.switches[n]!.expiresAt);
  const allTimed = e.manual === null && expiries.every((x) => x !== null);
  const ttlSeconds = allTimed
    ? Math.max(1, Math.ceil((Math.max(...(expiries as number[])) - Date.now()) / 1000))
    : undefined;
  return { value: JSON.stringify(stored), ...(ttlSeconds ? { ttlSeconds } : {}) };
}

/** Whether two values hold the same engagers (the reconciler rewrites a key only when not). */
export function sameEngagers(a: KeyEngagers, b: KeyEngagers): boolean {
  return (valueFor(a)?.value ?? null) === (valueFor(b)?.value ?? null);
}
