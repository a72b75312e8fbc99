import { Code, svcError } from "../errors/index.js";

/** The challenge of a 401 without a usable token (RFC 6750 section 3). */
export const BEARER_CHALLENGE = 'Bearer realm="svc"';

/**
 * The token of an `Authorization: Bearer <token>` header (scheme case-insensitive, token68
 * characters only); undefined when the header is absent. Any other shape is a 401
 * `unauthenticated` with the Bearer challenge, so a client sending Basic or a bare token learns
 * what to send.
 *
 * @example bearerOf(req.header.get("authorization"))
 */
export function bearerOf(header: string | null): string | undefined {
  if (header === null) return undefined;
  const m = /^Bearer +([A-Za-z0-9._~+/-]+=*)$/i.exec(header.trim());
  if (!m) {
    throw svcError(
      Code.Unauthenticated,
      "unauthenticated",
      "the Authorization header must be: Bearer <access token>",
      {},
      { headers: { "www-authenticate": BEARER_CHALLENGE } },
    );
  }
  return m[1];
}

/** The 401 of a protected route called without any Authorization header. */
export function missingBearer() {
  return svcError(
    Code.Unauthenticated,
    "unauthenticated",
    "this route needs a bearer access token (Authorization: Bearer <token>)",
    {},
    { headers: { "www-authenticate": BEARER_CHALLENGE } },
  );
}
