import { connectionKindOf, connectionKindRules } from "./connection-kind.js";
import { externalGroups, type LoginUser } from "./external-groups.js";

/** The acr value of the OpenID PAPE multi-factor policy, the spec's MFA acr. */
export const MFA_ACR = "http://schemas.openid.net/pape/policies/2007/06/multi-factor";
/** The hook keeps its machine token this long (the spec's 50 minutes). */
export const TOKEN_CACHE_MS = 50 * 60 * 1000;
const TOKEN_CACHE_KEY = "svc-m2m-token";

/** What a post-login action is given, in the provider's documented shape (the fields we read). */
export interface PostLoginEvent {
  user: LoginUser;
  connection: { name: string; strategy: string };
  organization?: { id: string; name?: string };
  authentication?: { methods: Array<{ name: string }> };
  transaction?: { acr_values?: string[] };
  risk_assessment?: { confidence?: "low" | "medium" | "high" };
  /** The deployment's secrets store (never in the code): see deploy/idp/README.md. */
  secrets: {
    API_URL: string;
    TOKEN_URL: string;
    M2M_CLIENT_ID: string;
    M2M_CLIENT_SECRET: string;
    M2M_AUDIENCE: string;
    CLAIMS_NAMESPACE: string;
    ROLE_CLAIM_ATTRIBUTE?: string;
    /** The connection-kind rules, JSON (connection-kind.ts); the shipped rules without it. */
    CONNECTION_KINDS?: string;
  };
}

/** What a post-login action may do, in the provider's documented shape (the calls we make). */
export interface PostLoginApi {
  accessToken: { setCustomClaim(name: string, value: unknown): void };
  idToken: { setCustomClaim(name: string, value: unknown): void };
  multifactor: { enable(provider: string, options: { allowRememberBrowser: boolean }): void };
  cache: {
    get(key: string): { value: string; expires_at?: number } | undefined;
    set(key: string, value: string, options: { expires_at: number }): void;
  };
}

export interface HookDeps {
  fetch: typeof fetch;
  now: () => number;
  log: (message: string, detail?: unknown) => void;
  timeoutMs?: number;
}

/**
 * The platform's post-login action. Order and failure policy, as the spec sets them:
 * 1. MFA: required when the caller asked for the multi-factor acr and no MFA method was used yet
 *    (amr names mfa or otp), or when the provider's risk confidence is high; the browser is
 *    never remembered; a medium risk is left to the caller's request;
 * 2. a machine token (client credentials), cached 50 minutes;
 * 3. group sync, only for a connection the connection-kind rules name and only when groups remain;
 * 4. the sync route's claims, set under the claims namespace, only the non-empty ones.
 * It fails open: any failure is logged and the login proceeds (the platform provisions lazily at
 * the first API call).
 */
export async function onExecutePostLogin(
  event: PostLoginEvent,
  api: PostLoginApi,
  deps: HookDeps,
): Promise<void> {
  const methods = (event.authentication?.methods ?? []).map((m) => m.name);
  const mfaDone = methods.includes("mfa") || methods.includes("otp");
  const askedForMfa = (event.transaction?.acr_values ?? []).includes(MFA_ACR);
  if ((askedForMfa && !mfaDone) || event.risk_assessment?.confidence === "high")
    api.multifactor.enable("any", { allowRememberBrowser: false });
  const ns = event.secrets.CLAIMS_NAMESPACE;
  // A UX hint only: the backend never trusts it.
  api.idToken.setCustomClaim(`${ns}mfa_available`, (event.user.multifactor ?? []).length > 0);

  try {
    const token = await machineToken(event, api, deps);
    const call = (path: string, body: unknown) =>
      deps
        .fetch(`${event.secrets.API_URL.replace(/\/$/, "")}${path}`, {
          method: "POST",
          headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
          body: JSON.stringify(body),
          signal: AbortSignal.timeout(deps.timeoutMs ?? 5_000),
        })
        .then(async (res) => {
          if (!res.ok) throw new Error(`${path} answered ${res.status}`);
          return (await res.json()) as Record<string, unknown>;
        });

    const kind = connectionKindOf(
      event.connection,
      connectionKindRules(event.secrets.CONNECTION_KINDS),
    );
    const groups = externalGroups(event.user, event.secrets.ROLE_CLAIM_ATTRIBUTE);
    if (kind && groups.length > 0)
      await call("/_internal/idp/sync-groups", {
        user_id: event.user.user_id,
        idp_organization_id: event.organization?.id ?? null,
        connection_kind: kind,
        external_groups: groups,
      });

    const claims = await call("/_internal/oidc/sync", {
      user_id: event.user.user_id,
      email: event.user.email ?? "",
      ...(event.organization
        ? { organization_id: event.organization.id, organization_name: event.organization.name }
        : {}),
      requested_claims: { connection: event.connection.name, strategy: event.connection.strategy },
    });
    for (const [name, value] of Object.entries(claims)) {
      if (value === "" || value === null || (Array.isArray(value) && value.length === 0)) continue;
      api.accessToken.setCustomClaim(`${ns}${name}`, value);
    }
  } catch (err) {
    deps.log("post-login sync failed; the login proceeds and the platform provisions lazily", {
      error: (err as Error).message,
    });
  }
}

async function machineToken(event: PostLoginEvent, api: PostLoginApi, deps: HookDeps) {
  const cached = api.cache.get(TOKEN_CACHE_KEY);
  if (cached && (cached.expires_at ?? 0) > deps.now()) return cached.value;
  const res = await deps.fetch(event.secrets.TOKEN_URL, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({
      grant_type: "client_credentials",
      client_id: event.secrets.M2M_CLIENT_ID,
      client_secret: event.secrets.M2M_CLIENT_SECRET,
      audience: event.secrets.M2M_AUDIENCE,
      resource: event.secrets.M2M_AUDIENCE,
    }),
    signal: AbortSignal.timeout(deps.timeoutMs ?? 5_000),
  });
  if (!res.ok) throw new Error(`the token endpoint answered ${res.status}`);
  const { access_token: token } = (await res.json()) as { access_token?: string };
  if (!token) throw new Error("the token endpoint answered no access_token");
  api.cache.set(TOKEN_CACHE_KEY, token, { expires_at: deps.now() + TOKEN_CACHE_MS });
  return token;
}
