/** A KillSwitch custom resource as the controller reads it from the cluster. */
export interface KillSwitchCR {
  name: string;
  generation: number;
  spec: { scope: string; target: string; mode: string; reason?: string; ttl?: string };
  status?: { engaged?: boolean; observedGeneration?: number };
}

/** A kill switch as the killswitch service reports it (GET /kill-switches). */
export interface ServiceSwitch {
  name: string;
  scope: string;
  target: string;
  mode: string;
  reason: string;
  ttl: string;
  engaged: boolean;
}

export interface BotCR {
  name: string;
  spec: { slug: string; fleet?: string };
  status?: { phase?: string; killSwitchEngaged?: boolean; killSwitchReason?: string };
}

export type Action =
  | { kind: "apply"; name: string; spec: KillSwitchCR["spec"] }
  | { kind: "release"; name: string }
  | {
      kind: "patchKillSwitchStatus";
      cr: string;
      status: { engaged: boolean; observedGeneration: number };
    }
  | {
      kind: "patchBotStatus";
      bot: string;
      status: { phase: string; killSwitchEngaged: boolean; killSwitchReason: string };
    };

/** Switches the controller owns carry this prefix; switches engaged by REST or by hand are never touched. */
export const OWNED_PREFIX = "k8s-";

/**
 * One reconcile pass, pure: from the custom resources and the service's state, the actions
 * that make them agree. CRs are mirrored into the service (apply when missing or different,
 * release when the CR is gone), each generation of a CR once: a switch released since (TTL,
 * REST) stays released until the CR changes. Each CR's status says whether its switch is
 * engaged and which generation was applied; each Bot's status says whether a switch covers it
 * (platform, its fleet, itself) and why.
 */
export function reconcile(crs: KillSwitchCR[], switches: ServiceSwitch[], bots: BotCR[]): Action[] {
  const actions: Action[] = [];
  const byName = new Map(switches.map((s) => [s.name, s]));
  // A CR whose generation was applied and whose switch is gone since was released another way:
  // its TTL elapsed (the service releases it) or a person released it. That is reported in the
  // CR's status, not undone; a new generation (an edit of the CR) engages it again.
  const released = (cr: KillSwitchCR) =>
    !byName.has(OWNED_PREFIX + cr.name) && cr.status?.observedGeneration === cr.generation;
  for (const cr of crs) {
    const name = OWNED_PREFIX + cr.name;
    const s = byName.get(name);
    if (released(cr)) {
      if (cr.status?.engaged !== false)
        actions.push({
          kind: "patchKillSwitchStatus",
          cr: cr.name,
          status: { engaged: false, observedGeneration: cr.generation },
        });
      continue;
    }
    const same =
      s &&
      s.scope === cr.spec.scope &&
      s.target === cr.spec.target &&
      s.mode === cr.spec.mode &&
      s.reason === (cr.spec.reason ?? "") &&
      s.ttl === (cr.spec.ttl ?? "");
    if (!same) actions.push({ kind: "apply", name, spec: cr.spec });
    const engaged = same ? s.engaged : true;
    if (cr.status?.engaged !== engaged || cr.status?.observedGeneration !== cr.generation) {
      actions.push({
        kind: "patchKillSwitchStatus",
        cr: cr.name,
        status: { engaged, observedGeneration: cr.generation },
      });
    }
  }
  const wanted = new Set(crs.map((c) => OWNED_PREFIX + c.name));
  for (const s of switches)
    if (s.name.startsWith(OWNED_PREFIX) && !wanted.has(s.name))
      actions.push({ kind: "release", name: s.name });

  // What will be engaged once the actions above are applied.
  const effective = [
    ...switches
      .filter((s) => s.engaged && !(s.name.startsWith(OWNED_PREFIX) && !wanted.has(s.name)))
      .map((s) => ({ scope: s.scope, target: s.target, reason: s.reason, name: s.name })),
    ...crs
      .filter((c) => !byName.has(OWNED_PREFIX + c.name) && !released(c))
      .map((c) => ({
        scope: c.spec.scope,
        target: c.spec.target,
        reason: c.spec.reason ?? "",
        name: OWNED_PREFIX + c.name,
      })),
  ];
  for (const bot of bots) {
    const cover = effective.find(
      (e) =>
        e.scope === "platform" ||
        (e.scope === "fleet" && e.target === bot.spec.fleet) ||
        (e.scope === "bot" && e.target === bot.spec.slug),
    );
    const status = {
      phase: cover ? "Stopped" : "Running",
      killSwitchEngaged: Boolean(cover),
      killSwitchReason: cover ? `${cover.name}: ${cover.reason}`.trim() : "",
    };
    const cur = bot.status ?? {};
    if (
      cur.phase !== status.phase ||
      cur.killSwitchEngaged !== status.killSwitchEngaged ||
      (cur.killSwitchReason ?? "") !== status.killSwitchReason
    ) {
      actions.push({ kind: "patchBotStatus", bot: bot.name, status });
    }
  }
  return actions;
}
