import {
  recordAudit as recordPlatformAudit,
  type AuditEntry,
  type AuditOrigin,
} from "@svc/lib/audit";
import { sql, type Kysely, type Selectable, type Transaction } from "kysely";
import { COMPLIANCE_SCHEMA, type ComplianceDatabase } from "./compliance.table.js";

type Db = Kysely<ComplianceDatabase> | Transaction<ComplianceDatabase>;

export type ControlChangeRow = Selectable<ComplianceDatabase["control_changes"]>;
export type SignedReportRow = Selectable<ComplianceDatabase["signed_reports"]>;
export type NewControlChange = Omit<ControlChangeRow, "before" | "after"> & {
  before: Record<string, unknown>;
  after: Record<string, unknown>;
};

/** Records a change once: the same change announced again (a redelivery) is not a second one. */
export async function insertControlChange(db: Db, c: NewControlChange): Promise<void> {
  await db
    .insertInto("control_changes")
    .values({ ...c, before: JSON.stringify(c.before), after: JSON.stringify(c.after) })
    .onConflict((oc) => oc.column("id").doNothing())
    .execute();
}

/** The changes made in [from, to), oldest first. */
export async function controlChangesBetween(
  db: Db,
  from: Date,
  to: Date,
): Promise<ControlChangeRow[]> {
  return db
    .selectFrom("control_changes")
    .selectAll()
    .where("changed_at", ">=", from)
    .where("changed_at", "<", to)
    .orderBy("changed_at")
    .orderBy("id")
    .execute();
}

/**
 * Changes no stored signed report covers yet, oldest first: a bot's change is covered by a signed
 * report (the bot's or the platform's) that lists it; a fleet's or the kill-switch settings' only
 * by a signed platform report that lists it.
 */
export async function uncoveredControlChanges(db: Db): Promise<ControlChangeRow[]> {
  return db
    .selectFrom("control_changes as c")
    .selectAll("c")
    .where(({ not, exists, selectFrom }) =>
      not(
        exists(
          selectFrom("signed_reports as r")
            .select(sql`1`.as("one"))
            .where(sql<boolean>`r.control_changes @> jsonb_build_array(c.id)`)
            .where(sql<boolean>`(c.bot_id is not null or r.scope = 'platform')`),
        ),
      ),
    )
    .orderBy("c.changed_at")
    .orderBy("c.id")
    .execute();
}

export async function insertSignedReport(
  trx: Transaction<ComplianceDatabase>,
  row: Omit<SignedReportRow, "signatures" | "control_changes"> & {
    signatures: unknown[];
    control_changes: string[];
  },
): Promise<SignedReportRow> {
  return trx
    .insertInto("signed_reports")
    .values({
      ...row,
      signatures: JSON.stringify(row.signatures),
      control_changes: JSON.stringify(row.control_changes),
    })
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** Serializes the signers of one report (scope, bot, year) for the rest of the transaction. */
export async function lockReport(trx: Transaction<ComplianceDatabase>, key: string): Promise<void> {
  await sql`select pg_advisory_xact_lock(hashtext(${`signed-report:${key}`}))`.execute(trx);
}

/** The latest stored copy of one report's content (the same unsigned bytes), if any. */
export async function latestCopyOf(
  db: Db,
  q: { scope: string; botId: string | null; year: number; unsignedSha256: string },
): Promise<SignedReportRow | undefined> {
  let query = db
    .selectFrom("signed_reports")
    .selectAll()
    .where("scope", "=", q.scope as "bot" | "platform")
    .where("year", "=", q.year)
    .where("unsigned_sha256", "=", q.unsignedSha256);
  query =
    q.botId === null ? query.where("bot_id", "is", null) : query.where("bot_id", "=", q.botId);
  // Each copy holds every signature of the one before it: the newest holds the most, whatever
  // the clocks of the processes that stamped them say.
  return query
    .orderBy(sql`jsonb_array_length(signatures::jsonb)`, "desc")
    .orderBy("signed_at", "desc")
    .orderBy("id", "desc")
    .executeTakeFirst();
}

/** Stored signed reports, oldest first, without their bytes; `bot` is an id, a slug or "platform". */
export async function listSignedReports(
  db: Db,
  f: { year?: number; bot?: string },
): Promise<Array<Omit<SignedReportRow, "report">>> {
  let q = db
    .selectFrom("signed_reports")
    .select([
      "id",
      "scope",
      "bot_id",
      "bot_slug",
      "year",
      "sha256",
      "unsigned_sha256",
      "signatures",
      "slots",
      "control_changes",
      "signed_at",
      "retain_until",
    ]);
  if (f.year !== undefined) q = q.where("year", "=", f.year);
  const bot = f.bot;
  if (bot === "platform") q = q.where("scope", "=", "platform");
  else if (bot !== undefined)
    q = q.where((eb) => eb.or([eb("bot_id", "=", bot), eb("bot_slug", "=", bot)]));
  return q.orderBy("signed_at").orderBy("id").execute();
}

export async function findSignedReport(db: Db, id: string): Promise<SignedReportRow | undefined> {
  return db.selectFrom("signed_reports").selectAll().where("id", "=", id).executeTakeFirst();
}

/** Deletes a report; the database refuses it (insufficient_privilege) before its retain_until. */
export async function deleteSignedReport(
  trx: Transaction<ComplianceDatabase>,
  id: string,
): Promise<void> {
  await trx.deleteFrom("signed_reports").where("id", "=", id).execute();
}

export async function recordAudit(
  trx: Transaction<ComplianceDatabase>,
  origin: AuditOrigin,
  entry: AuditEntry,
): Promise<void> {
  await recordPlatformAudit(trx, COMPLIANCE_SCHEMA, "compliance", origin, entry);
}
