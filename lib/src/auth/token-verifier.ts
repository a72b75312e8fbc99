import { createRemoteJWKSet, errors, jwtVerify } from "jose";
import { Code, svcError } from "../errors/index.js";
import { principalFromClaims } from "./claims.js";
import type { Principal } from "./principal.js";
import type { AuthSettings } from "./settings.js";

export type TokenKind = "user" | "machine";

export interface TokenVerifier {
  verify(token: string, kind: TokenKind): Promise<Principal>;
}

/**
 * Verifies OIDC access tokens against the issuer's JWKS with jose: signature with an allowed
 * asymmetric algorithm, issuer, audience (the machine audience for machine tokens), exp and sub
 * required, nbf and exp with a small clock tolerance. Verified tokens are cached until they
 * expire: the signature check dominates the cost of an authenticated call.
 */
export function createTokenVerifier(settings: AuthSettings): TokenVerifier {
  if (settings.provider !== "oidc") return { verify: async () => { throw svcError(Code.Unauthenticated, "invalid_token", "bearer tokens are not accepted: the platform runs with SVC_AUTH_PROVIDER=local"); } };
  if (!settings.issuer || !settings.audience) throw new TypeError("oidc auth needs an issuer and an audience");
  if (settings.algorithms.some((a) => a === "none" || a.startsWith("HS"))) throw new TypeError("algorithms must be asymmetric: none and HS* are refused");
  const jwksUri = new URL(settings.jwksUri ?? `${settings.issuer.replace(/\/$/, "")}/.well-known/jwks.json`);
  const jwks = createRemoteJWKSet(jwksUri, { timeoutDuration: settings.jwksTimeoutMs, cooldownDuration: settings.jwksCooldownMs });
  const cache = new Map<string, Principal>();

  return {
    async verify(token, kind) {
      const key = `${kind}:${token}`;
      const hit = cache.get(key);
      if (hit && (hit.expiresAt ?? 0) * 1000 > Date.now()) return hit;
      if (hit) cache.delete(key);
      const audience = kind === "machine" ? (settings.m2mAudience ?? settings.audience!) : settings.audience!;
      let principal: Principal;
      try {
        const { payload } = await jwtVerify(token, jwks, {
          issuer: settings.issuer,
          audience,
          algorithms: settings.algorithms,
          requiredClaims: ["exp", "sub"],
          clockTolerance: settings.clockToleranceSeconds,
        });
        principal = principalFromClaims(payload, settings.claimsNamespace);
      } catch (err) {
        throw tokenError(err, kind);
      }
      if (settings.tokenCacheSize > 0) {
        if (cache.size >= settings.tokenCacheSize) cache.delete(cache.keys().next().value!);
        cache.set(key, principal);
      }
      return principal;
    },
  };
}

function tokenError(err: unknown, kind: TokenKind) {
  const invalid = (why: string) =>
    svcError(Code.Unauthenticated, "invalid_token", `the ${kind === "machine" ? "machine " : ""}access token is not accepted: ${why}`, { reason: why }, {
      headers: { "www-authenticate": `Bearer error="invalid_token", error_description="${why}"` },
      cause: err,
    });
  if (err instanceof errors.JWKSTimeout || err instanceof errors.JWKSInvalid || !(err instanceof errors.JOSEError)) {
    return svcError(Code.Unavailable, "jwks_unreachable", "the identity provider's signing keys (JWKS) cannot be fetched; no token can be verified", {}, { cause: err });
  }
  if (err instanceof errors.JWTExpired) return invalid("the token has expired");
  if (err instanceof errors.JWTClaimValidationFailed) {
    if (err.claim === "nbf") return invalid("the token is not valid yet (nbf is in the future)");
    if (err.claim === "iss") return invalid("the token was issued by another issuer");
    if (err.claim === "aud") return invalid(kind === "machine" ? "the machine token's audience does not match SVC_AUTH_M2M_AUDIENCE" : "the token is for another audience");
    if (err.reason === "missing") return invalid(`the token lacks the required ${err.claim} claim`);
    return invalid(`claim ${err.claim} is invalid`);
  }
  if (err instanceof errors.JOSEAlgNotAllowed) return invalid("the token's signing algorithm is not allowed");
  if (err instanceof errors.JWKSNoMatchingKey) return invalid("no signing key of the issuer matches the token's kid");
  if (err instanceof errors.JWSSignatureVerificationFailed) return invalid("the signature does not verify");
  return invalid("the token is malformed");
}
