import { createHash } from "node:crypto";
import { sql } from "kysely";
import { parse } from "yaml";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningPlatform } from "@svc/all-in-one";
import { reportSchemaErrors } from "@svc/compliance";
import { as } from "../support/paper.js";
import {
  BACKENDS,
  call,
  PLATFORM_START_TIMEOUT_MS,
  startTestPlatform,
} from "../support/test-platform.js";
import { startOidcPlatform, testUser, type OidcPlatform } from "../support/oidc-platform.js";
import { eventually } from "../support/until.js";

const YEAR = new Date().getUTCFullYear();
const LIMITS = { max_order_units: 5, max_order_notional: 200_000, price_collar_pct: 5 };
const spec = (risk: object) => ({
  name: "cc-bot",
  slug: "cc-bot",
  kind: "trading",
  strategy: { family: "ma_crossover", parameters: { fast: 3, slow: 8 } },
  universe: { symbols: ["BTC-USD"] },
  engine: { initial_cash: 100_000, position_size: 0.5 },
  risk,
});
const sha256 = (text: string) => createHash("sha256").update(text, "utf8").digest("hex");

interface Due {
  year: number;
  scope: string;
  bot: string;
  control_changes: string[];
  kinds: string[];
  due_since: string;
}
interface Stored {
  id: string;
  scope: string;
  bot: string;
  year: number;
  sha256: string;
  unsigned_sha256: string;
  signatures: Array<{ slot: string; role: string; signed_by: string; signed_at: string }>;
  signed_at: string;
  retain_until: string;
  control_changes: string[];
  href: string;
}
interface ChangeEntry {
  id: string;
  kind: string;
  bot_slug: string | null;
  version: number | null;
  previous_version: number | null;
  before: Record<string, unknown>;
  after: Record<string, unknown>;
}

describe.each(BACKENDS)(
  "a validation report also after any material control change, signed and kept seven years, on %s",
  (backend) => {
    let p: RunningPlatform;
    const due = async () =>
      (await call(p.url, "GET", "/risk/validation-report/due")).body.items as Due[];
    const botReport = async () => {
      const res = await call(p.url, "GET", `/bots/cc-bot/risk/validation-report?year=${YEAR}`);
      expect(res.status, res.text).toBe(200);
      return res;
    };
    const sign = (
      slot: string,
      reportSha256: string,
      statement = "Reviewed; controls adequate.",
      who = "alice",
    ) =>
      call(
        p.url,
        "POST",
        "/risk/validation-report/signatures",
        { bot_ref: "cc-bot", year: YEAR, slot, statement, report_sha256: reportSha256 },
        as(who),
      );
    const stored = async () =>
      (await call(p.url, "GET", "/risk/validation-report/signed?bot_ref=cc-bot")).body
        .items as Stored[];
    const audit = async (action: string) =>
      (await call(p.url, "GET", `/admin/audit-events?action=${action}`)).body.items as Array<{
        outcome: string;
        resource: string;
      }>;

    beforeAll(async () => {
      p = await startTestPlatform(backend);
      const created = await call(p.url, "POST", "/bots", spec(LIMITS), as("alice"));
      expect(created.status, created.text).toBe(201);
    }, PLATFORM_START_TIMEOUT_MS);
    afterAll(async () => {
      await p?.close();
    });

    it("a risk-limit change marks the year's report as due, and the report lists the change", async () => {
      expect((await due()).filter((d) => d.bot === "cc-bot")).toEqual([]);
      const changed = await call(
        p.url,
        "PUT",
        "/bots/cc-bot",
        { spec: spec({ ...LIMITS, max_order_units: 10 }) },
        as("alice"),
      );
      expect(changed.status, changed.text).toBe(200);
      const [item] = await eventually(
        "the change reaches the compliance service",
        async () => (await due()).filter((d) => d.bot === "cc-bot"),
        (items) => items.length > 0,
      );
      expect(item).toMatchObject({
        year: YEAR,
        scope: "bot",
        bot: "cc-bot",
        kinds: ["risk_limits"],
      });
      expect(item!.control_changes).toHaveLength(1);

      const res = await botReport();
      const doc = parse(res.text);
      expect(await reportSchemaErrors(doc)).toEqual([]);
      const changes = doc.evidence.control_changes as ChangeEntry[];
      expect(changes).toEqual([
        expect.objectContaining({
          id: item!.control_changes[0],
          kind: "risk_limits",
          bot_slug: "cc-bot",
          previous_version: 1,
          version: 2,
          before: { max_order_units: 5 },
          after: { max_order_units: 10 },
        }),
      ]);
      // Byte-identical when asked again.
      expect((await botReport()).text).toBe(res.text);
    });

    it("a change of the strategy (control code) and of the kill-switch settings is a control change too; a rename is not", async () => {
      const renamed = await call(
        p.url,
        "PUT",
        "/bots/cc-bot",
        { spec: { ...spec({ ...LIMITS, max_order_units: 10 }), name: "cc bot", slug: "cc-bot" } },
        as("alice"),
      );
      expect(renamed.status, renamed.text).toBe(200);
      const recoded = await call(
        p.url,
        "PUT",
        "/bots/cc-bot",
        {
          spec: {
            ...spec({ ...LIMITS, max_order_units: 10 }),
            strategy: { family: "ma_crossover", parameters: { fast: 4, slow: 8 } },
          },
        },
        as("alice"),
      );
      expect(recoded.status, recoded.text).toBe(200);
      const schedule = await call(
        p.url,
        "PUT",
        "/kill-switch/drills/schedule",
        { enabled: true, month_of_quarter: 2, day_of_month: 10, hour_utc: 9, reason: "Q drill" },
        as("alice"),
      );
      expect(schedule.status, schedule.text).toBe(200);
      const fleet = await call(
        p.url,
        "PUT",
        "/fleets/cc-fleet/risk-limits",
        { capital_limit: 1_000_000, credit_limit: 50_000 },
        as("alice"),
      );
      expect(fleet.status, fleet.text).toBe(200);
      const items = await eventually(
        "both changes are recorded",
        due,
        (d) =>
          d.some((x) => x.scope === "platform" && x.control_changes.length === 2) &&
          d.some((x) => x.bot === "cc-bot" && x.kinds.includes("control_code")),
      );
      // A fleet's limits and the kill-switch settings hold many bots: the platform report is due.
      expect(items.find((x) => x.scope === "platform")).toMatchObject({
        year: YEAR,
        bot: "",
        kinds: ["kill_switch_settings", "risk_limits"],
      });
      const bot = items.find((x) => x.bot === "cc-bot")!;
      expect(bot.kinds).toEqual(["control_code", "risk_limits"]);
      expect(bot.control_changes).toHaveLength(2);
      const doc = parse((await botReport()).text);
      const kinds = (doc.evidence.control_changes as ChangeEntry[]).map((c) => [c.kind, c.version]);
      // The kill-switch settings hold every bot: its report lists them too, oldest first; the
      // limits of a fleet it is not in are not its.
      expect(kinds).toEqual([
        ["risk_limits", 2],
        ["control_code", 4],
        ["kill_switch_settings", null],
      ]);
      const code = (doc.evidence.control_changes as ChangeEntry[])[1]!;
      expect(code.before).toEqual({
        strategy: { family: "ma_crossover", parameters: { fast: 3, slow: 8 } },
      });
    });

    it("signing fills the slot, stores the signed report with its digest, signatures and a retention date seven years on, and the report is no longer due", async () => {
      const read = await botReport();
      const stale = await sign("risk_management_function", "0".repeat(64));
      expect([stale.status, stale.body.error.code]).toEqual([409, "report_changed"]);
      const badSlot = await sign("chief_of_fun", read.headers.get("x-report-sha256")!);
      expect([badSlot.status, badSlot.body.error.details.field]).toEqual([400, "slot"]);

      const signed = await sign("risk_management_function", read.headers.get("x-report-sha256")!);
      expect(signed.status, signed.text).toBe(201);
      const item = signed.body as Stored;
      expect(item).toMatchObject({
        scope: "bot",
        bot: "cc-bot",
        year: YEAR,
        unsigned_sha256: sha256(read.text),
        signatures: [
          {
            slot: "risk_management_function",
            role: "Head of Risk",
            signed_by: expect.stringContaining("alice"),
          },
        ],
        href: `/risk/validation-report/signed/${item.id}`,
      });
      const at = new Date(item.signed_at);
      const until = new Date(at);
      until.setUTCFullYear(at.getUTCFullYear() + 7);
      expect(item.retain_until).toBe(until.toISOString());
      const listed = parse(read.text).evidence.control_changes.map((c: ChangeEntry) => c.id);
      expect(item.control_changes).toEqual(listed);

      // A stored report is served byte for byte, its digest the SHA-256 of those bytes.
      const served = await call(p.url, "GET", item.href);
      expect(served.status).toBe(200);
      expect(served.headers.get("content-type")).toContain("application/yaml");
      expect(sha256(served.text)).toBe(item.sha256);
      expect(served.headers.get("x-report-sha256")).toBe(item.sha256);
      expect((await call(p.url, "GET", item.href)).text).toBe(served.text);
      const doc = parse(served.text);
      expect(await reportSchemaErrors(doc)).toEqual([]);
      expect(doc.attestations.risk_management_function).toMatchObject({
        signed_by: expect.stringContaining("alice"),
        signed_at: item.signed_at,
        statement: "Reviewed; controls adequate.",
      });
      expect(doc.attestations.internal_audit.signed_by).toBeNull();
      expect((await stored()).map((s) => s.id)).toEqual([item.id]);

      // The bot's changes are covered; the kill-switch settings wait for the platform report.
      const left = await due();
      expect(left.filter((d) => d.bot === "cc-bot")).toEqual([]);
      expect(left.filter((d) => d.scope === "platform")).toHaveLength(1);
    });

    it("a signed slot is never overwritten; a second signer gets a new stored copy beside the first", async () => {
      const read = await botReport();
      const again = await sign("risk_management_function", read.headers.get("x-report-sha256")!);
      expect([again.status, again.body.error.code]).toEqual([409, "report_already_signed"]);
      // One officer cannot fill two slots: alice signed the risk function's already.
      const alone = await sign("internal_audit", read.headers.get("x-report-sha256")!, "Audited.");
      expect([alone.status, alone.body.error.code]).toEqual([403, "four_eyes_violation"]);
      const second = await sign(
        "internal_audit",
        read.headers.get("x-report-sha256")!,
        "Audited.",
        "bob",
      );
      expect(second.status, second.text).toBe(201);
      expect((second.body as Stored).signatures.map((s) => [s.slot, s.role])).toEqual([
        ["risk_management_function", "Head of Risk"],
        ["internal_audit", "Head of Internal Audit"],
      ]);
      const [first, both] = await stored();
      expect(both!.id).toBe(second.body.id);
      expect(first!.signatures).toHaveLength(1);
      const refusals = await eventually(
        "the refused overwrite reaches the audit trail",
        () => audit("compliance.report.sign"),
        (rows) => rows.some((r) => r.outcome === "denied"),
      );
      expect(refusals.find((r) => r.outcome === "denied")!.resource).toBe(
        `signed_report/${first!.id}`,
      );
    });

    it("deleting a signed report before its retention date is refused (409), audited, and it is still served", async () => {
      const [first] = await stored();
      const refused = await call(p.url, "DELETE", first!.href, undefined, as("alice"));
      expect(refused.status, refused.text).toBe(409);
      expect(refused.body.error).toMatchObject({
        code: "evidence_retained",
        details: { report_id: first!.id, retain_until: first!.retain_until },
      });
      const rows = await eventually(
        "the refused delete reaches the audit trail",
        () => audit("compliance.report.delete"),
        (r) => r.length > 0,
      );
      expect(rows[0]).toMatchObject({ outcome: "denied", resource: `signed_report/${first!.id}` });
      expect(sha256((await call(p.url, "GET", first!.href)).text)).toBe(first!.sha256);
    });

    it("the database itself refuses an UPDATE or a DELETE before the retention date, whoever asks", async () => {
      const [first] = await stored();
      const db = p.platform.db.db;
      await expect(
        sql`update compliance.signed_reports set report = 'forged' where id = ${first!.id}`.execute(
          db,
        ),
      ).rejects.toThrow(/append-only: UPDATE refused/);
      await expect(
        sql`delete from compliance.signed_reports where id = ${first!.id}`.execute(db),
      ).rejects.toThrow(/append-only: DELETE refused before the retention date/);
      await expect(sql`truncate compliance.signed_reports`.execute(db)).rejects.toThrow(
        /append-only/,
      );
      expect(sha256((await call(p.url, "GET", first!.href)).text)).toBe(first!.sha256);
    });

    it("a report past its retention date can be deleted, and the delete is audited", async () => {
      const db = p.platform.db.db;
      await sql`insert into compliance.signed_reports
      (id, scope, bot_id, bot_slug, year, report, sha256, unsigned_sha256, signatures, slots,
       control_changes, signed_at, retain_until)
      values ('old-report', 'platform', null, null, 2018, 'x: 1', ${sha256("x: 1")}, ${sha256("x: 1")},
              '[]', '', '[]', '2019-01-02T00:00:00Z', '2026-01-02T00:00:00Z')`.execute(db);
      const gone = await call(
        p.url,
        "DELETE",
        "/risk/validation-report/signed/old-report",
        undefined,
        as("alice"),
      );
      expect(gone.status, gone.text).toBe(200);
      expect((await call(p.url, "GET", "/risk/validation-report/signed/old-report")).status).toBe(
        404,
      );
      await eventually(
        "the delete reaches the audit trail",
        () => audit("compliance.report.delete"),
        (r) =>
          r.some((x) => x.outcome === "succeeded" && x.resource === "signed_report/old-report"),
      );
    });
  },
);

describe("signing a validation report needs step-up MFA", () => {
  let o: OidcPlatform;
  const SCOPES = ["read:compliance", "sign:compliance"];
  beforeAll(async () => {
    o = await startOidcPlatform("pglite", [testUser("head-of-risk", SCOPES)]);
  }, 60_000);
  afterAll(async () => {
    await o?.close();
  });

  it("a password-only sign-in is refused with the RFC 9470 challenge and stores nothing; a fresh MFA sign-in stores the signed report", async () => {
    const single = await o.tokens.user("head-of-risk");
    const auth = (t: string) => ({ authorization: `Bearer ${t}` });
    const read = await call(
      o.p.url,
      "GET",
      `/risk/validation-report?year=${YEAR}`,
      undefined,
      auth(single),
    );
    expect(read.status, read.text).toBe(200);
    const body = {
      year: YEAR,
      slot: "risk_management_function",
      statement: "Reviewed.",
      report_sha256: read.headers.get("x-report-sha256"),
    };
    const refused = await call(
      o.p.url,
      "POST",
      "/risk/validation-report/signatures",
      body,
      auth(single),
    );
    expect(refused.status, refused.text).toBe(401);
    expect(refused.body.error.code).toBe("insufficient_user_authentication");
    expect(refused.headers.get("www-authenticate")).toContain(
      'error="insufficient_user_authentication"',
    );
    const list = await call(
      o.p.url,
      "GET",
      "/risk/validation-report/signed",
      undefined,
      auth(single),
    );
    expect(list.body.items).toEqual([]);

    const fresh = await o.tokens.user("head-of-risk", { mfa: true });
    const signed = await call(
      o.p.url,
      "POST",
      "/risk/validation-report/signatures",
      body,
      auth(fresh),
    );
    expect(signed.status, signed.text).toBe(201);
    expect(signed.body).toMatchObject({ scope: "platform", year: YEAR });
  });
});
