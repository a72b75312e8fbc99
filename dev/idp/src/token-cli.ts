#!/usr/bin/env -S npx tsx
import { parseArgs } from "node:util";
import { generate } from "otplib";
import { followProviderLogin } from "./sign-in.js";

/**
 * `npm run -s idp:token -- USER PASSWORD [--mfa --totp-secret S] [--platform URL]`: signs a person
 * in through the platform's own browser flow (GET /auth/login, the provider's pages, GET
 * /auth/callback) and prints the access token it hands back, so a terminal gets the token a
 * browser would. --mfa asks for the multi-factor acr with max_age=0 (a step-up token).
 */
const MFA_ACR = "http://schemas.openid.net/pape/policies/2007/06/multi-factor";
const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    mfa: { type: "boolean", default: false },
    "totp-secret": { type: "string" },
    platform: { type: "string", default: `http://127.0.0.1:${process.env.SVC_PORT ?? 8080}` },
  },
});
const [username, password] = positionals;
if (!username || !password) {
  console.error(
    "usage: npm run -s idp:token -- USER PASSWORD [--mfa --totp-secret S] [--platform URL]",
  );
  process.exit(2);
}
const totpSecret = values["totp-secret"];
if (values.mfa && !totpSecret) {
  console.error("--mfa needs --totp-secret (the secret npm run idp printed for this person)");
  process.exit(2);
}
const platform = values.platform!.replace(/\/+$/, "");

try {
  const query = new URLSearchParams({
    return_to: "/",
    ...(values.mfa ? { acr_values: MFA_ACR } : {}),
  });
  const start = await fetch(`${platform}/auth/login?${query}`, {
    redirect: "manual",
    signal: AbortSignal.timeout(10_000),
  });
  const toProvider = start.headers.get("location");
  if (start.status !== 302 || !toProvider)
    throw new Error(`${platform}/auth/login answered ${start.status}: ${await start.text()}`);
  const cookie = (start.headers.get("set-cookie") ?? "").split(";")[0] ?? "";
  const { code, state } = await followProviderLogin(toProvider, {
    username,
    password,
    redirectUri: `${platform}/auth/callback`,
    ...(totpSecret ? { totp: () => generate({ secret: totpSecret }) } : {}),
  });
  const back = await fetch(`${platform}/auth/callback?${new URLSearchParams({ code, state })}`, {
    redirect: "manual",
    headers: { cookie },
    signal: AbortSignal.timeout(10_000),
  });
  const landed = back.headers.get("location") ?? "";
  const token = new URLSearchParams(landed.split("#")[1] ?? "").get("access_token");
  if (!token)
    throw new Error(`${platform}/auth/callback answered ${back.status}: ${await back.text()}`);
  console.log(token);
} catch (err) {
  const body = (err as { body?: string }).body;
  console.error(
    `sign-in failed: ${(err as Error).message}${body ? `\n${body.slice(0, 500)}` : ""}`,
  );
  process.exit(1);
}
