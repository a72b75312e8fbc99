/**
 * Short-lived signed statements (compact JWS, EdDSA over Ed25519): one service states a fact,
 * another verifies it offline with the public key. The ApprovedPromotion token is one.
 *
 * @example
 *   const token = await signStatement(privateKey, { request_id: "r1" }, { audience: "svc:bots", ttlSeconds: 600 });
 *   const claims = await verifyStatement(publicKey, token, { audience: "svc:bots" });
 */
import {
  createPrivateKey,
  createPublicKey,
  generateKeyPairSync,
  type KeyObject,
} from "node:crypto";
import { errors, jwtVerify, SignJWT, type JWTPayload } from "jose";

export interface StatementKeys {
  privateKey?: KeyObject;
  publicKey: KeyObject;
}

/** Keys from PEM text (a signer holds both; a verifier only the public key). */
export function statementKeysFromPem(pem: {
  privateKeyPem?: string;
  publicKeyPem?: string;
}): StatementKeys {
  const privateKey = pem.privateKeyPem ? createPrivateKey(pem.privateKeyPem) : undefined;
  const publicKey = pem.publicKeyPem
    ? createPublicKey(pem.publicKeyPem)
    : privateKey
      ? createPublicKey(privateKey)
      : undefined;
  if (!publicKey) throw new TypeError("a public or a private key is required");
  if ((privateKey ?? publicKey).asymmetricKeyType !== "ed25519")
    throw new TypeError("statement keys must be Ed25519");
  return { privateKey, publicKey };
}

/** A fresh Ed25519 pair, as PEM, for a process that holds both ends (all-in-one, tests). */
export function ephemeralStatementKeyPem(): { privateKeyPem: string; publicKeyPem: string } {
  const { privateKey, publicKey } = generateKeyPairSync("ed25519");
  return {
    privateKeyPem: privateKey.export({ type: "pkcs8", format: "pem" }).toString(),
    publicKeyPem: publicKey.export({ type: "spki", format: "pem" }).toString(),
  };
}

export async function signStatement(
  privateKey: KeyObject,
  claims: JWTPayload,
  opts: { issuer?: string; audience: string; ttlSeconds: number },
): Promise<string> {
  return new SignJWT(claims)
    .setProtectedHeader({ alg: "EdDSA", typ: "svc-statement+jwt" })
    .setIssuer(opts.issuer ?? "svc:promotion")
    .setAudience(opts.audience)
    .setIssuedAt()
    .setExpirationTime(Math.floor(Date.now() / 1000) + opts.ttlSeconds)
    .sign(privateKey);
}

/** Why a statement was refused, for the caller's message. */
export class StatementError extends Error {
  constructor(
    readonly code: "expired" | "invalid",
    message: string,
  ) {
    super(message);
  }
}

export async function verifyStatement(
  publicKey: KeyObject,
  token: string,
  opts: { issuer?: string; audience: string },
): Promise<JWTPayload> {
  try {
    const { payload } = await jwtVerify(token, publicKey, {
      algorithms: ["EdDSA"],
      issuer: opts.issuer ?? "svc:promotion",
      audience: opts.audience,
      requiredClaims: ["exp"],
    });
    return payload;
  } catch (err) {
    if (err instanceof errors.JWTExpired)
      throw new StatementError("expired", "the token has expired; ask for a fresh one");
    throw new StatementError(
      "invalid",
      "the token is not a valid signed statement of the promotion service",
    );
  }
}
