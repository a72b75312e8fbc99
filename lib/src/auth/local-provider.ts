import { Code, svcError } from "../errors/index.js";
import type { Principal } from "./principal.js";
import { MFA_ACR } from "./settings.js";

/** Header that picks another local user, so a second person (four eyes) can be tried locally. */
export const LOCAL_USER_HEADER = "x-svc-local-user";
const LOCAL_NAME = /^[a-z0-9][a-z0-9._-]{0,63}$/;

/**
 * The deterministic local user of SVC_AUTH_PROVIDER=local: every scope and a fresh MFA, so the
 * whole platform can be tried on a laptop. `local|default` unless the header names another.
 */
export function localPrincipal(
  headers: Headers,
  nowSeconds = Math.floor(Date.now() / 1000),
): Principal {
  const chosen = headers.get(LOCAL_USER_HEADER);
  if (chosen !== null && !LOCAL_NAME.test(chosen)) {
    throw svcError(
      Code.InvalidArgument,
      "invalid_argument",
      `${LOCAL_USER_HEADER} must match ${LOCAL_NAME.source}`,
      { field: LOCAL_USER_HEADER },
    );
  }
  return {
    sub: `local|${chosen ?? "default"}`,
    actorType: "local",
    delegated: false,
    roles: ["admin"],
    scopes: ["*"],
    acr: MFA_ACR,
    amr: ["mfa"],
    authTime: nowSeconds,
  };
}
