import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningPlatform } from "@svc/all-in-one";
import { verifyAuditTrail } from "@svc/cli/audit-verify";
import { ed25519Pem } from "../support/license.js";
import { as } from "../support/paper.js";
import { call, startTestPlatform } from "../support/test-platform.js";
import { eventually } from "../support/until.js";

interface AuditItem {
  seq: string;
  service: string;
  action: string;
  outcome: string;
  resource: string;
  actor: { subject: string; actor_type: string };
  request_id: string;
  details: Record<string, unknown>;
  prev_hash: string;
  hash: string;
}

/**
 * One audit trail: acts of the killswitch, promotion and identity services, each recorded with
 * the change it describes, land in the identity service's hash chain with who, what, which
 * resource, the outcome and the request id; the chain verifies, and a row altered or removed in
 * the database is named by `svc audit verify`.
 */
describe("the audit trail", () => {
  const key = ed25519Pem();
  let p: RunningPlatform;
  const withId = (id: string, user = "default") => ({
    "x-request-id": id,
    ...as(user),
  });
  const trail = async (query = "") =>
    (await call(p.url, "GET", `/admin/audit-events${query}`)).body.items as AuditItem[];

  beforeAll(async () => {
    p = await startTestPlatform("pglite", {
      SVC_AUTH_LICENSE_LEASE_PRIVATE_KEY_PEM: key.privateKeyPem,
    });
  }, 60_000);
  afterAll(async () => {
    await p?.close();
  });

  it("records engage, release, a refused four-eyes approval, an approval and a license revoke", async () => {
    expect(
      (
        await call(
          p.url,
          "PUT",
          "/kill-switches/audit-ks",
          { scope: "fleet", target: "audit-fleet", mode: "freeze", reason: "audit drill" },
          withId("req-engage"),
        )
      ).status,
    ).toBe(200);
    expect(
      (await call(p.url, "DELETE", "/kill-switches/audit-ks", undefined, withId("req-release")))
        .status,
    ).toBe(200);

    const bot = await call(
      p.url,
      "POST",
      "/bots",
      {
        name: "audit-bot",
        slug: "audit-bot",
        kind: "trading",
        strategy: { family: "ma_crossover", parameters: { fast: 3, slow: 8 } },
      },
      as("alice"),
    );
    expect(bot.status, bot.text).toBe(201);
    const submit = () =>
      call(
        p.url,
        "POST",
        "/promotion/requests",
        {
          request_id: "audit-req",
          kind: "strategy",
          artifact: { bot_ref: "audit-bot", version: 1, version_hash: bot.body.spec_hash },
          validation: { verdict: "PASS" },
          risk: { decision: "APPROVE" },
        },
        as("alice"),
      );
    await eventually(
      "the promotion service accepts the new bot's request",
      submit,
      (r) => r.status === 201 || r.status === 409,
    );
    const own = await call(
      p.url,
      "POST",
      "/promotion/requests/audit-req/approve",
      {},
      withId("req-own-approval", "alice"),
    );
    expect([own.status, own.body.error.code]).toEqual([403, "four_eyes_violation"]);
    const approved = await call(
      p.url,
      "POST",
      "/promotion/requests/audit-req/approve",
      { note: "looks right" },
      withId("req-approval", "bob"),
    );
    expect(approved.status, approved.text).toBe(200);

    const issued = await call(p.url, "POST", "/auth/license/leases", {
      deployment_id: "audit-install",
      entitlements: { live_trading: true },
    });
    expect(issued.status, issued.text).toBe(201);
    const revoked = await call(
      p.url,
      "POST",
      "/admin/license/deployments/audit-install/revoke",
      { reason: "contract ended" },
      withId("req-revoke"),
    );
    expect(revoked.status, revoked.text).toBe(200);

    const items = await eventually(
      "every act reaches the chain",
      () => trail(),
      (rows) => rows.length >= 5,
    );
    const byRequest = (id: string) => items.find((e) => e.request_id === id);
    expect(byRequest("req-engage")).toMatchObject({
      service: "killswitch",
      action: "killswitch.engaged",
      outcome: "succeeded",
      resource: "kill_switch/audit-ks",
      actor: { subject: "local|default", actor_type: "local" },
      details: { mode: "freeze", reason: "audit drill" },
    });
    expect(byRequest("req-release")).toMatchObject({
      action: "killswitch.released",
      resource: "kill_switch/audit-ks",
    });
    expect(byRequest("req-own-approval")).toMatchObject({
      service: "promotion",
      action: "promotion.approve",
      outcome: "denied",
      resource: "promotion_request/audit-req",
      actor: { subject: "local|alice" },
      details: { reason: "four_eyes_violation" },
    });
    expect(byRequest("req-approval")).toMatchObject({
      action: "promotion.approve",
      outcome: "succeeded",
      actor: { subject: "local|bob" },
      details: { from: "pending", to: "approved", note: "looks right" },
    });
    expect(byRequest("req-revoke")).toMatchObject({
      service: "identity",
      action: "admin.identity.license.revoke",
      resource: "license_deployment/audit-install",
      details: { reason: "contract ended" },
    });
    // One chain: each row names the hash of the row before it.
    items.forEach((e, i) => i > 0 && expect(e.prev_hash).toBe(items[i - 1]!.hash));
  }, 60_000);

  it("filters by actor, action and resource, and pages in chain order", async () => {
    const alice = await trail("?actor=local%7Calice");
    expect(alice.map((e) => e.action)).toEqual(["promotion.approve"]);
    expect((await trail("?action=killswitch.released")).map((e) => e.resource)).toEqual([
      "kill_switch/audit-ks",
    ]);
    expect((await trail("?resource=promotion_request%2Faudit-req")).length).toBe(2);
    const all = await trail();
    const first = await call(p.url, "GET", "/admin/audit-events?limit=2");
    const second = await call(
      p.url,
      "GET",
      `/admin/audit-events?limit=2&page_token=${first.body.next_page_token}`,
    );
    expect([...first.body.items, ...second.body.items].map((e: AuditItem) => e.seq)).toEqual(
      all.slice(0, 4).map((e) => e.seq),
    );
    const bad = await call(p.url, "GET", "/admin/audit-events?page_token=forged");
    expect([bad.status, bad.body.error.details.field]).toEqual([400, "page_token"]);
  });

  it("svc audit verify holds on the chain and names the first row altered or removed", async () => {
    const intact = await verifyAuditTrail(p.url, {});
    expect(intact.broken).toBeUndefined();
    expect(intact.rows).toBe((await trail()).length);

    const denied = (await trail("?actor=local%7Calice"))[0]!;
    // The table is append-only: an attacker with the database needs the maintenance setting on.
    const asAttacker = (statement: ReturnType<typeof sql>) =>
      p.platform.db.db.transaction().execute(async (trx) => {
        await sql`select set_config('svc.audit_maintenance', 'on', true)`.execute(trx);
        await statement.execute(trx);
      });
    await asAttacker(
      sql`update identity.security_audit_events set details = '{"reason":"approved by bob"}' where seq = ${denied.seq}`,
    );
    const altered = await verifyAuditTrail(p.url, {});
    expect(altered.broken).toMatchObject({ seq: Number(denied.seq) });
    expect(altered.broken!.why).toMatch(/altered/);

    await asAttacker(sql`delete from identity.security_audit_events where seq = ${denied.seq}`);
    const removed = await verifyAuditTrail(p.url, {});
    // The checkpoint of the removed row names it; the chain alone would name the row after it.
    expect(removed.broken).toMatchObject({ seq: Number(denied.seq), problem: "rows_missing" });
  });
});
