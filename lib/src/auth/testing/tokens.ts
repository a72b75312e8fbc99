import { createHmac } from "node:crypto";
import type { JWTPayload } from "jose";
import type { TestIdp } from "./test-idp.js";

const nowSeconds = () => Math.floor(Date.now() / 1000);

/** Claims of a person signed in with a password only (no MFA, auth_time now). */
export function userClaims(sub: string, permissions: string[], extra: JWTPayload = {}): JWTPayload {
  return { sub, permissions, amr: ["pwd"], auth_time: nowSeconds(), ...extra };
}

/** Claims of a person who signed in with MFA just now: passes step-up. */
export function freshMfaClaims(
  sub: string,
  permissions: string[],
  extra: JWTPayload = {},
): JWTPayload {
  return { sub, permissions, amr: ["pwd", "mfa"], auth_time: nowSeconds(), ...extra };
}

/** Claims of a person who did MFA `ageSeconds` ago (default 10 minutes): fails step-up freshness. */
export function staleMfaClaims(
  sub: string,
  permissions: string[],
  ageSeconds = 600,
  extra: JWTPayload = {},
): JWTPayload {
  return freshMfaClaims(sub, permissions, { auth_time: nowSeconds() - ageSeconds, ...extra });
}

/** Claims of an RFC 8693 delegated token: `agentSub` (agent|...) acting for `userSub`. */
export function agentClaims(
  userSub: string,
  agentSub: string,
  permissions: string[],
  issuer: string,
  extra: JWTPayload = {},
): JWTPayload {
  return {
    sub: userSub,
    permissions,
    act: { sub: agentSub, iss: issuer },
    svc_delegated: true,
    ...extra,
  };
}

/** Claims of a client_credentials token as Auth0 mints it (sub `<client>@clients`, gty). */
export function machineClaims(clientId: string, extra: JWTPayload = {}): JWTPayload {
  return { sub: `${clientId}@clients`, gty: "client-credentials", ...extra };
}

/** Signed tokens of each kind a test needs, from one test provider. */
export interface TestTokens {
  user(sub: string, permissions: string[], extra?: JWTPayload): Promise<string>;
  stepUpFresh(sub: string, permissions: string[], extra?: JWTPayload): Promise<string>;
  stale(sub: string, permissions: string[], ageSeconds?: number): Promise<string>;
  agent(
    userSub: string,
    agentSub: string,
    permissions: string[],
    extra?: JWTPayload,
  ): Promise<string>;
  /** A machine token for `audience` (defaults to the provider's API audience). */
  machine(clientId: string, audience?: string, extra?: JWTPayload): Promise<string>;
}

/**
 * Mints the usual tokens with `idp`.
 *
 * @example const tokens = createTestTokens(idp); await tokens.stepUpFresh("user|op", ["halt:bots"]);
 */
export function createTestTokens(idp: TestIdp): TestTokens {
  return {
    user: (sub, permissions, extra) => idp.sign(userClaims(sub, permissions, extra)),
    stepUpFresh: (sub, permissions, extra) => idp.sign(freshMfaClaims(sub, permissions, extra)),
    stale: (sub, permissions, ageSeconds) => idp.sign(staleMfaClaims(sub, permissions, ageSeconds)),
    agent: (userSub, agentSub, permissions, extra) =>
      idp.sign(agentClaims(userSub, agentSub, permissions, idp.issuer, extra)),
    machine: (clientId, audience = idp.audience, extra) =>
      idp.sign(machineClaims(clientId, { aud: audience, ...extra })),
  };
}

const b64url = (o: object) => Buffer.from(JSON.stringify(o)).toString("base64url");

/** An unsigned `alg: none` token (RFC 7519 section 6): must never verify. */
export function unsignedToken(claims: JWTPayload): string {
  return `${b64url({ alg: "none", typ: "JWT" })}.${b64url(claims)}.`;
}

/**
 * The algorithm-confusion attack: HS256 keyed with the provider's RSA public key PEM, which a
 * verifier trusting the token's alg would accept.
 */
export function hmacWithPublicKeyToken(idp: TestIdp, claims: JWTPayload, kid = "rsa-1"): string {
  const signingInput = `${b64url({ alg: "HS256", typ: "JWT", kid })}.${b64url(claims)}`;
  return `${signingInput}.${createHmac("sha256", idp.publicKeyPem).update(signingInput).digest("base64url")}`;
}
