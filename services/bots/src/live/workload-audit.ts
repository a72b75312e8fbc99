import type { JsonObject } from "@bufbuild/protobuf";
import type { Kysely } from "kysely";
import { recordAudit, type AuditOutcome } from "@svc/lib/audit";
import type { BotsDatabase } from "../store/bots.table.js";

/** The spec's audit action of a runner workload's start and stop. */
export const WORKLOAD_RUN = "workload_run";

/**
 * Writes a `workload_run` audit entry (service-interface.md, Audit 1) for a live or paper
 * runner's start or stop, done or refused, through the bots service's outbox: the identity
 * service chains it with every other audit record.
 */
export async function auditWorkloadRun(
  db: Kysely<BotsDatabase>,
  schema: string,
  entry: {
    op: "start" | "stop";
    outcome: AuditOutcome;
    slug: string;
    details: JsonObject;
  },
): Promise<void> {
  await db.transaction().execute((trx) =>
    recordAudit(
      trx,
      schema,
      "bots",
      { system: "system:bots-runner" },
      {
        action: WORKLOAD_RUN,
        outcome: entry.outcome,
        resource: `bot/${entry.slug}`,
        details: { op: entry.op, ...entry.details },
      },
    ),
  );
}
