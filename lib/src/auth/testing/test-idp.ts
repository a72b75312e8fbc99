import http from "node:http";
import type { AddressInfo } from "node:net";
import { exportJWK, generateKeyPair, SignJWT, type JWK, type JWTPayload, type CryptoKey } from "jose";

/** A local OIDC provider for tests and benchmarks: a JWKS endpoint that counts its hits, and signing. */
export interface TestIdp {
  issuer: string;
  jwksUri: string;
  audience: string;
  /** The RSA public key as PEM (for the HS256-with-public-key attack test). */
  publicKeyPem: string;
  sign(claims: JWTPayload, opts?: { kid?: string; alg?: "RS256" | "ES256"; expiresIn?: string | number | null; key?: "primary" | "rotated" }): Promise<string>;
  hits(): number;
  /** Stops answering JWKS requests (connection refused), as when the provider is down. */
  stop(): Promise<void>;
}

/**
 * Starts the provider on 127.0.0.1 with an RS256 key, an ES256 key and a rotated RS256 key.
 *
 * @example const idp = await startTestIdp(); const token = await idp.sign({ sub: "u1", permissions: ["read:bots"] });
 */
export async function startTestIdp(audience = "https://api.svc.test"): Promise<TestIdp> {
  const rsa = await generateKeyPair("RS256", { extractable: true });
  const ec = await generateKeyPair("ES256", { extractable: true });
  const rotated = await generateKeyPair("RS256", { extractable: true });
  const jwk = async (key: CryptoKey, kid: string, alg: string): Promise<JWK> => ({ ...(await exportJWK(key)), kid, alg, use: "sig" });
  const keys = [await jwk(rsa.publicKey, "rsa-1", "RS256"), await jwk(ec.publicKey, "ec-1", "ES256"), await jwk(rotated.publicKey, "rsa-2", "RS256")];
  let hits = 0;
  const server = http.createServer((req, res) => {
    if (req.url === "/.well-known/jwks.json") {
      hits++;
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ keys }));
    } else res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const { createPublicKey } = await import("node:crypto");
  const publicKeyPem = createPublicKey({ key: (await exportJWK(rsa.publicKey)) as never, format: "jwk" }).export({ type: "spki", format: "pem" }).toString();
  return {
    issuer,
    jwksUri: `${issuer}/.well-known/jwks.json`,
    audience,
    publicKeyPem,
    async sign(claims, opts = {}) {
      const alg = opts.alg ?? "RS256";
      const key = alg === "ES256" ? ec.privateKey : opts.key === "rotated" ? rotated.privateKey : rsa.privateKey;
      const kid = opts.kid ?? (alg === "ES256" ? "ec-1" : opts.key === "rotated" ? "rsa-2" : "rsa-1");
      let jwt = new SignJWT(claims).setProtectedHeader({ alg, kid, typ: "JWT" }).setIssuedAt();
      if (claims.iss === undefined) jwt = jwt.setIssuer(issuer);
      if (claims.aud === undefined) jwt = jwt.setAudience(audience);
      if (opts.expiresIn !== null && claims.exp === undefined) jwt = jwt.setExpirationTime(opts.expiresIn ?? "10m");
      return jwt.sign(key);
    },
    hits: () => hits,
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** Claims of a person who signed in with MFA just now. */
export function freshMfaClaims(sub: string, permissions: string[], extra: JWTPayload = {}): JWTPayload {
  return { sub, permissions, amr: ["pwd", "mfa"], auth_time: Math.floor(Date.now() / 1000), ...extra };
}
