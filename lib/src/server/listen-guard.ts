import { isIP } from "node:net";

/** How the listener's callers are authenticated: "local" trusts every one of them. */
export type ListenerAuth = "local" | "oidc";

/**
 * Local auth lets anyone who reaches the port act as anyone with every scope, so a listener with
 * it may only bind loopback (127.0.0.0/8, ::1, localhost). Every process that listens (all-in-one,
 * a standalone service, the standalone gateway) calls this before binding; throws an Error saying
 * why and what to set instead.
 *
 * @example assertListenAllowed(config.host, config.auth.provider); // throws for 0.0.0.0 with local
 */
export function assertListenAllowed(host: string, auth: ListenerAuth): void {
  if (auth !== "local" || isLoopbackHost(host)) return;
  throw new Error(
    `SVC_AUTH_PROVIDER=local gives every caller full rights, so it only listens on loopback (127.0.0.1, ::1, localhost); SVC_HOST=${host} is not. Configure SVC_AUTH_PROVIDER=oidc to listen on ${host}.`,
  );
}

/** 127.0.0.0/8 (also IPv4-mapped), ::1 or localhost; a bracketed IPv6 literal is accepted. */
export function isLoopbackHost(host: string): boolean {
  const h = host
    .trim()
    .toLowerCase()
    .replace(/^\[(.*)\]$/, "$1");
  if (h === "localhost" || h === "::1" || h === "0:0:0:0:0:0:0:1") return true;
  const v4 = h.startsWith("::ffff:") ? h.slice(7) : h;
  return isIP(v4) === 4 && v4.startsWith("127.");
}
