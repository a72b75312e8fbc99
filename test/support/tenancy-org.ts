import { randomUUID } from "node:crypto";
import { sql } from "kysely";
import type { RunningPlatform } from "@svc/all-in-one";

/** An org of the identity schema, as the login hook would have provisioned it; answers its id. */
export async function createOrg(p: RunningPlatform, name: string): Promise<string> {
  const id = randomUUID();
  await sql`insert into identity.orgs (id, external_id, name) values (${id}, ${name}, ${name})`.execute(
    p.platform.db.db,
  );
  return id;
}

/** The membership rows a subject holds in an org, as `source:role` strings, sorted. */
export async function membershipsIn(
  p: RunningPlatform,
  orgId: string,
  subject: string,
): Promise<string[]> {
  const rows = await sql<{ m: string }>`
    select m.source || ':' || m.role || coalesce(nullif(':' || m.source_group, ':'), '') as m
    from identity.memberships m join identity.users u on u.id = m.user_id
    where m.org_id = ${orgId} and u.subject = ${subject} order by 1`.execute(p.platform.db.db);
  return rows.rows.map((r) => r.m);
}
