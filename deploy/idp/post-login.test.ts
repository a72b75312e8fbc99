import { describe, expect, it } from "vitest";
import { externalGroups } from "./external-groups.js";
import { MFA_ACR, onExecutePostLogin, TOKEN_CACHE_MS, type PostLoginEvent } from "./post-login.js";

const NS = "https://svc.example/claims/";

function event(over: Partial<PostLoginEvent> = {}): PostLoginEvent {
  return {
    user: { user_id: "oidc|carol", email: "carol@acme.test", groups: ["traders"] },
    connection: { name: "acme-okta", strategy: "oidc" },
    organization: { id: "org_acme", name: "Acme" },
    authentication: { methods: [{ name: "pwd" }] },
    secrets: {
      API_URL: "https://api.svc.test/",
      TOKEN_URL: "https://idp.svc.test/oauth/token",
      M2M_CLIENT_ID: "hook",
      M2M_CLIENT_SECRET: "from-the-secrets-store",
      M2M_AUDIENCE: "https://internal.svc.test",
      CLAIMS_NAMESPACE: NS,
    },
    ...over,
  };
}

/** The provider's api object, recording what the action did. */
function recordingApi() {
  const cache = new Map<string, { value: string; expires_at: number }>();
  const api = {
    access: {} as Record<string, unknown>,
    id: {} as Record<string, unknown>,
    mfa: [] as Array<{ provider: string; allowRememberBrowser: boolean }>,
    accessToken: { setCustomClaim: (n: string, v: unknown) => void (api.access[n] = v) },
    idToken: { setCustomClaim: (n: string, v: unknown) => void (api.id[n] = v) },
    multifactor: {
      enable: (provider: string, o: { allowRememberBrowser: boolean }) =>
        void api.mfa.push({ provider, ...o }),
    },
    cache: {
      get: (k: string) => cache.get(k),
      set: (k: string, value: string, o: { expires_at: number }) =>
        void cache.set(k, { value, expires_at: o.expires_at }),
    },
  };
  return api;
}

/** The token endpoint and the platform, as a fetch that records each call. */
function platform(answers: { sync?: unknown; status?: number; tokenStatus?: number } = {}) {
  const calls: Array<{ url: string; body: string; auth?: string }> = [];
  const fetch = (async (url: string | URL, init?: RequestInit) => {
    const u = String(url);
    calls.push({
      url: u,
      body: String(init?.body ?? ""),
      auth: (init?.headers as Record<string, string>)?.authorization,
    });
    if (u.endsWith("/oauth/token"))
      return new Response(JSON.stringify({ access_token: `m2m-${calls.length}` }), {
        status: answers.tokenStatus ?? 200,
      });
    if (u.endsWith("/_internal/idp/sync-groups"))
      return new Response(JSON.stringify({ memberships_upserted: 1 }), { status: 200 });
    return new Response(
      JSON.stringify(
        answers.sync ?? {
          org_id: "o-1",
          team_id: "",
          workspace_id: "",
          project_id: "",
          lab_id: "",
          roles: ["member", "trader"],
          connection: "acme-okta",
          internal_user_id: "u-1",
        },
      ),
      { status: answers.status ?? 200 },
    );
  }) as typeof globalThis.fetch;
  return { calls, fetch };
}

const deps = (fetch: typeof globalThis.fetch, now = () => 1_000_000) => ({
  fetch,
  now,
  log: () => {},
});

describe("the post-login action", () => {
  it("syncs groups then claims, and sets only the non-empty claims under the namespace", async () => {
    const api = recordingApi();
    const p = platform();
    await onExecutePostLogin(event(), api, deps(p.fetch));
    expect(p.calls.map((c) => new URL(c.url).pathname)).toEqual([
      "/oauth/token",
      "/_internal/idp/sync-groups",
      "/_internal/oidc/sync",
    ]);
    expect(JSON.parse(p.calls[1]!.body)).toEqual({
      user_id: "oidc|carol",
      idp_organization_id: "org_acme",
      connection_kind: "generic_oidc",
      external_groups: ["traders"],
    });
    expect(JSON.parse(p.calls[2]!.body)).toMatchObject({
      organization_id: "org_acme",
      requested_claims: { connection: "acme-okta", strategy: "oidc" },
    });
    expect(p.calls[2]!.auth).toBe("Bearer m2m-1");
    expect(api.access).toEqual({
      [`${NS}org_id`]: "o-1",
      [`${NS}roles`]: ["member", "trader"],
      [`${NS}connection`]: "acme-okta",
      [`${NS}internal_user_id`]: "u-1",
    });
    expect(api.id).toEqual({ [`${NS}mfa_available`]: false });
  });

  it("keeps the machine token 50 minutes, then fetches a new one", async () => {
    const api = recordingApi();
    let now = 1_000_000;
    const p = platform();
    await onExecutePostLogin(
      event(),
      api,
      deps(p.fetch, () => now),
    );
    now += TOKEN_CACHE_MS - 1;
    await onExecutePostLogin(
      event(),
      api,
      deps(p.fetch, () => now),
    );
    expect(p.calls.filter((c) => c.url.endsWith("/oauth/token"))).toHaveLength(1);
    now += 2;
    await onExecutePostLogin(
      event(),
      api,
      deps(p.fetch, () => now),
    );
    expect(p.calls.filter((c) => c.url.endsWith("/oauth/token"))).toHaveLength(2);
  });

  it("makes no group call for another kind of connection or without groups", async () => {
    for (const e of [
      event({ connection: { name: "db", strategy: "auth0" } }),
      event({ user: { user_id: "oidc|carol", groups: ["  ", ""] } }),
    ]) {
      const p = platform();
      await onExecutePostLogin(e, recordingApi(), deps(p.fetch));
      expect(p.calls.some((c) => c.url.endsWith("/sync-groups"))).toBe(false);
      expect(p.calls.some((c) => c.url.endsWith("/_internal/oidc/sync"))).toBe(true);
    }
    const saml = platform();
    await onExecutePostLogin(
      event({ connection: { name: "acme", strategy: "samlp" } }),
      recordingApi(),
      deps(saml.fetch),
    );
    expect(JSON.parse(saml.calls[1]!.body).connection_kind).toBe("generic_saml");
  });

  it("fails open: a platform or token endpoint that fails lets the login through without claims", async () => {
    for (const answers of [{ status: 503 }, { tokenStatus: 500 }]) {
      const api = recordingApi();
      const logged: string[] = [];
      await onExecutePostLogin(event(), api, {
        ...deps(platform(answers).fetch),
        log: (m: string) => void logged.push(m),
      });
      expect(api.access).toEqual({});
      expect(logged[0]).toMatch(/login proceeds/);
    }
  });

  it("requires MFA when asked for and not done, or on high risk; never remembers the browser", async () => {
    const cases: Array<[Partial<PostLoginEvent>, number]> = [
      [{ transaction: { acr_values: [MFA_ACR] } }, 1],
      [
        {
          transaction: { acr_values: [MFA_ACR] },
          authentication: { methods: [{ name: "pwd" }, { name: "otp" }] },
        },
        0,
      ],
      [{ risk_assessment: { confidence: "high" } }, 1],
      [{ risk_assessment: { confidence: "medium" } }, 0],
      [{}, 0],
    ];
    for (const [over, expected] of cases) {
      const api = recordingApi();
      await onExecutePostLogin(event(over), api, deps(platform().fetch));
      expect(api.mfa).toEqual(expected ? [{ provider: "any", allowRememberBrowser: false }] : []);
    }
  });

  it("collects groups from every source, trimmed and de-duplicated", () => {
    expect(
      externalGroups(
        {
          user_id: "u",
          groups: [" traders ", "risk"],
          app_metadata: { groups: "ops" },
          user_metadata: { groups: ["traders", ""] },
          department_roles: ["desk-leads", 7],
          identities: [
            { profileData: { groups: ["quants"] } },
            { profileData: { groups: ["ignored"] } },
          ],
        },
        "department_roles",
      ),
    ).toEqual(["traders", "risk", "ops", "desk-leads", "quants"]);
  });
});
