import { ConnectError, type Interceptor } from "@connectrpc/connect";
import { refusedPrincipalKey } from "../auth/index.js";
import type { EventBus } from "../bus/index.js";
import { errorDetailOf } from "../errors/index.js";
import { requestIdKey, type Logger } from "../telemetry/index.js";
import { publishAudit } from "./record-audit.js";

/**
 * Records refused step-up attempts in the audit trail: someone with a valid token tried a route
 * that needs fresh MFA without it. It sits just outside the auth interceptor (which refuses
 * before any service code runs) and publishes without waiting, so the 401 is never slowed or
 * lost for the sake of its record.
 *
 * @example interceptors: [logging, tracing, createRefusalAuditInterceptor(bus, log), auth, ...]
 */
export function createRefusalAuditInterceptor(bus: EventBus, log: Logger): Interceptor {
  return (next) => async (req) => {
    try {
      return await next(req);
    } catch (err) {
      if (
        err instanceof ConnectError &&
        errorDetailOf(err).code === "insufficient_user_authentication"
      ) {
        const principal = req.contextValues.get(refusedPrincipalKey);
        const rpc = `${req.service.typeName}/${req.method.name}`;
        publishAudit(
          bus,
          req.service.typeName.split(".")[1] ?? req.service.typeName,
          { principal, requestId: req.contextValues.get(requestIdKey) },
          {
            action: "auth.step_up",
            outcome: "denied",
            resource: `rpc/${rpc}`,
            details: {
              reason: err.rawMessage,
              acr: principal?.acr ?? "",
              amr: principal?.amr ?? [],
              ...(principal?.authTime !== undefined ? { auth_time: principal.authTime } : {}),
            },
          },
        ).catch((e: unknown) =>
          log.warn({ err: e, rpc }, "a refused step-up could not be recorded in the audit trail"),
        );
      }
      throw err;
    }
  };
}
