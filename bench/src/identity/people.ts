import { randomUUID } from "node:crypto";
import { sql, type Kysely } from "kysely";

/**
 * Makes each subject a member of one bench org, as the post-login hook would (the rows
 * test/support/memberships.ts grants), in one statement per table: thousands of people are
 * needed for every cold request to be a person the membership cache has not seen.
 */
export async function grantMemberships<DB>(db: Kysely<DB>, subjects: string[]): Promise<void> {
  const org = randomUUID();
  await sql`insert into identity.orgs (id, external_id, name) values (${org}, ${org}, 'bench org')`.execute(
    db,
  );
  await sql`insert into identity.users (id, subject, email)
            select gen_random_uuid(), s, '' from unnest(${subjects}::text[]) as s
            on conflict (subject) do nothing`.execute(db);
  await sql`insert into identity.memberships (user_id, org_id, scope_kind, scope_id, role, source)
            select u.id, ${org}, 'org', ${org}, 'member', 'idp_org' from identity.users u
            where u.subject = any(${subjects}::text[])`.execute(db);
}
