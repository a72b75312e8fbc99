import {
  createRemoteJWKSet,
  errors,
  jwtVerify,
  type JWTPayload,
  type JWTVerifyGetKey,
  type JWTVerifyOptions,
  type JWTVerifyResult,
} from "jose";
import { principalFromClaims } from "./claims.js";
import type { Principal } from "./principal.js";
import { assertValidAuthSettings, jwksUriOf, type AuthSettings } from "./settings.js";
import { createTokenCache } from "./token-cache.js";
import { invalidToken, KeySetUnreachable, tokenErrorOf, type TokenKind } from "./token-errors.js";

export type { TokenKind } from "./token-errors.js";

/** Turns a bearer token into the Principal it names, or throws the caller's ConnectError. */
export interface TokenVerifier {
  verify(token: string, kind: TokenKind): Promise<Principal>;
}

/**
 * Verifies OIDC access tokens against the issuer's JWKS with jose: signature with an allowed
 * asymmetric algorithm (never none nor HS*), issuer, audience (the machine audience for machine
 * tokens), exp and sub required, nbf and exp with a small clock tolerance, and an iat no further
 * ahead of our clock than that tolerance (jose checks iat only when given a maximum token age).
 *
 * The key set is fetched on first use and again only for an unknown kid once `jwksCooldownMs`
 * has passed since the last fetch (jose's cooldown), so a flood of tokens with made-up kids
 * costs at most one fetch per cooldown; the kid is only compared, never put in a URL. A failed
 * fetch answers jwks_unreachable (503), and for the next second further calls fail fast without
 * fetching, so a down provider is not hammered at the API's request rate.
 *
 * @example
 *   const verifier = createTokenVerifier(defineAuthSettings({ provider: "oidc", issuer, audience }));
 *   const principal = await verifier.verify(token, "user");
 */
export function createTokenVerifier(settings: AuthSettings): TokenVerifier {
  if (settings.provider !== "oidc") {
    return {
      verify: async (_token, kind) =>
        Promise.reject(
          invalidToken(
            "bearer tokens are not accepted: the platform runs with SVC_AUTH_PROVIDER=local",
            kind,
          ),
        ),
    };
  }
  assertValidAuthSettings(settings);
  const remote = createRemoteJWKSet(jwksUriOf(settings), {
    timeoutDuration: settings.jwksTimeoutMs,
    cooldownDuration: settings.jwksCooldownMs,
  });
  const failFastMs = Math.min(settings.jwksCooldownMs, 1_000);
  let fetchFailedAt = -Infinity;
  const keys: JWTVerifyGetKey = async (header, token) => {
    if (!remote.fresh && Date.now() - fetchFailedAt < failFastMs)
      throw new KeySetUnreachable(new Error("the last JWKS fetch failed moments ago"));
    try {
      return await remote(header, token);
    } catch (err) {
      // Everything but "no key matches this token" means the set itself could not be had.
      if (
        err instanceof errors.JWKSNoMatchingKey ||
        err instanceof errors.JWKSMultipleMatchingKeys ||
        err instanceof errors.JOSENotSupported
      )
        throw err;
      fetchFailedAt = Date.now();
      throw new KeySetUnreachable(err);
    }
  };
  const cache = createTokenCache<Principal>(settings.tokenCacheSize);
  const options = (kind: TokenKind): JWTVerifyOptions => ({
    issuer: settings.issuer,
    audience:
      kind === "service"
        ? settings.serviceAudience
        : kind === "machine"
          ? (settings.m2mAudience ?? settings.audience)
          : settings.audience,
    algorithms: settings.algorithms,
    requiredClaims: ["exp", "sub"],
    clockTolerance: settings.clockToleranceSeconds,
  });

  return {
    async verify(token, kind) {
      const cacheKey = `${kind}\u0000${token}`;
      const hit = cache.get(cacheKey);
      if (hit) return hit;
      let principal: Principal;
      try {
        const { payload } = await verifyWithKeySet(token, keys, options(kind));
        assertIssuedInThePast(payload, settings.clockToleranceSeconds);
        principal = deepFreeze(
          principalFromClaims(payload, settings.claimsNamespace, settings.issuer),
        );
      } catch (err) {
        throw tokenErrorOf(err, kind);
      }
      cache.set(cacheKey, principal, principal.expiresAt! * 1000);
      return principal;
    },
  };
}

/**
 * A token issued in the future was made by a provider whose clock is wrong or by someone who meant
 * it to outlive a revocation: no clock skew beyond the tolerance explains it.
 */
function assertIssuedInThePast(payload: JWTPayload, toleranceSeconds: number): void {
  const nowSeconds = Math.floor(Date.now() / 1000);
  if (typeof payload.iat === "number" && payload.iat > nowSeconds + toleranceSeconds)
    throw new errors.JWTClaimValidationFailed(
      `"iat" claim is ${payload.iat - nowSeconds} seconds in the future`,
      payload,
      "iat",
      "check_failed",
    );
}

/**
 * A token without kid may match several keys of the set (during a rotation): jose then hands
 * back every candidate, and the first one whose signature verifies wins.
 */
async function verifyWithKeySet(
  token: string,
  keys: JWTVerifyGetKey,
  options: JWTVerifyOptions,
): Promise<JWTVerifyResult> {
  try {
    return await jwtVerify(token, keys, options);
  } catch (err) {
    if (!(err instanceof errors.JWKSMultipleMatchingKeys)) throw err;
    for await (const key of err) {
      try {
        return await jwtVerify(token, key, options);
      } catch (inner) {
        if (!(inner instanceof errors.JWSSignatureVerificationFailed)) throw inner;
      }
    }
    throw new errors.JWSSignatureVerificationFailed();
  }
}

/** Cached principals are shared between calls: a handler must not be able to edit one. */
function deepFreeze<T extends object>(o: T): T {
  for (const v of Object.values(o)) if (typeof v === "object" && v !== null) Object.freeze(v);
  return Object.freeze(o);
}
