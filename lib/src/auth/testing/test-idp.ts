import http from "node:http";
import type { AddressInfo } from "node:net";
import {
  exportJWK,
  exportSPKI,
  generateKeyPair,
  SignJWT,
  type CryptoKey,
  type JWK,
  type JWTPayload,
} from "jose";

/** How the JWKS endpoint answers: normally, with a 500, with a body that is not JSON, or never. */
export type JwksBehaviour = "ok" | "error" | "bad-json" | "hang";

/** Options of one signed token. */
export interface SignOptions {
  /** The kid header; null leaves it out. Defaults to the kid of the chosen key. */
  kid?: string | null;
  alg?: "RS256" | "ES256";
  /** jose duration or seconds; null leaves exp out. Defaults to "10m". */
  expiresIn?: string | number | null;
  /** "rotated" signs with the second RSA key, served only after rotate(). */
  key?: "primary" | "rotated";
}

/** A local OIDC provider for tests and benchmarks: a JWKS endpoint that counts its hits, and signing. */
export interface TestIdp {
  issuer: string;
  jwksUri: string;
  audience: string;
  /** The RSA public key as PEM (for the HS256-with-public-key attack test). */
  publicKeyPem: string;
  /** Signs `claims`; iss, aud, iat and exp are filled unless given. */
  sign(claims: JWTPayload, opts?: SignOptions): Promise<string>;
  /** How many times the JWKS was requested. */
  hits(): number;
  /** Starts serving the rotated RSA key (kid rsa-2) beside the others. */
  rotate(): void;
  serveJwks(behaviour: JwksBehaviour): void;
  /** Stops answering JWKS requests (connection refused), as when the provider is down. */
  stop(): Promise<void>;
}

/**
 * Starts the provider on 127.0.0.1 (random port) with an RS256 key (rsa-1) and an ES256 key
 * (ec-1), plus a second RSA key (rsa-2) published once rotate() is called.
 *
 * @example const idp = await startTestIdp(); const token = await idp.sign({ sub: "u1", permissions: ["read:bots"] });
 */
export async function startTestIdp(audience = "https://api.svc.test"): Promise<TestIdp> {
  const rsa = await generateKeyPair("RS256", { extractable: true });
  const ec = await generateKeyPair("ES256");
  const rotated = await generateKeyPair("RS256");
  const jwk = async (key: CryptoKey, kid: string, alg: string): Promise<JWK> => ({
    ...(await exportJWK(key)),
    kid,
    alg,
    use: "sig",
  });
  const keys = [
    await jwk(rsa.publicKey, "rsa-1", "RS256"),
    await jwk(ec.publicKey, "ec-1", "ES256"),
  ];
  const rotatedJwk = await jwk(rotated.publicKey, "rsa-2", "RS256");
  let hits = 0;
  let behaviour: JwksBehaviour = "ok";
  const server = http.createServer((req, res) => {
    if (req.url !== "/.well-known/jwks.json") return void res.writeHead(404).end();
    hits++;
    if (behaviour === "hang") return;
    if (behaviour === "error") return void res.writeHead(500).end("provider down");
    res
      .writeHead(200, { "content-type": "application/json" })
      .end(behaviour === "bad-json" ? "{not json" : JSON.stringify({ keys }));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    issuer,
    jwksUri: `${issuer}/.well-known/jwks.json`,
    audience,
    publicKeyPem: await exportSPKI(rsa.publicKey),
    async sign(claims, opts = {}) {
      const alg = opts.alg ?? "RS256";
      const [key, defaultKid] =
        alg === "ES256"
          ? [ec.privateKey, "ec-1"]
          : opts.key === "rotated"
            ? [rotated.privateKey, "rsa-2"]
            : [rsa.privateKey, "rsa-1"];
      const kid = opts.kid === undefined ? defaultKid : opts.kid;
      let jwt = new SignJWT(claims).setProtectedHeader({
        alg,
        typ: "JWT",
        ...(kid === null ? {} : { kid }),
      });
      if (claims.iat === undefined) jwt = jwt.setIssuedAt();
      if (claims.iss === undefined) jwt = jwt.setIssuer(issuer);
      if (claims.aud === undefined) jwt = jwt.setAudience(audience);
      if (opts.expiresIn !== null && claims.exp === undefined)
        jwt = jwt.setExpirationTime(opts.expiresIn ?? "10m");
      return jwt.sign(key);
    },
    hits: () => hits,
    rotate: () => {
      if (!keys.includes(rotatedJwk)) keys.push(rotatedJwk);
    },
    serveJwks: (b) => {
      behaviour = b;
    },
    stop: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
