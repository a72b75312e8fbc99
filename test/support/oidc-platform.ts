import { generate } from "otplib";
import {
  devUser,
  machineToken,
  signIn,
  startDevIdp,
  type DevIdp,
  type DevUser,
} from "@svc/dev-idp";
import { MFA_ACR } from "@svc/lib/auth";
import type { RunningPlatform } from "@svc/all-in-one";
import { startTestPlatform, type Backend } from "./test-platform.js";

export const API_AUDIENCE = "https://api.svc.test";
export const M2M_AUDIENCE = "https://internal.svc.test";
export const CLAIMS_NAMESPACE = "https://svc.example/claims/";
const REDIRECT_URI = "http://127.0.0.1/auth/callback";
/** A step-up token stays fresh 180 s; tests sign in again well before that. */
const REUSE_MS = 90_000;

/** A person of a test's own, with a password and a TOTP secret made for this run. */
export function testUser(
  username: string,
  permissions: string[],
  extra: Partial<DevUser> = {},
): DevUser {
  return devUser(username, permissions, {
    email: `${username}@svc.test`,
    organization: { id: "org_test", name: "Test Org" },
    connection: { name: "test-oidc", strategy: "oidc" },
    ...extra,
  });
}

/** Tokens from the development provider, over HTTP, as a person, a machine or an agent gets them. */
export interface ProviderTokens {
  /**
   * Signs `username` in (password; with `mfa`, the TOTP step too, fresh for step-up). A token of
   * the last 90 s is reused unless `fresh`: a sign-in is what runs the post-login action.
   */
  user(username: string, opts?: { mfa?: boolean; fresh?: boolean }): Promise<string>;
  /** Client credentials of the plain machine client or the hook's client, for an audience. */
  machine(audience?: string, client?: "machine" | "postLoginHook" | "agent"): Promise<string>;
  /** RFC 8693 exchange by the agent broker: the person's token for a delegated one. */
  exchange(
    subjectToken: string,
    form?: Record<string, string>,
    client?: "agentBroker" | "machine",
  ): Promise<{ status: number; body: Record<string, unknown> }>;
}

export interface OidcPlatform {
  idp: DevIdp;
  p: RunningPlatform;
  tokens: ProviderTokens;
  close(): Promise<void>;
}

/**
 * The platform under `SVC_AUTH_PROVIDER=oidc` against the development provider (`dev/idp`): the
 * provider's post-login action calls this platform's sync routes at every sign-in, so the people
 * who sign in are provisioned and members, as in production.
 */
export async function startOidcPlatform(
  backend: Backend,
  users: DevUser[],
  env: Record<string, string> | ((idp: DevIdp) => Record<string, string>) = {},
): Promise<OidcPlatform> {
  const idp = await startDevIdp({
    apiAudience: API_AUDIENCE,
    m2mAudience: M2M_AUDIENCE,
    claimsNamespace: CLAIMS_NAMESPACE,
    users,
  });
  const p = await startTestPlatform(backend, {
    SVC_AUTH_PROVIDER: "oidc",
    SVC_AUTH_OIDC_ISSUER: idp.issuer,
    SVC_AUTH_OIDC_AUDIENCE: API_AUDIENCE,
    SVC_AUTH_CLAIMS_NAMESPACE: CLAIMS_NAMESPACE,
    SVC_AUTH_M2M_ENABLED: "true",
    SVC_AUTH_M2M_AUDIENCE: M2M_AUDIENCE,
    SVC_AUTH_AGENT_TOKEN_EXCHANGE_ENABLED: "true",
    ...(typeof env === "function" ? env(idp) : env),
  }).catch(async (err: unknown) => {
    await idp.close();
    throw err;
  });
  idp.setApiUrl(p.url);

  const cached = new Map<string, { token: string; at: number }>();
  const tokens: ProviderTokens = {
    async user(username, opts = {}) {
      const key = `${username}|${opts.mfa ? "mfa" : "pwd"}`;
      const hit = cached.get(key);
      if (hit && !opts.fresh && Date.now() - hit.at < REUSE_MS) return hit.token;
      const user = users.find((u) => u.username === username);
      if (!user) throw new Error(`no test user ${username}`);
      const { accessToken } = await signIn({
        issuer: idp.issuer,
        clientId: idp.clients.login.clientId,
        redirectUri: REDIRECT_URI,
        username,
        password: user.password,
        resource: API_AUDIENCE,
        ...(opts.mfa
          ? {
              acrValues: MFA_ACR,
              maxAge: 0,
              // The provider refuses a code twice: sign in with the next step's code if this
              // step's was used by an earlier sign-in of the same person.
              totp: () => nextCode(user),
            }
          : {}),
      });
      cached.set(key, { token: accessToken, at: Date.now() });
      return accessToken;
    },
    machine: (audience = API_AUDIENCE, client = "machine") =>
      machineToken(idp.issuer, idp.clients[client], audience),
    async exchange(subjectToken, form = {}, client = "agentBroker") {
      const actor = await machineToken(idp.issuer, idp.clients.agent, API_AUDIENCE);
      const c = idp.clients[client];
      const res = await fetch(idp.tokenEndpoint, {
        method: "POST",
        signal: AbortSignal.timeout(10_000),
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({
          grant_type: "urn:ietf:params:oauth:grant-type:token-exchange",
          client_id: c.clientId,
          client_secret: c.clientSecret,
          subject_token: subjectToken,
          subject_token_type: "urn:ietf:params:oauth:token-type:access_token",
          subject_token_profile: "svc-agent-delegation",
          actor_token: actor,
          actor_token_type: "urn:ietf:params:oauth:token-type:access_token",
          scope: "read:mcp:data",
          ...form,
        }).toString(),
      });
      return { status: res.status, body: (await res.json()) as Record<string, unknown> };
    },
  };

  const usedSteps = new Map<string, number>();
  async function nextCode(user: DevUser): Promise<string> {
    const step = Math.max(Math.floor(Date.now() / 30_000), (usedSteps.get(user.sub) ?? -1) + 1);
    usedSteps.set(user.sub, step);
    return generate({ secret: user.totpSecret, epoch: step * 30 });
  }

  return {
    idp,
    p,
    tokens,
    async close() {
      await p.close();
      await idp.close();
    },
  };
}
