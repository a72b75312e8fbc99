import type { Kysely, KyselyPlugin } from "kysely";
import {
  createMemoryCheckpointLog,
  openNatsCheckpointLog,
  type CheckpointLog,
} from "@svc/lib/audit";
import type { Platform } from "@svc/lib/server";
import type { IdentityDatabase } from "../store/identity.table.js";
import { watchAuditAppends } from "./append-watch.js";
import { loadCheckpointKeys, type CheckpointKeys } from "./checkpoint-keys.js";
import { createCheckpointer, type Checkpointer } from "./checkpointer.js";

/**
 * The checkpoint key and log from the settings, said plainly in the start-up log: which key signs,
 * where checkpoints go, and what that anchors (a key made at start or an in-process log anchors
 * nothing across a restart).
 */
export async function openCheckpointing(
  platform: Platform,
  leaseKeyId: string | undefined,
): Promise<{
  keys: CheckpointKeys;
  log: CheckpointLog;
  watch: KyselyPlugin;
  checkpointer(db: Kysely<IdentityDatabase>): Checkpointer;
}> {
  const { config, log: logger } = platform;
  const settings = config.auditCheckpoints;
  const keys = loadCheckpointKeys(settings, leaseKeyId);
  const log = config.natsUrl
    ? await openNatsCheckpointLog({
        url: config.natsUrl,
        namespace: config.natsNamespace,
        retentionDays: settings.retentionDays,
        timeoutMs: config.timeouts.busMs,
      })
    : createMemoryCheckpointLog();
  logger.info(
    {
      key_id: keys.active.publicKeyId,
      public_key_pem: keys.active.publicKeyPem,
      trusted_key_ids: keys.trusted.map((k) => k.publicKeyId),
      store: log.kind,
      interval_ms: settings.intervalMs,
    },
    "audit trail checkpoints are signed with this key",
  );
  if (keys.ephemeral)
    logger.warn(
      { key_id: keys.active.publicKeyId },
      "SVC_AUDIT_CHECKPOINT_PRIVATE_KEY_PEM is not set: audit checkpoints are signed with a key made at this start; after a restart they can no longer be checked, so the trail is anchored only while this process runs",
    );
  if (log.kind === "in-process")
    logger.warn(
      "no NATS (SVC_NATS_URL): audit checkpoints are kept in this process's memory; they anchor the trail only while it runs, and an edit made while the platform is down is not caught",
    );
  let target: Checkpointer | undefined;
  return {
    keys,
    log,
    watch: watchAuditAppends((row) => target?.noteAppended(row)),
    checkpointer(db) {
      target = createCheckpointer({
        db,
        log,
        keys,
        intervalMs: settings.intervalMs,
        timeoutMs: config.timeouts.dbMs,
        logger,
      });
      return target;
    },
  };
}
