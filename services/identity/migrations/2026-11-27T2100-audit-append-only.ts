import { sql, type Kysely } from "kysely";

/**
 * The audit trail becomes append-only in the database itself: a row trigger refuses UPDATE and
 * DELETE and a statement trigger refuses TRUNCATE, for every session, a superuser's included,
 * unless that session has set `svc.audit_maintenance` to `on` (docs/audit.md, the runbook). The
 * privileges follow: nobody but the owner keeps more than INSERT and SELECT, and the owner (the
 * identity role in a cluster) gives up UPDATE, DELETE and TRUNCATE on it too. A superuser or the
 * owner can still lift either guard; what catches that is the signed checkpoints outside the
 * database, not this migration.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create function identity.security_audit_events_append_only() returns trigger
    language plpgsql as $$
    begin
      if coalesce(current_setting('svc.audit_maintenance', true), '') = 'on' then
        return coalesce(new, old);
      end if;
      raise exception 'security_audit_events is append-only: % refused', tg_op
        using errcode = 'insufficient_privilege',
              hint = 'set svc.audit_maintenance = on in the session only under the runbook of docs/audit.md';
    end
    $$`.execute(db);
  await sql`
    create trigger security_audit_events_no_rewrite
    before update or delete on identity.security_audit_events
    for each row execute function identity.security_audit_events_append_only()`.execute(db);
  await sql`
    create trigger security_audit_events_no_truncate
    before truncate on identity.security_audit_events
    for each statement execute function identity.security_audit_events_append_only()`.execute(db);
  await sql`revoke update, delete, truncate on identity.security_audit_events from public`.execute(
    db,
  );
  await sql`revoke update, delete, truncate on identity.security_audit_events from current_user`.execute(
    db,
  );
}
