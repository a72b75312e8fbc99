import { sql, type Kysely } from "kysely";

// Frozen in time: imports no app code.
export async function up(db: Kysely<unknown>): Promise<void> {
  // A runner at a venue in the bots service's own process is a deployment of its own: live
  // (orders to the venue) or venue_paper (the venue's data, simulated fills). It is held under
  // the same lease (host, host_seen_at, lease_epoch) as a paper session.
  await db.schema
    .alterTable("bot_deployments")
    .dropConstraint("bot_deployments_target_check")
    .execute();
  await db.schema
    .alterTable("bot_deployments")
    .addCheckConstraint(
      "bot_deployments_target_check",
      sql`target in ('backtest', 'paper', 'k8s', 'live', 'venue_paper')`,
    )
    .execute();
  // One runner at a venue per bot: two concurrent deploys cannot both insert one.
  await db.schema
    .createIndex("bot_deployments_one_venue_runner")
    .on("bot_deployments")
    .column("bot_id")
    .unique()
    .where(sql.ref("target"), "in", ["live", "venue_paper"])
    .where(sql.ref("status"), "in", ["running", "parked"])
    .execute();
}
