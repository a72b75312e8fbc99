import { randomUUID } from "node:crypto";
import { sql } from "kysely";
import type { RunningPlatform } from "@svc/all-in-one";

/**
 * Makes each subject a member of a test org, as a login through the post-login hook would: under
 * SVC_AUTH_ENFORCE (strict by default) a person without membership rows is refused, so a test
 * about something else gives its people one.
 */
export async function grantMembership(p: RunningPlatform, ...subjects: string[]): Promise<void> {
  const db = p.platform.db.db;
  const org = randomUUID();
  await sql`insert into identity.orgs (id, external_id, name) values (${org}, ${org}, 'test org')`.execute(
    db,
  );
  for (const subject of subjects) {
    const user = randomUUID();
    await sql`insert into identity.users (id, subject, email) values (${user}, ${subject}, '')
              on conflict (subject) do nothing`.execute(db);
    await sql`insert into identity.memberships (user_id, org_id, scope_kind, scope_id, role, source)
              select id, ${org}, 'org', ${org}, 'member', 'idp_org' from identity.users
              where subject = ${subject}`.execute(db);
  }
}
