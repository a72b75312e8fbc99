import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sql } from "kysely";
import { freshMfaClaims, startTestIdp, type TestIdp } from "@svc/lib/auth/testing";
import type { RunningPlatform } from "@svc/all-in-one";
import { call, startTestPlatform } from "../support/test-platform.js";
import { grantMembership } from "../support/memberships.js";
import { eventually } from "../support/until.js";

const now = () => Math.floor(Date.now() / 1000);
const SCOPES = [
  "read:bots",
  "write:bots",
  "submit:promotion",
  "read:promotion",
  "approve:promotion",
];

// The transition table with real tokens: step-up on every human decision, four eyes on the
// human subject, agents may submit but never decide; and the lab-evidence gate when enforced.
describe("promotion decisions with OIDC tokens", () => {
  let idp: TestIdp;
  let p: RunningPlatform;
  let hash: string;
  const bearer = async (claims: Record<string, unknown>) => ({
    authorization: `Bearer ${await idp.sign(claims)}`,
  });
  const alice = () => bearer(freshMfaClaims("user|alice", SCOPES));
  const bob = () => bearer(freshMfaClaims("user|bob", SCOPES));
  const submit = async (
    id: string,
    headers: Record<string, string>,
    extra: Record<string, unknown> = {},
  ) =>
    call(
      p.url,
      "POST",
      "/promotion/requests",
      {
        request_id: id,
        kind: "strategy",
        artifact: { bot_ref: "evidence-bot", version: 1, version_hash: hash },
        validation: { verdict: "PASS" },
        risk: { decision: "APPROVE" },
        ...extra,
      },
      headers,
    );

  beforeAll(async () => {
    idp = await startTestIdp();
    p = await startTestPlatform("pglite", {
      SVC_AUTH_PROVIDER: "oidc",
      SVC_AUTH_OIDC_ISSUER: idp.issuer,
      SVC_AUTH_OIDC_AUDIENCE: idp.audience,
      SVC_AUTH_AGENT_TOKEN_EXCHANGE_ENABLED: "true",
      SVC_PROMOTION_LAB_EVIDENCE_ENFORCE: "true",
    });
    await grantMembership(p, "user|alice", "user|bob", "user|carol");
    hash = (
      await call(p.url, "POST", "/bots", { name: "Evidence bot", kind: "trading" }, await alice())
    ).body.spec_hash;
    await eventually(
      "the promotion service learns of the bot",
      async () =>
        (
          await sql<{
            n: number;
          }>`select count(*)::int as n from promotion.known_bot_versions`.execute(p.platform.db.db)
        ).rows[0]!.n,
      (n) => n > 0,
    );
  });
  afterAll(async () => {
    await p?.close();
    await idp?.stop();
  });

  const evidence = {
    deflated_sharpe_ratio: 0.97,
    probability_of_backtest_overfitting: 0.2,
    trial_count: 40,
    trial_ledger_ref: "ledger:run-7",
  };

  it("fails closed without a complete EvidenceBundle and enforces its thresholds", async () => {
    const none = await submit("ev-none", await alice());
    expect(none.body.status).toBe("denied");
    expect(none.body.gates.at(-1)).toMatchObject({ name: "lab_evidence", passed: false });
    const weak = await submit("ev-weak", await alice(), {
      evidence: { ...evidence, deflated_sharpe_ratio: 0.9 },
    });
    expect(weak.body.status).toBe("denied");
    expect(weak.body.gates.at(-1).detail).toMatch(/^DSR 0.9 < 0.95/);
    const overfit = await submit("ev-pbo", await alice(), {
      evidence: { ...evidence, probability_of_backtest_overfitting: 0.6 },
    });
    expect(overfit.body.status).toBe("denied");
    const good = await submit("ev-good", await alice(), { evidence });
    expect(good.body.status).toBe("pending");
  });

  it("needs a fresh MFA step-up to approve, reject or revoke", async () => {
    await submit("su-1", await alice(), { evidence });
    const stale = await call(
      p.url,
      "POST",
      "/promotion/requests/su-1/approve",
      {},
      await bearer(freshMfaClaims("user|bob", SCOPES, { auth_time: now() - 181 - 5 })),
    );
    expect(stale.status).toBe(401);
    expect(stale.headers.get("www-authenticate")).toMatch(
      /insufficient_user_authentication.*acr_values=.*max_age=0/,
    );
    const noMfa = await call(
      p.url,
      "POST",
      "/promotion/requests/su-1/reject",
      { reason: "x" },
      await bearer({ sub: "user|bob", permissions: SCOPES, amr: ["pwd"], auth_time: now() }),
    );
    expect(noMfa.status).toBe(401);
    expect(
      (await call(p.url, "GET", "/promotion/requests/su-1", undefined, await bob())).body.status,
    ).toBe("pending");
    const ok = await call(p.url, "POST", "/promotion/requests/su-1/approve", {}, await bob());
    expect(ok.status).toBe(200);
    expect(ok.body.decisions[0]).toMatchObject({ actor: "user|bob", acr: "", amr: ["pwd", "mfa"] });
    expect(ok.body.decisions[0].auth_time).toMatch(/^\d{4}-/);
  });

  it("lets an agent submit for a person, never decide, and counts the person for four eyes", async () => {
    const agentForAlice = await bearer({
      ...freshMfaClaims("user|alice", SCOPES),
      act: { sub: "agent|quant-1", iss: idp.issuer },
      svc_delegated: true,
    });
    const submitted = await submit("ag-1", agentForAlice, { evidence });
    expect(submitted.status).toBe(201);
    const agentApproves = await call(
      p.url,
      "POST",
      "/promotion/requests/ag-1/approve",
      {},
      await bearer({
        ...freshMfaClaims("user|bob", SCOPES),
        act: { sub: "agent|quant-2", iss: idp.issuer },
      }),
    );
    expect(agentApproves.status).toBe(403);
    expect(agentApproves.body.error.code).toBe("agent_not_allowed");
    const aliceApproves = await call(
      p.url,
      "POST",
      "/promotion/requests/ag-1/approve",
      {},
      await alice(),
    );
    expect(aliceApproves.status).toBe(403);
    expect(aliceApproves.body.error.code).toBe("four_eyes_violation");
    expect(
      (await call(p.url, "POST", "/promotion/requests/ag-1/approve", {}, await bob())).status,
    ).toBe(200);
  });

  it("needs the approve scope to decide", async () => {
    await submit("sc-1", await alice(), { evidence });
    const res = await call(
      p.url,
      "POST",
      "/promotion/requests/sc-1/approve",
      {},
      await bearer(freshMfaClaims("user|carol", ["read:promotion"])),
    );
    expect(res.status).toBe(403);
    expect(res.body.error.details.scope).toBe("approve:promotion");
  });
});
