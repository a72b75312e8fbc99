import { randomUUID } from "node:crypto";
import { sql, type Kysely, type Transaction } from "kysely";
import { keysetAfter, timestampKey } from "@svc/lib/paging";
import type { BotsDatabase, ComplianceRunRow, ComplianceRunsTable } from "./bots.table.js";

type Db = Kysely<BotsDatabase> | Transaction<BotsDatabase>;

/** A run a statement just ended: what its workload_run stop entry names. */
export type EndedComplianceRun = Pick<ComplianceRunRow, "task_id" | "bot_id" | "version" | "kind">;
const ENDED = ["task_id", "bot_id", "version", "kind"] as const;
const now = () => sql<Date>`now()` as unknown as Date;

/** Only SQL lives here: rows of compliance_runs, the RTS 6 conformance and stress runs. */
export function insertComplianceRun(
  db: Db,
  r: {
    botId: string;
    kind: ComplianceRunsTable["kind"];
    version: number;
    versionHash: string;
    peakMultiple: number;
    casesTotal: number;
    requestedBy: string;
    hostId: string;
  },
): Promise<ComplianceRunRow> {
  const id = randomUUID();
  return db
    .insertInto("compliance_runs")
    .values({
      id,
      bot_id: r.botId,
      kind: r.kind,
      version: r.version,
      version_hash: r.versionHash,
      task_id: `${r.kind === "conformance" ? "cf" : "st"}-${id.slice(0, 8)}`,
      status: "pending",
      peak_multiple: r.peakMultiple,
      cases_total: r.casesTotal,
      requested_by: r.requestedBy,
      host: r.hostId,
      host_seen_at: now(),
    })
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** How many compliance runs the bot has: evidence that outlives the bot's deletion. */
export async function countComplianceRuns(db: Db, botId: string): Promise<number> {
  const row = await db
    .selectFrom("compliance_runs")
    .select((eb) => eb.fn.countAll<string>().as("n"))
    .where("bot_id", "=", botId)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** Renews this process's lease on the runs it is running. */
export async function renewComplianceRunLeases(
  db: Db,
  hostId: string,
  taskIds: string[],
): Promise<void> {
  if (taskIds.length === 0) return;
  await db
    .updateTable("compliance_runs")
    .set({ host_seen_at: now() })
    .where("host", "=", hostId)
    .where("task_id", "in", taskIds)
    .execute();
}

/**
 * Ends failed, with `error`, every run left pending or running by a process whose lease lapsed
 * (or by one from before leases), except those running here. Returns their task ids.
 */
export async function failOrphanedComplianceRuns(
  db: Db,
  o: { runningHere: string[]; leaseSeconds: number; error: string },
): Promise<EndedComplianceRun[]> {
  let q = db
    .updateTable("compliance_runs")
    .set({ status: "failed", passed: false, error: o.error, finished_at: now() })
    .where("status", "in", ["pending", "running"])
    .where((eb) =>
      eb.or([
        eb("host", "is", null),
        eb("host_seen_at", "is", null),
        eb("host_seen_at", "<", sql<Date>`now() - make_interval(secs => ${o.leaseSeconds})`),
      ]),
    );
  if (o.runningHere.length > 0) q = q.where("task_id", "not in", o.runningHere);
  return q.returning(ENDED).execute();
}

export async function markComplianceRunRunning(db: Db, id: string): Promise<void> {
  await db
    .updateTable("compliance_runs")
    .set({ status: "running", started_at: now() })
    .where("id", "=", id)
    .where("status", "=", "pending")
    .execute();
}

/** Progress: steps done, and the cases finished so far (a reader sees them as they come). */
export async function recordComplianceProgress(
  db: Db,
  id: string,
  done: number,
  cases?: readonly object[],
): Promise<void> {
  await db
    .updateTable("compliance_runs")
    .set({ cases_done: done, ...(cases ? { cases: JSON.stringify(cases) } : {}) })
    .where("id", "=", id)
    .where("status", "=", "running")
    .execute();
}

/** The run's results, once: only a running row ends, so an ended run is never rewritten. */
export async function finishComplianceRun(
  db: Db,
  id: string,
  end: {
    passed: boolean;
    cases: readonly object[];
    stress?: object;
  },
): Promise<EndedComplianceRun | undefined> {
  return db
    .updateTable("compliance_runs")
    .set({
      status: "completed",
      passed: end.passed,
      cases: JSON.stringify(end.cases),
      stress: end.stress ? JSON.stringify(end.stress) : null,
      finished_at: now(),
    })
    .where("id", "=", id)
    .where("status", "=", "running")
    .returning(ENDED)
    .executeTakeFirst();
}

export function failComplianceRun(
  db: Db,
  id: string,
  error: string,
): Promise<EndedComplianceRun | undefined> {
  return db
    .updateTable("compliance_runs")
    .set({ status: "failed", passed: false, error, finished_at: now() })
    .where("id", "=", id)
    .where("status", "in", ["pending", "running"])
    .returning(ENDED)
    .executeTakeFirst();
}

export function findComplianceRun(
  db: Db,
  botId: string,
  id: string,
): Promise<ComplianceRunRow | undefined> {
  return db
    .selectFrom("compliance_runs")
    .selectAll()
    .where("bot_id", "=", botId)
    .where("id", "=", id)
    .executeTakeFirst();
}

/** The sort keys of a bot's compliance runs: created_at, then id. */
export const COMPLIANCE_RUN_KEYS = ["timestamp", "uuid"] as const;

/**
 * One page of the bot's runs, oldest first, by (created_at, id); `year` (UTC) keeps those created
 * in that calendar year. The (bot_id, created_at, id) index serves it.
 */
export function listComplianceRuns(
  db: Db,
  botId: string,
  filter: {
    kind?: ComplianceRunsTable["kind"];
    year?: number;
    limit: number;
    after?: readonly string[];
  },
): Promise<Array<ComplianceRunRow & { created_key: string }>> {
  let q = db
    .selectFrom("compliance_runs")
    .selectAll()
    .select((eb) => timestampKey(eb.ref("created_at")).as("created_key"))
    .where("bot_id", "=", botId);
  if (filter.after)
    q = q.where((eb) =>
      keysetAfter([eb.ref("created_at"), eb.ref("id")], filter.after!, COMPLIANCE_RUN_KEYS, "asc"),
    );
  if (filter.kind) q = q.where("kind", "=", filter.kind);
  if (filter.year) {
    q = q
      .where("created_at", ">=", new Date(Date.UTC(filter.year, 0, 1)))
      .where("created_at", "<", new Date(Date.UTC(filter.year + 1, 0, 1)));
  }
  return q.orderBy("created_at").orderBy("id").limit(filter.limit).execute();
}
