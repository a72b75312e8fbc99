#!/usr/bin/env -S npx tsx
import { generate, generateURI } from "otplib";
import { startDevIdp } from "./dev-idp.js";
import { defaultUsers } from "./users.js";

/**
 * `npm run idp`: the development provider on 127.0.0.1 for a platform started with
 * SVC_AUTH_PROVIDER=oidc (see docs/identity.md). People's passwords and TOTP secrets are made at
 * each start unless given in the environment, and printed here: this provider is for a laptop.
 */
const env = process.env;
const port = Number(env.DEV_IDP_PORT ?? 9400);
const apiAudience = env.SVC_AUTH_OIDC_AUDIENCE ?? "https://api.svc.local";
const claimsNamespace = env.SVC_AUTH_CLAIMS_NAMESPACE ?? "https://svc.example/claims/";
const apiUrl = env.DEV_IDP_API_URL ?? `http://127.0.0.1:${env.SVC_PORT ?? 8080}`;

const users = defaultUsers(
  Object.fromEntries(
    ["alice", "bob", "admin"].map((name) => {
      const upper = name.toUpperCase();
      const password = env[`DEV_IDP_${upper}_PASSWORD`];
      const totpSecret = env[`DEV_IDP_${upper}_TOTP_SECRET`];
      return [name, { ...(password ? { password } : {}), ...(totpSecret ? { totpSecret } : {}) }];
    }),
  ),
);

for (const u of users)
  await generate({ secret: u.totpSecret }).catch((err: unknown) => {
    console.error(`DEV_IDP_${u.username.toUpperCase()}_TOTP_SECRET: ${(err as Error).message}`);
    process.exit(2);
  });

const idp = await startDevIdp({
  port,
  apiAudience,
  m2mAudience: env.SVC_AUTH_M2M_AUDIENCE ?? apiAudience,
  claimsNamespace,
  apiUrl,
  users,
  delegationTtlSeconds: Number(env.SVC_AUTH_AGENT_DELEGATION_TTL_SECONDS ?? 300),
  log: (message, detail) => console.error(`[idp] ${message}`, detail ?? ""),
});

const lines = [
  `svc development OIDC provider at ${idp.issuer} (JWKS ${idp.jwksUri})`,
  `post-login action calls ${apiUrl}; API audience ${apiAudience}`,
  "",
  "People (password, TOTP secret, otpauth URI for an authenticator app):",
  ...idp.users.map(
    (u) =>
      `  ${u.username.padEnd(6)} ${u.password}  ${u.totpSecret}  ${generateURI({ issuer: "svc-dev", label: u.username, secret: u.totpSecret })}`,
  ),
  "",
  "Machine clients (client_id: client_secret):",
  ...Object.entries(idp.clients)
    .filter(([name]) => name !== "login")
    .map(
      ([name, c]) =>
        `  ${name.padEnd(14)} ${c.clientId}: ${"clientSecret" in c ? c.clientSecret : ""}`,
    ),
  "",
  "Start the platform against it:",
  `  SVC_AUTH_PROVIDER=oidc SVC_AUTH_OIDC_ISSUER=${idp.issuer} SVC_AUTH_OIDC_AUDIENCE=${apiAudience} \\`,
  "  SVC_AUTH_M2M_ENABLED=true npm start",
];
console.log(lines.join("\n"));

const stop = () => void idp.close().then(() => process.exit(0));
process.on("SIGINT", stop);
process.on("SIGTERM", stop);
