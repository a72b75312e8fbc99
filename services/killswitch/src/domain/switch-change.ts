import type { KillSwitchModeName, KillSwitchScopeName } from "@svc/lib/contracts";

/** What a switch is applied as: the parts an apply may set. */
export interface AppliedSwitch {
  scope: KillSwitchScopeName;
  target: string;
  mode: KillSwitchModeName;
  reason: string;
  ttl: string;
}

/** One field an apply changed in place, as the audit trail shows it. */
export type FieldChange = { from: string; to: string };

/**
 * How an apply relates to the switch of that name already recorded: a new switch; the same key
 * (mode, reason, TTL changed in place, or nothing: applied again); or another key (a move, which
 * releases the old key and so must be asked for).
 */
export type SwitchChange =
  | { kind: "new" }
  | { kind: "in_place"; changed: Partial<Record<"mode" | "reason" | "ttl", FieldChange>> }
  | {
      kind: "moved";
      differs: Array<"scope" | "target">;
      from: { scope: KillSwitchScopeName; target: string };
    };

export function switchChange(
  previous: AppliedSwitch | undefined,
  next: AppliedSwitch,
): SwitchChange {
  if (!previous) return { kind: "new" };
  const differs = (["scope", "target"] as const).filter((f) => previous[f] !== next[f]);
  if (differs.length > 0)
    return { kind: "moved", differs, from: { scope: previous.scope, target: previous.target } };
  const changed: Partial<Record<"mode" | "reason" | "ttl", FieldChange>> = {};
  for (const f of ["mode", "reason", "ttl"] as const)
    if (previous[f] !== next[f]) changed[f] = { from: previous[f], to: next[f] };
  return { kind: "in_place", changed };
}
