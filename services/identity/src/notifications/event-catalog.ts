import type { JsonObject } from "@bufbuild/protobuf";

/**
 * The event types a person can hear of, each with the scope that reads its resource (a webhook
 * subscription or a stream shows a type only to whom may read it) and where it comes from. A
 * type with no source is named, so asking for it is a 501 that says what is missing, not a
 * subscription that never fires.
 */
export interface EventType {
  scope: string;
  /** What raises it today; undefined: nothing yet. */
  source?: string;
  /** Why it is not built, when it is not. */
  missing?: string;
}

export const EVENT_TYPES: Readonly<Record<string, EventType>> = {
  "killswitch.engaged": {
    scope: "read:killswitch",
    source: "svc.audit.recorded killswitch.engaged (succeeded)",
  },
  "killswitch.released": {
    scope: "read:killswitch",
    source: "svc.audit.recorded killswitch.released (succeeded)",
  },
  "promotion.approved": {
    scope: "read:promotion",
    source: "svc.promotion.approved (PromotionApproved, by a person or by policy)",
  },
  "bot.halted": {
    scope: "read:bots",
    source: "svc.bots.phase broadcast, phase STOPPED",
  },
  "run.failed": {
    scope: "read:bots",
    missing: "the bots service raises no event when a backtest or paper session fails",
  },
  "promotion.awaiting_approval": {
    scope: "read:promotion",
    missing: "the promotion service raises no event when a request starts waiting for a human",
  },
  "risk_control.tripped": {
    scope: "read:bots",
    missing: "a refused order is written to the run's events only, not to the bus",
  },
  "license.expiring": {
    scope: "admin:license",
    missing: "no sweep watches lease expiry yet",
  },
};

export const BUILT_EVENT_TYPES = Object.keys(EVENT_TYPES).filter((t) => EVENT_TYPES[t]!.source);

/** One platform event as it is stored, streamed and posted. */
export interface PlatformEventIn {
  /** Unique: the bus message id (or, for a broadcast, what makes it one). */
  id: string;
  type: string;
  occurredAt: Date;
  data: JsonObject;
}

/** The event type of an audit record, or undefined when nobody subscribes to that kind. */
export function typeOfAudit(action: string, outcome: string): string | undefined {
  if (outcome !== "succeeded") return undefined;
  if (action === "killswitch.engaged") return "killswitch.engaged";
  if (action === "killswitch.released") return "killswitch.released";
  return undefined;
}

/** Whether a caller with these scopes may hear of `type` (the local user holds them all). */
export function mayHear(type: string, scopes: readonly string[], local: boolean): boolean {
  const t = EVENT_TYPES[type];
  return !!t && (local || scopes.includes(t.scope));
}
