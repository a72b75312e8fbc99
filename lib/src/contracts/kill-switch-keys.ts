import { getOption } from "@bufbuild/protobuf";
import { key_pattern, Mode, Scope, ScopeSchema } from "@svc/gen/svc/killswitch/v1/killswitch_pb.js";

/** The scopes of a kill switch, as keys and stored rows spell them. */
export type KillSwitchScopeName = "bot" | "fleet" | "platform";
/** What a halted runner does: cancel its orders, flatten its position, or freeze in place. */
export type KillSwitchModeName = "cancel" | "flatten" | "freeze";

const SCOPES: Record<KillSwitchScopeName, Scope> = {
  bot: Scope.BOT,
  fleet: Scope.FLEET,
  platform: Scope.PLATFORM,
};

/** Each scope's key pattern, split around `{target}`, read once from the proto's `key_pattern`. */
const PATTERNS = Object.fromEntries(
  Object.entries(SCOPES).map(([name, scope]) => {
    const pattern = getOption(ScopeSchema.value[scope]!, key_pattern);
    const [prefix, suffix, ...rest] = pattern.split("{target}");
    if (prefix === undefined || suffix === undefined || rest.length > 0)
      throw new TypeError(
        `svc.killswitch.v1.Scope ${name} needs a key_pattern with one {target}, has "${pattern}"`,
      );
    return [name, { prefix, suffix }];
  }),
) as Record<KillSwitchScopeName, { prefix: string; suffix: string }>;

const commonPrefix = (a: string, b: string) => {
  let i = 0;
  while (i < a.length && a[i] === b[i]) i++;
  return a.slice(0, i);
};

/**
 * The prefix every kill-switch key starts with: what to scan the key-value store for.
 *
 * @example await kv.scan(KILL_SWITCH_KEY_PREFIX)
 */
export const KILL_SWITCH_KEY_PREFIX = Object.values(PATTERNS)
  .map((p) => p.prefix)
  .reduce(commonPrefix);

/**
 * The key-value key a switch of `scope` over `target` is written to.
 *
 * @example killSwitchKey("fleet", "majors") // "svc:bots:killswitch:fleet:majors"
 */
export function killSwitchKey(scope: KillSwitchScopeName, target: string): string {
  const p = PATTERNS[scope];
  return `${p.prefix}${target}${p.suffix}`;
}

/** The one key of the platform scope: engaged, it halts every bot. */
export const PLATFORM_KILL_SWITCH_KEY = killSwitchKey("platform", "platform");

/** The scope and target a key names, or null for a key outside the kill-switch space. */
export function parseKillSwitchKey(
  key: string,
): { scope: KillSwitchScopeName; target: string } | null {
  for (const [scope, p] of Object.entries(PATTERNS) as [
    KillSwitchScopeName,
    { prefix: string; suffix: string },
  ][]) {
    if (
      key.length > p.prefix.length + p.suffix.length &&
      key.startsWith(p.prefix) &&
      key.endsWith(p.suffix)
    )
      return { scope, target: key.slice(p.prefix.length, key.length - p.suffix.length) };
  }
  return null;
}

/**
 * The keys that halt a bot, most general first: the platform, its fleet (when it has one), the
 * bot itself (when its slug is known).
 *
 * @example killSwitchKeysCovering("eth-1", "majors") // platform, fleet majors, bot eth-1
 */
export function killSwitchKeysCovering(
  slug: string | null | undefined,
  fleet: string | null | undefined,
): string[] {
  return [
    PLATFORM_KILL_SWITCH_KEY,
    ...(fleet ? [killSwitchKey("fleet", fleet)] : []),
    ...(slug ? [killSwitchKey("bot", slug)] : []),
  ];
}

/** What a key's value says. Any non-empty value engages (a hand-set "1" cancels by default). */
export interface KillSwitchValue {
  name?: string;
  mode: KillSwitchModeName;
  reason: string;
  by?: string;
}

/**
 * Reads a key's value: the JSON the killswitch service writes, or text set by hand with
 * redis-cli (its text is the reason, the mode is cancel).
 */
export function readKillSwitchValue(value: string): KillSwitchValue {
  try {
    const v = JSON.parse(value) as Partial<KillSwitchValue> | null;
    if (v && typeof v === "object" && !Array.isArray(v)) {
      const mode = v.mode === "flatten" || v.mode === "freeze" ? v.mode : "cancel";
      return { name: v.name, mode, reason: typeof v.reason === "string" ? v.reason : "", by: v.by };
    }
  } catch {
    // A value set by hand with redis-cli: its text is the reason.
  }
  return { mode: "cancel", reason: value };
}

const MODES: Record<KillSwitchModeName, Mode> = {
  cancel: Mode.CANCEL,
  flatten: Mode.FLATTEN,
  freeze: Mode.FREEZE,
};

/** The proto value of a mode name. */
export const killSwitchMode = (name: KillSwitchModeName): Mode => MODES[name];

/** The name of a proto mode; unspecified reads as cancel, the default halt. */
export const killSwitchModeName = (mode: Mode): KillSwitchModeName =>
  mode === Mode.FLATTEN ? "flatten" : mode === Mode.FREEZE ? "freeze" : "cancel";

/** The proto value of a scope name. */
export const killSwitchScope = (name: KillSwitchScopeName): Scope => SCOPES[name];

/** The name of a proto scope; unspecified reads as bot, the narrowest. */
export const killSwitchScopeName = (scope: Scope): KillSwitchScopeName =>
  scope === Scope.PLATFORM ? "platform" : scope === Scope.FLEET ? "fleet" : "bot";
