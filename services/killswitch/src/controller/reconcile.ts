/** A KillSwitch custom resource as the controller reads it from the cluster. */
export interface KillSwitchCR {
  name: string;
  generation: number;
  spec: {
    scope: string;
    target: string;
    mode: string;
    reason?: string;
    ttl?: string;
    /** Set to move the switch when scope or target changed: its old key is released. */
    rescope?: boolean;
  };
  status?: { engaged?: boolean; observedGeneration?: number; refusal?: string };
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
  | { kind: "apply"; name: string; spec: KillSwitchCR["spec"]; rescope: boolean }
  | { kind: "release"; name: string }
  | {
      kind: "patchKillSwitchStatus";
      cr: string;
      status: { engaged: boolean; observedGeneration: number; refusal?: string | null };
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
    if (s && (s.scope !== cr.spec.scope || s.target !== cr.spec.target) && !cr.spec.rescope) {
      // An edit that names another scope or target would release the old one: as over REST,
      // it is refused until the CR says it means it. The old switch stays, and the CR says why.
      const refusal = `${name} is engaged on ${s.scope} ${s.target}; this generation names ${cr.spec.scope} ${cr.spec.target}. Nothing was changed: delete the KillSwitch first, or set spec.rescope: true to move it (which releases ${s.scope} ${s.target})`;
      if (cr.status?.refusal !== refusal || cr.status?.engaged !== s.engaged)
        actions.push({
          kind: "patchKillSwitchStatus",
          cr: cr.name,
          status: {
            engaged: s.engaged,
            observedGeneration: cr.status?.observedGeneration ?? 0,
            refusal,
          },
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
    if (!same) actions.push({ kind: "apply", name, spec: cr.spec, rescope: !!cr.spec.rescope });
    const engaged = same ? s.engaged : true;
    if (
      cr.status?.engaged !== engaged ||
      cr.status?.observedGeneration !== cr.generation ||
      cr.status?.refusal
    ) {
      actions.push({
        kind: "patchKillSwitchStatus",
        cr: cr.name,
        status: {
          engaged,
          observedGeneration: cr.generation,
          ...(cr.status?.refusal ? { refusal: null } : {}),
        },
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
