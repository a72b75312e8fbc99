import type { JsonObject } from "@bufbuild/protobuf";
import type { Kysely } from "kysely";
import type { AuditOutcome } from "@svc/lib/audit";
import { recordWorkloadRun, RUNNER_ORIGIN } from "../audit/workload-run.js";
import type { BotsDatabase } from "../store/bots.table.js";

/**
 * Writes a `workload_run` audit entry (service-interface.md, Events 1) for a live or paper
 * runner's start or stop, done or refused, through the bots service's outbox: the identity
 * service chains it with every other audit record.
 */
export async function auditWorkloadRun(
  db: Kysely<BotsDatabase>,
  schema: string,
  entry: {
    op: "start" | "stop";
    mode: "paper" | "live";
    outcome: AuditOutcome;
    taskId: string;
    bot: { id: string; slug: string; specHash: string; strategyDigest?: string };
    /** Known once the promotion token named it. */
    version?: number;
    reason?: string;
    details: JsonObject;
  },
): Promise<void> {
  await db.transaction().execute((trx) =>
    recordWorkloadRun(trx, RUNNER_ORIGIN, {
      workload: entry.mode,
      op: entry.op,
      outcome: entry.outcome,
      taskId: entry.taskId,
      bot: {
        id: entry.bot.id,
        ...(entry.version !== undefined ? { version: entry.version } : {}),
        slug: entry.bot.slug,
        specHash: entry.bot.specHash,
        codeDigest: entry.bot.strategyDigest ?? null,
      },
      ...(entry.reason !== undefined ? { reason: entry.reason } : {}),
      details: entry.details,
      schema,
    }),
  );
}
