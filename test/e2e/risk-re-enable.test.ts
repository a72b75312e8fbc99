import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freshMfaClaims, startTestIdp, type TestIdp } from "@svc/lib/auth/testing";
import type { RunningPlatform } from "@svc/all-in-one";
import { grantMembership } from "../support/memberships.js";
import { startOidcPlatform, testUser, type OidcPlatform } from "../support/oidc-platform.js";
import { call, startTestPlatform } from "../support/test-platform.js";
import { eventually } from "../support/until.js";

const now = () => Math.floor(Date.now() / 1000);
const SCOPES = ["read:bots", "write:bots", "run:bots"];
type Headers = Record<string, string>;

/** Stores the state a runner writes on a throttle breach. */
const disable = async (p: RunningPlatform, slug: string) =>
  sql`insert into bots.bot_risk_state
        (bot_id, disabled, control, reason, limit_value, observed_value, task_id, disabled_at)
      select id, true, 'message_throttle', '2 orders within 86400 s; at most 1 are allowed',
             1, 2, 'paper-test', now() from bots.bots where slug = ${slug}
      on conflict (bot_id) do update set disabled = true`.execute(p.platform.db.db);
const stateOf = async (p: RunningPlatform, slug: string) =>
  (
    await sql<{
      disabled: boolean;
      re_enabled_by: string | null;
    }>`select s.disabled, s.re_enabled_by from bots.bot_risk_state s
         join bots.bots b on b.id = s.bot_id where b.slug = ${slug}`.execute(p.platform.db.db)
  ).rows[0]!;
/** Creates each bot as `owner` and disables it as a breach would. */
const disabledBots = async (p: RunningPlatform, owner: Headers, slugs: string[]) => {
  for (const slug of slugs) {
    const created = await call(
      p.url,
      "POST",
      "/bots",
      { name: slug, slug, kind: "trading" },
      owner,
    );
    expect(created.status).toBe(201);
    await disable(p, slug);
  }
};
const expectStepUpChallenge = (res: Awaited<ReturnType<typeof call>>) => {
  expect(res.status).toBe(401);
  expect(res.body.error.code).toBe("insufficient_user_authentication");
  const challenge = res.headers.get("www-authenticate") ?? "";
  expect(challenge).toContain('error="insufficient_user_authentication"');
  expect(challenge).toContain("acr_values=");
  expect(challenge).toContain("max_age=");
};

/**
 * POST /bots/{bot_ref}/risk/re-enable (RTS 6 Art. 15(3)) under OIDC, people signed in at the
 * development provider: step-up MFA, the named person recorded, one winner of a race. The breach
 * itself is crafted against a real session in risk-controls.test.ts; here the stored state a
 * runner writes on a breach is set directly.
 */
describe("re-enabling a bot a throttle breach disabled", () => {
  let o: OidcPlatform;
  let p: RunningPlatform;
  const bearer = async (username: string, mfa = true): Promise<Headers> => ({
    authorization: `Bearer ${await o.tokens.user(username, { mfa })}`,
  });
  const state = (slug: string) => stateOf(p, slug);

  beforeAll(async () => {
    o = await startOidcPlatform("pglite", [testUser("ops-a", SCOPES), testUser("ops-b", SCOPES)]);
    p = o.p;
    await disabledBots(p, await bearer("ops-a"), ["throttled", "raced"]);
  }, 60_000);
  afterAll(async () => {
    await o?.close();
  });

  it("after a password-only sign-in: 401 with the RFC 9470 challenge, and the bot stays disabled", async () => {
    const single = await call(
      p.url,
      "POST",
      "/bots/throttled/risk/re-enable",
      { reason: "ok" },
      await bearer("ops-a", false),
    );
    expectStepUpChallenge(single);
    expect(await state("throttled")).toEqual({ disabled: true, re_enabled_by: null });
  });

  it("with step-up: re-enabled, the person and time recorded, shown, and audited", async () => {
    const res = await call(
      p.url,
      "POST",
      "/bots/throttled/risk/re-enable",
      { reason: "throttle breach reviewed" },
      await bearer("ops-a"),
    );
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({
      disabled: false,
      control: "message_throttle",
      limit: 1,
      value: 2,
      re_enabled_by: "dev|ops-a",
      re_enable_reason: "throttle breach reviewed",
    });
    expect(Math.abs(Date.parse(res.body.re_enabled_at) - Date.now())).toBeLessThan(60_000);
    const detail = await call(p.url, "GET", "/bots/throttled", undefined, await bearer("ops-b"));
    expect(detail.body.risk_state).toMatchObject({ disabled: false, re_enabled_by: "dev|ops-a" });
    const audit = await eventually(
      "the re-enable reaches the platform audit trail",
      async () =>
        (
          await sql<{
            actor_user_id: string;
            resource: string;
            outcome: string;
          }>`select actor_user_id, resource, outcome from identity.security_audit_events
               where event_type = 'bots.risk.re_enable'`.execute(p.platform.db.db)
        ).rows,
      (rows) => rows.length > 0,
    );
    expect(audit).toEqual([
      { actor_user_id: "dev|ops-a", resource: "bot/throttled", outcome: "succeeded" },
    ]);
  });

  it("two racing re-enables: one wins, the other is told who did it", async () => {
    const [asA, asB] = [await bearer("ops-a"), await bearer("ops-b")];
    const [a, b] = await Promise.all([
      call(p.url, "POST", "/bots/raced/risk/re-enable", { reason: "a" }, asA),
      call(p.url, "POST", "/bots/raced/risk/re-enable", { reason: "b" }, asB),
    ]);
    const statuses = [a.status, b.status].sort();
    expect(statuses).toEqual([200, 409]);
    const winner = a.status === 200 ? a : b;
    const loser = a.status === 200 ? b : a;
    expect(loser.body.error.code).toBe("risk_not_disabled");
    expect(loser.body.error.details.re_enabled_by).toBe(winner.body.re_enabled_by);
    expect((await state("raced")).re_enabled_by).toBe(winner.body.re_enabled_by);
  });

  it("an unknown bot is 404, a missing reason 400", async () => {
    const who = await bearer("ops-a");
    const missing = await call(p.url, "POST", "/bots/nope/risk/re-enable", { reason: "x" }, who);
    expect([missing.status, missing.body.error.code]).toEqual([404, "bot_not_found"]);
    const noReason = await call(p.url, "POST", "/bots/raced/risk/re-enable", {}, who);
    expect([noReason.status, noReason.body.error.details.field]).toEqual([400, "reason"]);
  });
});

// A multi-factor sign-in an hour old cannot be had from a real provider without waiting out the
// 180 s step-up window: the stale token is crafted, token-attack style, so it stays hand-signed,
// on a platform that trusts the hand-signing provider (the bot's owner included).
describe("re-enabling with a stale MFA (hand-signed)", () => {
  let idp: TestIdp;
  let p: RunningPlatform;
  const bearer = async (sub: string, claims: Record<string, unknown> = {}) => ({
    authorization: `Bearer ${await idp.sign({ ...freshMfaClaims(sub, SCOPES), ...claims })}`,
  });

  beforeAll(async () => {
    idp = await startTestIdp();
    p = await startTestPlatform("pglite", {
      SVC_AUTH_PROVIDER: "oidc",
      SVC_AUTH_OIDC_ISSUER: idp.issuer,
      SVC_AUTH_OIDC_AUDIENCE: idp.audience,
    });
    await grantMembership(p, "user|ops-a");
    await disabledBots(p, await bearer("user|ops-a"), ["throttled"]);
  }, 60_000);
  afterAll(async () => {
    await p?.close();
    await idp?.stop();
  });

  it("401 with the RFC 9470 challenge, and the bot stays disabled", async () => {
    const stale = await bearer("user|ops-a", { auth_time: now() - 3600 });
    const res = await call(
      p.url,
      "POST",
      "/bots/throttled/risk/re-enable",
      { reason: "ok" },
      stale,
    );
    expectStepUpChallenge(res);
    expect(await stateOf(p, "throttled")).toEqual({ disabled: true, re_enabled_by: null });
  });
});
