import type { Interceptor } from "@connectrpc/connect";
import { assumedMembershipKey, principalKey } from "../auth/index.js";
import type { EventBus } from "../bus/index.js";
import { requestIdKey, type Logger } from "../telemetry/index.js";
import { publishAudit } from "./record-audit.js";

/**
 * Records in the audit trail every halt that passed its membership check without the identity
 * service's answer (docs/kill-switch.md): `membership_source` is `cached` (with the answer's age)
 * or `unverified_halt` (no answer was ever known; the caller held the route's scope, and halting
 * is the safe direction). It sits outside the auth interceptor and publishes without waiting: a
 * halt is never slowed for its record, and the record reaches the chain once identity is back.
 *
 * @example interceptors: [logging, tracing, createMembershipAuditInterceptor(bus, log), auth, ...]
 */
export function createMembershipAuditInterceptor(bus: EventBus, log: Logger): Interceptor {
  return (next) => async (req) => {
    let outcome: "succeeded" | "failed" = "failed";
    try {
      const res = await next(req);
      outcome = "succeeded";
      return res;
    } finally {
      const assumed = req.contextValues.get(assumedMembershipKey);
      if (assumed) {
        const rpc = `${req.service.typeName}/${req.method.name}`;
        publishAudit(
          bus,
          req.service.typeName.split(".")[1] ?? req.service.typeName,
          {
            principal: req.contextValues.get(principalKey),
            requestId: req.contextValues.get(requestIdKey),
          },
          {
            action: "auth.membership_assumed",
            outcome,
            resource: `rpc/${rpc}`,
            details: {
              membership_source: assumed.source,
              ...(assumed.source === "cached" ? { membership_age_ms: assumed.ageMs } : {}),
              reason:
                assumed.source === "cached"
                  ? "the identity service did not answer; the caller's last known membership was used for a halt"
                  : "the identity service did not answer and no membership of the caller was known; a holder of the halt scope may halt, halting being the safe direction",
            },
          },
        ).catch((e: unknown) =>
          log.warn({ err: e, rpc }, "a halt on an assumed membership could not be recorded"),
        );
      }
    }
  };
}
