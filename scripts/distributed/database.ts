import { randomBytes } from "node:crypto";
import pg from "pg";

/** The services that own a schema, each under a role of its own. */
export const SCHEMA_OWNERS = ["bots", "promotion", "killswitch", "compliance", "identity"] as const;
export type SchemaOwner = (typeof SCHEMA_OWNERS)[number];

const STATEMENT_TIMEOUT_MS = 10_000;

/**
 * Makes `database` (unless it exists) and, per service, a login role that owns the schema named
 * after the service, with a password made now; PUBLIC loses every right on those schemas, so a
 * service reading another's tables is refused by Postgres itself. Returns each service's URL.
 * Roles are cluster-wide, so their names carry the database's: two topologies never share one.
 *
 * @example const urls = await provisionDatabase("postgres://postgres@127.0.0.1:5432/postgres", "svc");
 */
export async function provisionDatabase(
  adminUrl: string,
  database: string,
): Promise<Record<SchemaOwner, string>> {
  if (!/^[a-z_][a-z0-9_]{0,40}$/.test(database))
    throw new Error(`database name ${database}: lower-case letters, digits and _ only`);
  await withClient(adminUrl, async (admin) => {
    const found = await admin.query("select 1 from pg_database where datname = $1", [database]);
    if (found.rowCount === 0) await admin.query(`create database ${database}`);
  });
  const dbUrl = new URL(adminUrl);
  dbUrl.pathname = `/${database}`;
  const urls = {} as Record<SchemaOwner, string>;
  await withClient(dbUrl.toString(), async (db) => {
    await db.query("revoke create on schema public from public");
    for (const service of SCHEMA_OWNERS) {
      const role = roleOf(database, service);
      const password = randomBytes(18).toString("base64url");
      const exists = await db.query("select 1 from pg_roles where rolname = $1", [role]);
      // A password is a literal in CREATE/ALTER ROLE (no parameters there): base64url needs no quoting.
      await db.query(
        `${exists.rowCount === 0 ? "create" : "alter"} role ${role} login noinherit password '${password}'`,
      );
      await db.query(`grant create on database ${database} to ${role}`);
      await db.query(`create schema if not exists ${service} authorization ${role}`);
      await db.query(`alter schema ${service} owner to ${role}`);
      await db.query(`revoke all on schema ${service} from public`);
      const url = new URL(dbUrl);
      url.username = role;
      url.password = password;
      urls[service] = url.toString();
    }
  });
  return urls;
}

/** Drops the database and its roles (what a test made; a person's database is kept). */
export async function dropDatabase(adminUrl: string, database: string): Promise<void> {
  await withClient(adminUrl, async (admin) => {
    await admin.query(`drop database if exists ${database} with (force)`);
    for (const service of SCHEMA_OWNERS)
      await admin.query(`drop role if exists ${roleOf(database, service)}`);
  });
}

export function roleOf(database: string, service: SchemaOwner): string {
  return `${database}_${service}`;
}

async function withClient<T>(url: string, fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({
    connectionString: url,
    connectionTimeoutMillis: STATEMENT_TIMEOUT_MS,
    statement_timeout: STATEMENT_TIMEOUT_MS,
    query_timeout: STATEMENT_TIMEOUT_MS,
  });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}
