import { sql, type Kysely } from "kysely";

// Frozen in time: imports no app code.
export async function up(db: Kysely<unknown>): Promise<void> {
  // A finished run's curve and daily returns (about 1 MB for 20,000 days) are written once and
  // read whole. As compressed jsonb, writing one took about 50 ms of the embedded database's one
  // connection (most of it compressing), and every request waited behind it; as uncompressed json
  // it takes a sixth of that. Reads that need jsonb operators cast.
  await sql`alter table bots.backtest_results
    alter column equity type json using equity::json,
    alter column equity set storage external,
    alter column daily_returns type json using daily_returns::json,
    alter column daily_returns set storage external`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`alter table bots.backtest_results
    alter column equity type jsonb using equity::jsonb,
    alter column equity set storage extended,
    alter column daily_returns type jsonb using daily_returns::jsonb,
    alter column daily_returns set storage extended`.execute(db);
}
