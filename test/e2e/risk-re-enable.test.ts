import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freshMfaClaims, startTestIdp, type TestIdp } from "@svc/lib/auth/testing";
import type { RunningPlatform } from "@svc/all-in-one";
import { grantMembership } from "../support/memberships.js";
import { call, startTestPlatform } from "../support/test-platform.js";
import { eventually } from "../support/until.js";

const now = () => Math.floor(Date.now() / 1000);
const SCOPES = ["read:bots", "write:bots", "run:bots"];

/**
 * POST /bots/{bot_ref}/risk/re-enable (RTS 6 Art. 15(3)) under OIDC: step-up MFA, the named
 * person recorded, one winner of a race. The breach itself is crafted against a real session in
 * risk-controls.test.ts; here the stored state a runner writes on a breach is set directly.
 */
describe("re-enabling a bot a throttle breach disabled", () => {
  let idp: TestIdp;
  let p: RunningPlatform;
  const bearer = async (sub: string, claims: Record<string, unknown> = {}) => ({
    authorization: `Bearer ${await idp.sign({ ...freshMfaClaims(sub, SCOPES), ...claims })}`,
  });
  const disable = async (slug: string) =>
    sql`insert into bots.bot_risk_state
          (bot_id, disabled, control, reason, limit_value, observed_value, task_id, disabled_at)
        select id, true, 'message_throttle', '2 orders within 86400 s; at most 1 are allowed',
               1, 2, 'paper-test', now() from bots.bots where slug = ${slug}
        on conflict (bot_id) do update set disabled = true`.execute(p.platform.db.db);
  const state = async (slug: string) =>
    (
      await sql<{
        disabled: boolean;
        re_enabled_by: string | null;
      }>`select s.disabled, s.re_enabled_by from bots.bot_risk_state s
           join bots.bots b on b.id = s.bot_id where b.slug = ${slug}`.execute(p.platform.db.db)
    ).rows[0]!;

  beforeAll(async () => {
    idp = await startTestIdp();
    p = await startTestPlatform("pglite", {
      SVC_AUTH_PROVIDER: "oidc",
      SVC_AUTH_OIDC_ISSUER: idp.issuer,
      SVC_AUTH_OIDC_AUDIENCE: idp.audience,
    });
    await grantMembership(p, "user|ops-a", "user|ops-b");
    for (const slug of ["throttled", "raced"]) {
      const created = await call(
        p.url,
        "POST",
        "/bots",
        { name: slug, slug, kind: "trading" },
        await bearer("user|ops-a"),
      );
      expect(created.status).toBe(201);
      await disable(slug);
    }
  });
  afterAll(async () => {
    await p?.close();
    await idp?.stop();
  });

  it("without a fresh MFA: 401 with the RFC 9470 challenge, and the bot stays disabled", async () => {
    const stale = await bearer("user|ops-a", { auth_time: now() - 3600 });
    const res = await call(
      p.url,
      "POST",
      "/bots/throttled/risk/re-enable",
      { reason: "ok" },
      stale,
    );
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe("insufficient_user_authentication");
    const challenge = res.headers.get("www-authenticate") ?? "";
    expect(challenge).toContain('error="insufficient_user_authentication"');
    expect(challenge).toContain("acr_values=");
    expect(challenge).toContain("max_age=");
    const password = await bearer("user|ops-a", { amr: ["pwd"], acr: undefined });
    const single = await call(
      p.url,
      "POST",
      "/bots/throttled/risk/re-enable",
      { reason: "ok" },
      password,
    );
    expect(single.status).toBe(401);
    expect(await state("throttled")).toEqual({ disabled: true, re_enabled_by: null });
  });

  it("with step-up: re-enabled, the person and time recorded, shown, and audited", async () => {
    const res = await call(
      p.url,
      "POST",
      "/bots/throttled/risk/re-enable",
      { reason: "throttle breach reviewed" },
      await bearer("user|ops-a"),
    );
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({
      disabled: false,
      control: "message_throttle",
      limit: 1,
      value: 2,
      re_enabled_by: "user|ops-a",
      re_enable_reason: "throttle breach reviewed",
    });
    expect(Math.abs(Date.parse(res.body.re_enabled_at) - Date.now())).toBeLessThan(60_000);
    const detail = await call(
      p.url,
      "GET",
      "/bots/throttled",
      undefined,
      await bearer("user|ops-b"),
    );
    expect(detail.body.risk_state).toMatchObject({ disabled: false, re_enabled_by: "user|ops-a" });
    const audit = await eventually(
      "the re-enable reaches the platform audit trail",
      async () =>
        (
          await sql<{
            actor_subject: string;
            resource: string;
            outcome: string;
          }>`select actor_subject, resource, outcome from identity.security_audit_events
               where action = 'bots.risk.re_enable'`.execute(p.platform.db.db)
        ).rows,
      (rows) => rows.length > 0,
    );
    expect(audit).toEqual([
      { actor_subject: "user|ops-a", resource: "bot/throttled", outcome: "succeeded" },
    ]);
  });

  it("two racing re-enables: one wins, the other is told who did it", async () => {
    const [a, b] = await Promise.all([
      call(
        p.url,
        "POST",
        "/bots/raced/risk/re-enable",
        { reason: "a" },
        await bearer("user|ops-a"),
      ),
      call(
        p.url,
        "POST",
        "/bots/raced/risk/re-enable",
        { reason: "b" },
        await bearer("user|ops-b"),
      ),
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
    const who = await bearer("user|ops-a");
    const missing = await call(p.url, "POST", "/bots/nope/risk/re-enable", { reason: "x" }, who);
    expect([missing.status, missing.body.error.code]).toEqual([404, "bot_not_found"]);
    const noReason = await call(p.url, "POST", "/bots/raced/risk/re-enable", {}, who);
    expect([noReason.status, noReason.body.error.details.field]).toEqual([400, "reason"]);
  });
});
