import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ephemeralStatementKeyPem } from "@svc/lib/signed-statement";
import { call, PLATFORM_START_TIMEOUT_MS, startTestPlatform } from "../support/test-platform.js";
import type { RunningPlatform } from "@svc/all-in-one";

/**
 * Every route of the spec's endpoint tables (and the admin routes its text names), written out
 * here from the spec rather than read from the proto, so a route missing from the contract fails.
 */
const SPEC_ROUTES: Array<[string, string]> = [
  ["GET", "/bots"],
  ["POST", "/bots"],
  ["GET", "/bots/{bot}"],
  ["PUT", "/bots/{bot}"],
  ["DELETE", "/bots/{bot}"],
  ["POST", "/bots/{bot}/backtest"],
  ["POST", "/bots/{bot}/paper/start"],
  ["POST", "/bots/{bot}/paper/stop/task-1"],
  ["POST", "/bots/{bot}/deploy"],
  ["POST", "/bots/{bot}/halt"],
  ["POST", "/bots/halt-all"],
  ["GET", "/bots/{bot}/versions"],
  ["GET", "/bots/{bot}/deployments"],
  ["POST", "/bots/{bot}/replay"],
  ["GET", "/bots/{bot}/state/snapshot"],
  ["GET", "/bots/{bot}/state/events"],
  ["POST", "/bots/{bot}/conformance"],
  ["POST", "/bots/{bot}/stress"],
  ["GET", "/bots/{bot}/risk/validation-report"],
  ["POST", "/bots/{bot}/chat"],
  ["POST", "/promotion/requests"],
  ["GET", "/promotion/requests"],
  ["GET", "/promotion/requests/req-1"],
  ["POST", "/promotion/requests/req-1/approve"],
  ["POST", "/promotion/requests/req-1/reject"],
  ["POST", "/promotion/requests/req-1/revoke"],
  ["GET", "/promotion/approvals"],
  ["POST", "/agents/halt"],
  ["POST", "/quant-agents/halt"],
  ["POST", "/paper/stop-all"],
  ["POST", "/rl/halt-all"],
  ["POST", "/workflows/halt"],
  ["POST", "/_internal/oidc/sync"],
  ["POST", "/_internal/idp/sync-groups"],
  ["GET", "/auth/whoami"],
  ["GET", "/whoami"],
  ["GET", "/auth/login?acr_values=x"],
  ["POST", "/auth/license/leases"],
  ["GET", "/auth/license/public-key"],
  ["PATCH", "/manage/deployments/api/scale?replicas=2"],
  ["POST", "/manage/fleets/majors/infrastructure/dry-run"],
  ["POST", "/manage/fleets/majors/infrastructure/apply"],
  ["POST", "/manage/fleets/majors/infrastructure/destroy"],
  ["GET", "/tenancy/orgs/org-1/idp-group-mappings"],
  ["POST", "/tenancy/orgs/org-1/idp-group-mappings"],
  ["DELETE", "/tenancy/orgs/org-1/idp-group-mappings/m-1"],
  ["GET", "/tenancy/orgs/org-1/invites"],
  ["POST", "/tenancy/orgs/org-1/invites"],
  ["POST", "/tenancy/orgs/org-1/invites/inv-1/revoke"],
  ["POST", "/tenancy/orgs/org-1/invites/accept"],
  ["POST", "/tenancy/orgs/org-1/tenancy-strategy/dry-run"],
  ["POST", "/tenancy/orgs/org-1/tenancy-strategy/migrate"],
  ["POST", "/admin/license/deployments/dep-1/revoke"],
  ["POST", "/mcp/data/tools/search/invoke"],
];

describe("every route of the spec answers: a real answer or 501, never 404 or 405", () => {
  let p: RunningPlatform;
  beforeAll(async () => {
    // A lease-signing key, else the license routes rightly answer 503 license_lease_unavailable.
    p = await startTestPlatform("pglite", {
      SVC_AUTH_LICENSE_LEASE_PRIVATE_KEY_PEM: ephemeralStatementKeyPem().privateKeyPem,
    });
    await call(p.url, "POST", "/bots", { name: "Route bot", kind: "research" });
  }, PLATFORM_START_TIMEOUT_MS);
  afterAll(async () => {
    await p?.close();
  });

  it.each(SPEC_ROUTES)("%s %s", async (method, template) => {
    const path = template.replace("{bot}", "route-bot");
    const res = await call(
      p.url,
      method,
      path,
      ["POST", "PUT", "PATCH"].includes(method) ? {} : undefined,
    );
    expect(res.body?.error?.code).not.toBe("route_not_found");
    expect(res.status).not.toBe(405);
    expect(res.status === 501 || res.status < 500, `status ${res.status}: ${res.text}`).toBe(true);
    if (res.status === 501) {
      expect(res.body.error.code).toBe("not_implemented");
      expect(res.body.error.message).toMatch(/is not built yet/);
      expect(typeof res.body.error.details.capability).toBe("string");
    }
  });

  it("serves an OpenAPI 3.1 document covering every route, and a page that renders it", async () => {
    const doc = await call(p.url, "GET", "/openapi.json");
    expect(doc.body.openapi).toBe("3.1.0");
    for (const [method, template] of SPEC_ROUTES) {
      const path = template.split("?")[0]!;
      const match = Object.entries(doc.body.paths as Record<string, Record<string, unknown>>).find(
        ([t, ops]) =>
          new RegExp(`^${t.replace(/\{[a-z_]+\}/g, "[^/]+")}$`).test(path.replace("{bot}", "x")) &&
          ops[method.toLowerCase()] !== undefined,
      );
      expect(match, `${method} ${path}`).toBeDefined();
      expect(match![1][method.toLowerCase()], `${method} ${path}`).toBeDefined();
    }
    expect(doc.body.paths["/bots/{bot_ref}/halt"].post["x-svc-auth"]).toEqual({
      mode: "user",
      scopes: ["halt:bots"],
      step_up: true,
      allow_agent: false,
    });
    const page = await fetch(`${p.url}/docs/`);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain("swagger");
  });

  it("reports liveness and readiness", async () => {
    expect((await call(p.url, "GET", "/healthz")).body).toEqual({ status: "ok" });
    expect((await call(p.url, "GET", "/readyz")).body).toMatchObject({ status: "ready" });
  });
});
