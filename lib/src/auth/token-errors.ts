import { errors } from "jose";
import { Code, svcError, type ConnectError } from "../errors/index.js";

/**
 * Which audience a token was checked against: the API's, the machine (sync route) one, or this
 * service's own (a peer service's token).
 */
export type TokenKind = "user" | "machine" | "service";

/**
 * Marks a failure to obtain the key set (connection refused, timeout, non-200, bad JSON, not a
 * JWKS), as opposed to a token that does not match it.
 */
export class KeySetUnreachable extends Error {
  /** @example throw new KeySetUnreachable(err); */
  constructor(cause: unknown) {
    super("the JWKS cannot be fetched", { cause });
    this.name = "KeySetUnreachable";
  }
}

/**
 * The 503 every authenticated call gets while the provider's key set cannot be fetched.
 *
 * @example throw jwksUnreachable(err);
 */
export function jwksUnreachable(cause: unknown): ConnectError {
  return svcError(
    Code.Unavailable,
    "jwks_unreachable",
    "the identity provider's signing keys (JWKS) cannot be fetched; no token can be verified, retry shortly",
    {},
    { cause },
  );
}

/**
 * The 401 for a token that does not verify, with the RFC 6750 challenge. `why` has no double
 * quote, so it can sit in the quoted error_description.
 *
 * @example throw invalidToken("the token has expired", "user");
 */
export function invalidToken(why: string, kind: TokenKind, cause?: unknown): ConnectError {
  return svcError(
    Code.Unauthenticated,
    "invalid_token",
    `the ${kind === "user" ? "" : `${kind} `}access token is not accepted: ${why}`,
    { reason: why },
    {
      headers: {
        "www-authenticate": `Bearer error="invalid_token", error_description="${why.replaceAll('"', "'")}"`,
      },
      cause,
    },
  );
}

/**
 * Maps what jwtVerify (or the key resolver) threw to the caller's error, branching on jose's
 * error classes, never on message text.
 *
 * @example catch (err) { throw tokenErrorOf(err, "user"); }
 */
export function tokenErrorOf(err: unknown, kind: TokenKind): ConnectError {
  if (err instanceof KeySetUnreachable) return jwksUnreachable(err.cause);
  const invalid = (why: string) => invalidToken(why, kind, err);
  if (err instanceof errors.JWTExpired) return invalid("the token has expired");
  if (err instanceof errors.JWTClaimValidationFailed) {
    if (err.reason === "missing") return invalid(`the token lacks the required ${err.claim} claim`);
    if (err.claim === "nbf") return invalid("the token is not valid yet (nbf is in the future)");
    if (err.claim === "iat") return invalid("the token was issued in the future (iat)");
    if (err.claim === "iss") return invalid("the token was issued by another issuer");
    if (err.claim === "aud")
      return invalid(
        kind === "machine"
          ? "the machine token's audience does not match SVC_AUTH_M2M_AUDIENCE"
          : "the token is for another audience",
      );
    return invalid(`the ${err.claim} claim is invalid: ${err.message}`);
  }
  if (err instanceof errors.JOSEAlgNotAllowed)
    return invalid("the token's signing algorithm is not allowed");
  if (err instanceof errors.JWKSNoMatchingKey || err instanceof errors.JWKSMultipleMatchingKeys)
    return invalid("no signing key of the issuer matches the token's kid");
  if (err instanceof errors.JWSSignatureVerificationFailed)
    return invalid("the signature does not verify");
  if (err instanceof errors.JOSENotSupported)
    return invalid("the token uses an unsupported algorithm or key type");
  return invalid("the token is malformed");
}
