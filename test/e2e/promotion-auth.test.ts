import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sql } from "kysely";
import { MFA_ACR } from "@svc/lib/auth";
import { freshMfaClaims, startTestIdp, type TestIdp } from "@svc/lib/auth/testing";
import type { RunningPlatform } from "@svc/all-in-one";
import { call, startTestPlatform } from "../support/test-platform.js";
import { grantMembership } from "../support/memberships.js";
import { startOidcPlatform, testUser, type OidcPlatform } from "../support/oidc-platform.js";
import { eventually } from "../support/until.js";

const now = () => Math.floor(Date.now() / 1000);
const SCOPES = [
  "read:bots",
  "write:bots",
  "submit:promotion",
  "read:promotion",
  "approve:promotion",
];
const PLATFORM_ENV = {
  SVC_AUTH_AGENT_TOKEN_EXCHANGE_ENABLED: "true",
  SVC_PROMOTION_LAB_EVIDENCE_ENFORCE: "true",
};
const evidence = {
  deflated_sharpe_ratio: 0.97,
  probability_of_backtest_overfitting: 0.2,
  trial_count: 40,
  trial_ledger_ref: "ledger:run-7",
};
type Headers = Record<string, string>;
const bearer = (token: string): Headers => ({ authorization: `Bearer ${token}` });

/** Submits a strategy request for `evidence-bot` version 1 (whose hash `hash` gives). */
const submitter =
  (url: () => string, hash: () => string) =>
  async (id: string, headers: Headers, extra: Record<string, unknown> = {}) =>
    call(
      url(),
      "POST",
      "/promotion/requests",
      {
        request_id: id,
        kind: "strategy",
        artifact: { bot_ref: "evidence-bot", version: 1, version_hash: hash() },
        validation: { verdict: "PASS" },
        risk: { decision: "APPROVE" },
        ...extra,
      },
      headers,
    );

/** Creates `evidence-bot` as `owner` and waits until the promotion service knows it. */
async function evidenceBot(p: RunningPlatform, owner: Headers): Promise<string> {
  const created = await call(
    p.url,
    "POST",
    "/bots",
    { name: "Evidence bot", kind: "trading" },
    owner,
  );
  expect(created.status, created.text).toBe(201);
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
  return created.body.spec_hash;
}

// The transition table with tokens from the development provider: step-up on every human
// decision, four eyes on the human subject, agents never decide; and the lab-evidence gate when
// enforced.
describe("promotion decisions with OIDC tokens", () => {
  let o: OidcPlatform;
  let hash: string;
  const alice = async () => bearer(await o.tokens.user("alice", { mfa: true }));
  const bob = async () => bearer(await o.tokens.user("bob", { mfa: true }));
  const submit = submitter(
    () => o.p.url,
    () => hash,
  );

  beforeAll(async () => {
    o = await startOidcPlatform(
      "pglite",
      [
        testUser("alice", SCOPES),
        testUser("bob", [...SCOPES, "read:mcp:data"]),
        testUser("carol", ["read:promotion"]),
      ],
      PLATFORM_ENV,
    );
    hash = await evidenceBot(o.p, await alice());
  }, 60_000);
  afterAll(async () => {
    await o?.close();
  });

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

  it("needs a multi-factor step-up to approve, reject or revoke", async () => {
    await submit("su-1", await alice(), { evidence });
    const noMfa = await call(
      o.p.url,
      "POST",
      "/promotion/requests/su-1/reject",
      { reason: "x" },
      bearer(await o.tokens.user("bob")),
    );
    expect(noMfa.status).toBe(401);
    expect(noMfa.headers.get("www-authenticate")).toMatch(
      /insufficient_user_authentication.*acr_values=.*max_age=0/,
    );
    expect(
      (await call(o.p.url, "GET", "/promotion/requests/su-1", undefined, await bob())).body.status,
    ).toBe("pending");
    const ok = await call(o.p.url, "POST", "/promotion/requests/su-1/approve", {}, await bob());
    expect(ok.status).toBe(200);
    expect(ok.body.decisions[0]).toMatchObject({
      actor: "dev|bob",
      acr: MFA_ACR,
      amr: ["pwd", "otp", "mfa"],
    });
    expect(ok.body.decisions[0].auth_time).toMatch(/^\d{4}-/);
  });

  it("never lets an agent decide, and holds four eyes on the person", async () => {
    await submit("ag-1", await alice(), { evidence });
    const delegated = await o.tokens.exchange(await o.tokens.user("bob", { mfa: true }));
    expect(delegated.status, JSON.stringify(delegated.body)).toBe(200);
    const agentApproves = await call(
      o.p.url,
      "POST",
      "/promotion/requests/ag-1/approve",
      {},
      bearer(String(delegated.body.access_token)),
    );
    expect(agentApproves.status).toBe(403);
    expect(agentApproves.body.error.code).toBe("agent_not_allowed");
    const aliceApproves = await call(
      o.p.url,
      "POST",
      "/promotion/requests/ag-1/approve",
      {},
      await alice(),
    );
    expect(aliceApproves.status).toBe(403);
    expect(aliceApproves.body.error.code).toBe("four_eyes_violation");
    expect(
      (await call(o.p.url, "POST", "/promotion/requests/ag-1/approve", {}, await bob())).status,
    ).toBe(200);
  });

  it("needs the approve scope to decide", async () => {
    await submit("sc-1", await alice(), { evidence });
    const res = await call(
      o.p.url,
      "POST",
      "/promotion/requests/sc-1/approve",
      {},
      bearer(await o.tokens.user("carol", { mfa: true })),
    );
    expect(res.status).toBe(403);
    expect(res.body.error.details.scope).toBe("approve:promotion");
  });
});

// What the development provider cannot issue, so these tokens stay hand-signed (on a platform that
// trusts the hand-signing provider, its ordinary callers included): a multi-factor sign-in older
// than the 180 s step-up window (a real one means waiting it out), and a delegated token carrying
// submit:promotion (the delegation profile grants the four MCP scopes only).
describe("promotion decisions with hand-signed tokens a provider would not issue", () => {
  let idp: TestIdp;
  let p: RunningPlatform;
  let hash: string;
  const signed = async (claims: Record<string, unknown>) => bearer(await idp.sign(claims));
  const alice = () => signed(freshMfaClaims("user|alice", SCOPES));
  const bob = () => signed(freshMfaClaims("user|bob", SCOPES));
  const submit = submitter(
    () => p.url,
    () => hash,
  );

  beforeAll(async () => {
    idp = await startTestIdp();
    p = await startTestPlatform("pglite", {
      SVC_AUTH_PROVIDER: "oidc",
      SVC_AUTH_OIDC_ISSUER: idp.issuer,
      SVC_AUTH_OIDC_AUDIENCE: idp.audience,
      ...PLATFORM_ENV,
    });
    await grantMembership(p, "user|alice", "user|bob");
    hash = await evidenceBot(p, await alice());
  }, 60_000);
  afterAll(async () => {
    await p?.close();
    await idp?.stop();
  });

  it("refuses an approval whose MFA is older than the step-up window", async () => {
    await submit("su-1", await alice(), { evidence });
    const stale = await call(
      p.url,
      "POST",
      "/promotion/requests/su-1/approve",
      {},
      await signed(freshMfaClaims("user|bob", SCOPES, { auth_time: now() - 181 - 5 })),
    );
    expect(stale.status).toBe(401);
    expect(stale.headers.get("www-authenticate")).toMatch(
      /insufficient_user_authentication.*acr_values=.*max_age=0/,
    );
    expect(
      (await call(p.url, "GET", "/promotion/requests/su-1", undefined, await bob())).body.status,
    ).toBe("pending");
  });

  it("lets an agent submit for a person, never decide, and counts the person for four eyes", async () => {
    const agentForAlice = await signed({
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
      await signed({
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
});
