import { isIP } from "node:net";
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
export function localPrincipal(headers: Headers, nowSeconds = Math.floor(Date.now() / 1000)): Principal {
  const chosen = headers.get(LOCAL_USER_HEADER);
  if (chosen !== null && !LOCAL_NAME.test(chosen)) {
    throw svcError(Code.InvalidArgument, "invalid_argument", `${LOCAL_USER_HEADER} must match ${LOCAL_NAME.source}`, { field: LOCAL_USER_HEADER });
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

/**
 * Local auth lets anyone who reaches the port act as anyone: it may only listen on loopback
 * (127.0.0.0/8, ::1, localhost). Throws an Error saying so for any other host.
 *
 * @example assertLoopbackHost(config.host); // throws for 0.0.0.0
 */
export function assertLoopbackHost(host: string): void {
  if (!isLoopback(host)) {
    throw new Error(
      `SVC_AUTH_PROVIDER=local gives every caller full rights, so it only listens on loopback (127.0.0.1, ::1, localhost); SVC_HOST=${host} is not. Configure SVC_AUTH_PROVIDER=oidc to listen on ${host}.`,
    );
  }
}

/** 127.0.0.0/8 (also IPv4-mapped), ::1 or localhost; a bracketed IPv6 literal is accepted. */
function isLoopback(host: string): boolean {
  const h = host.trim().toLowerCase().replace(/^\[(.*)\]$/, "$1");
  if (h === "localhost" || h === "::1" || h === "0:0:0:0:0:0:0:1") return true;
  const v4 = h.startsWith("::ffff:") ? h.slice(7) : h;
  return isIP(v4) === 4 && v4.startsWith("127.");
}
