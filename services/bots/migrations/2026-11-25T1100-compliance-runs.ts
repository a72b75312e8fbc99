import { sql, type Kysely } from "kysely";

// Frozen in time: imports no app code.
export async function up(db: Kysely<unknown>): Promise<void> {
  // RTS 6 conformance (Art. 6) and stress (Art. 10) runs of one bot version, with their results:
  // the evidence the annual validation report embeds, so a row is never rewritten once ended.
  await db.schema
    .createTable("compliance_runs")
    .addColumn("id", "uuid", (c) => c.primaryKey())
    .addColumn("bot_id", "uuid", (c) => c.notNull().references("bots.id").onDelete("cascade"))
    .addColumn("kind", "text", (c) => c.notNull())
    .addColumn("version", "integer", (c) => c.notNull())
    .addColumn("version_hash", "text", (c) => c.notNull())
    .addColumn("task_id", "text", (c) => c.notNull().unique())
    .addColumn("status", "text", (c) => c.notNull())
    .addColumn("passed", "boolean", (c) => c.notNull().defaultTo(false))
    .addColumn("peak_multiple", "double precision", (c) => c.notNull())
    .addColumn("cases", "jsonb", (c) => c.notNull().defaultTo(sql`'[]'::jsonb`))
    .addColumn("stress", "jsonb")
    .addColumn("cases_done", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("cases_total", "integer", (c) => c.notNull())
    .addColumn("error", "text")
    .addColumn("requested_by", "text", (c) => c.notNull())
    .addColumn("created_at", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn("started_at", "timestamptz")
    .addColumn("finished_at", "timestamptz")
    .execute();
  await db.schema
    .createIndex("compliance_runs_bot_created")
    .on("compliance_runs")
    .columns(["bot_id", "created_at"])
    .execute();
}
