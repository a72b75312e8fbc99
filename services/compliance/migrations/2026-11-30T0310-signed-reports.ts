import { sql, type Kysely } from "kysely";

// Frozen in time: imports no app code.
// Signed validation reports, kept at least seven years (the spec's retention): append-only in
// the database itself. A row trigger refuses every UPDATE (a signed report is never overwritten:
// a new signature is a new row) and a DELETE before the row's retain_until; a statement trigger
// refuses TRUNCATE. Like the audit trail's guard it holds for every session, the owner's and a
// superuser's included, unless that session sets svc.audit_maintenance to on (docs/audit.md).
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("signed_reports")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("scope", "text", (c) => c.notNull())
    .addColumn("bot_id", "text")
    .addColumn("bot_slug", "text")
    .addColumn("year", "integer", (c) => c.notNull())
    .addColumn("report", "text", (c) => c.notNull())
    .addColumn("sha256", "text", (c) => c.notNull())
    .addColumn("unsigned_sha256", "text", (c) => c.notNull())
    .addColumn("signatures", "jsonb", (c) => c.notNull())
    .addColumn("control_changes", "jsonb", (c) => c.notNull())
    .addColumn("signed_at", "timestamptz(3)", (c) => c.notNull())
    .addColumn("retain_until", "timestamptz(3)", (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex("signed_reports_by_time")
    .on("signed_reports")
    .columns(["signed_at", "id"])
    .execute();
  // The slots a copy holds, for the unique index below: "ceo_certification,internal_audit".
  await sql`alter table compliance.signed_reports add column slots text not null`.execute(db);
  // Two people signing the same slot of the same content at once cannot both win.
  await sql`
    create unique index signed_reports_one_per_slots
    on compliance.signed_reports (scope, coalesce(bot_id, ''), year, unsigned_sha256, slots)`.execute(
    db,
  );
  await sql`
    create function compliance.signed_reports_retained() returns trigger
    language plpgsql as $$
    begin
      if coalesce(current_setting('svc.audit_maintenance', true), '') = 'on' then
        return coalesce(new, old);
      end if;
      if tg_op = 'DELETE' and old.retain_until <= now() then
        return old;
      end if;
      raise exception 'signed_reports is append-only: % refused%', tg_op,
        case when tg_op = 'DELETE' then ' before the retention date ' || old.retain_until::text
             when tg_op = 'UPDATE' then ' (a signed report is never overwritten)' else '' end
        using errcode = 'insufficient_privilege',
              hint = 'a signed report is kept until its retain_until (signed_at + 7 years)';
    end
    $$`.execute(db);
  await sql`
    create trigger signed_reports_no_rewrite
    before update or delete on compliance.signed_reports
    for each row execute function compliance.signed_reports_retained()`.execute(db);
  await sql`
    create trigger signed_reports_no_truncate
    before truncate on compliance.signed_reports
    for each statement execute function compliance.signed_reports_retained()`.execute(db);
  // The privileges follow: nobody keeps UPDATE or TRUNCATE, the owner (the compliance role in a
  // cluster) included; DELETE stays for reports past their date, which the trigger judges.
  await sql`revoke update, truncate on compliance.signed_reports from public`.execute(db);
  await sql`revoke update, truncate on compliance.signed_reports from current_user`.execute(db);
}
