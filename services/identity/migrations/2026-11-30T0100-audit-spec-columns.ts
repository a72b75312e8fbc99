import { sql, type Kysely } from "kysely";

/**
 * The audit trail takes the spec's column names (service-interface.md: created_at, user_id,
 * actor_user_id, event_type, details with details.delegation for a delegated call). Every step is
 * an ALTER, never an UPDATE: the append-only triggers stay untouched, no maintenance setting is
 * needed, and the rows keep their hashes. Those rows are marked hash_format 1: their hash covers
 * the fields under the old names, which the verifier rebuilds from the new columns (the agent and
 * the person it acted for are read back from details.delegation; a block this migration added
 * says so in `added_by` and is left out). Rows appended after this are hash_format 2: the hash covers the
 * columns as named now.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  const t = sql.table("identity.security_audit_events");
  for (const [from, to] of [
    ["occurred_at", "created_at"],
    ["action", "event_type"],
    ["actor_subject", "actor_user_id"],
    ["internal_user_id", "user_id"],
  ])
    await sql`alter table ${t} rename column ${sql.ref(from!)} to ${sql.ref(to!)}`.execute(db);
  for (const [from, to] of [
    ["occurred_at", "created_at"],
    ["action", "event_type"],
    ["actor_subject", "actor_user_id"],
  ])
    await sql`alter index ${sql.table(`identity.security_audit_events_${from}_idx`)} rename to ${sql.ref(`security_audit_events_${to}_idx`)}`.execute(
      db,
    );
  await sql`alter table ${t} add column hash_format smallint not null default 1`.execute(db);
  await sql`alter table ${t} alter column hash_format drop default`.execute(db);
  // A delegated row whose details hold no delegation block (the MCP tools wrote one already) gets
  // one, marked as added here, first in the details text (still JSON: the hash reads it parsed),
  // spliced in so the rest of the text stays exactly as it was.
  await sql`
    alter table ${t} alter column details type text using (
      case when agent_subject = '' or (details::jsonb ? 'delegation') then details
      else '{"delegation":' || json_build_object(
             'agent_subject', agent_subject,
             'on_behalf_of_user_id', user_id,
             'on_behalf_of_sub', on_behalf_of,
             'profile', 'svc-agent-delegation',
             'added_by', '2026-11-30T0100-audit-spec-columns')::text
           || case when details = '{}' then '}' else ',' || substr(details, 2) end
      end)`.execute(db);
  await sql`alter table ${t} drop column agent_subject, drop column on_behalf_of`.execute(db);
}
