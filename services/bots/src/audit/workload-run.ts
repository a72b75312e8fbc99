import type { JsonObject } from "@bufbuild/protobuf";
import type { Transaction } from "kysely";
import { recordAudit, type AuditOrigin, type AuditOutcome } from "@svc/lib/audit";
import type { BotsDatabase } from "../store/bots.table.js";

/** The spec's audit event type of a workload's start and stop (service-interface.md, Events 1). */
export const WORKLOAD_RUN = "workload_run";

/** What ran: the spec's workloads (a compliance run is a conformance suite or a stress replay). */
export type Workload = "backtest" | "paper" | "live" | "compliance_run" | "chat_session";

export interface WorkloadRunEntry {
  workload: Workload;
  op: "start" | "stop";
  outcome: AuditOutcome;
  /** The workload's own id: a deployment's task id, a compliance run's, a conversation's. */
  taskId: string;
  /**
   * The bot version it runs. With `version`, its digests come from the version row in the same
   * transaction; without (a live start refused before its promotion named one), as given.
   */
  bot?: {
    id: string;
    version?: number;
    slug?: string;
    specHash?: string;
    codeDigest?: string | null;
  };
  /** What it is about when no bot version is (a chat conversation): kind/id. */
  resource?: string;
  /** Why it stopped: `finished`, `failed: <error>`, `halted: <reason>`, `stopped: <reason>`. */
  reason?: string;
  details?: JsonObject;
  /** The schema whose outbox carries it (the bots service's, but a test's runner may differ). */
  schema?: string;
}

/**
 * Writes one `workload_run` audit entry in the caller's transaction, so a start or stop and its
 * record commit together: who (the origin: the person who asked, or the system job that ended
 * it), which bot version with its spec hash, code digest and model digests, and why it stopped.
 * Every workload writes it through here, so every entry has the same shape (docs/audit.md).
 *
 * @example await recordWorkloadRun(trx, auditOriginOf(ctx), { workload: "backtest", op: "start", outcome: "succeeded", taskId: row.task_id, bot: { id: row.bot_id, version: row.version } });
 */
export async function recordWorkloadRun(
  trx: Transaction<BotsDatabase>,
  origin: AuditOrigin,
  e: WorkloadRunEntry,
): Promise<void> {
  const bot = e.bot ? await botOf(trx, e.bot) : undefined;
  await recordAudit(trx, e.schema ?? "bots", "bots", origin, {
    action: WORKLOAD_RUN,
    outcome: e.outcome,
    resource: bot?.slug ? `bot/${bot.slug}` : (e.resource ?? `${e.workload}/${e.taskId}`),
    details: {
      workload: e.workload,
      op: e.op,
      task_id: e.taskId,
      ...(bot
        ? {
            bot_id: bot.id,
            version: bot.version ?? null,
            spec_hash: bot.specHash ?? null,
            code_digest: bot.codeDigest ?? null,
            model_digests: bot.modelDigests,
          }
        : {}),
      ...(e.reason !== undefined ? { reason: e.reason } : {}),
      ...e.details,
    },
  });
}

/** Who ends a workload when no person does: the runner that saw it finish, fail or time out. */
export const RUNNER_ORIGIN: AuditOrigin = { system: "system:bots-runner" };

async function botOf(trx: Transaction<BotsDatabase>, b: NonNullable<WorkloadRunEntry["bot"]>) {
  if (b.version === undefined) return { ...b, modelDigests: {} };
  const row = await trx
    .selectFrom("bot_versions as v")
    .innerJoin("bots as b", "b.id", "v.bot_id")
    .select(["b.slug", "v.spec_hash", "v.strategy_digest", "v.spec"])
    .where("v.bot_id", "=", b.id)
    .where("v.version", "=", b.version)
    .executeTakeFirst();
  return {
    id: b.id,
    version: b.version,
    slug: row?.slug ?? b.slug,
    specHash: row?.spec_hash ?? b.specHash,
    codeDigest: row?.strategy_digest ?? b.codeDigest ?? null,
    modelDigests: row ? modelDigestsOf(row.spec) : {},
  };
}

/**
 * The models a stored spec runs, name to digest, by name (as accept-models.ts reads them). Read
 * from the stored JSON itself: a backtest's worker thread writes this entry, and loading the
 * spec's protobuf schema there would cost each worker its start.
 */
function modelDigestsOf(spec: Record<string, unknown>): Record<string, string> {
  const models = Array.isArray(spec.models)
    ? (spec.models as { name?: unknown; digest?: unknown }[])
    : [];
  return Object.fromEntries(
    models
      .filter((m) => typeof m.name === "string" && typeof m.digest === "string" && m.digest)
      .map((m) => [m.name as string, m.digest as string] as const)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)),
  );
}
