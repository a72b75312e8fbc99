import pg from "pg";

const POSTGRES = "postgres://postgres@127.0.0.1:5432";

/**
 * Runs `use` against a Postgres database made for it and dropped after, so the bench neither sees
 * nor touches the databases of other work on the same server.
 */
export async function withScratchDatabase<T>(
  name: string,
  use: (url: string) => Promise<T>,
): Promise<T> {
  const admin = new pg.Client({ connectionString: `${POSTGRES}/postgres` });
  await admin.connect();
  const db = `${name}_${process.pid}`;
  try {
    await admin.query(`CREATE DATABASE ${db}`);
    return await use(`${POSTGRES}/${db}`);
  } finally {
    await admin.query(`DROP DATABASE IF EXISTS ${db} WITH (FORCE)`).catch(() => {});
    await admin.end().catch(() => {});
  }
}
