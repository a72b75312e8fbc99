import { create } from "@bufbuild/protobuf";
import type { ServiceImpl } from "@connectrpc/connect";
import type { Kysely } from "kysely";
import {
  AuditCheckpointSchema,
  CreateAuditCheckpointResponseSchema,
  ListAuditCheckpointsResponseSchema,
  VerifyAuditTrailResponseSchema,
  type AuditService,
} from "@svc/gen/svc/identity/v1/identity_pb.js";
import { verifyTrail, type CheckpointLog, type SignedCheckpoint } from "@svc/lib/audit";
import { withDeadline } from "@svc/lib/deadline";
import { Code, svcError } from "@svc/lib/errors";
import type { CheckpointKeys } from "../audit/checkpoint-keys.js";
import type { Checkpointer } from "../audit/checkpointer.js";
import { chainLinkOf, wholeChain } from "../store/audit-trail.repository.js";
import type { IdentityDatabase } from "../store/identity.table.js";

/** How many of the newest checkpoints a verify compares with the rows. */
const VERIFY_CHECKPOINTS = 10_000;
const DEFAULT_LIMIT = 1000;
/** The newest checkpoints read before the rows: the highest seqs vouched for are among them. */
const NEWEST_BEFORE_READ = 16;

/**
 * The checkpoints of the audit trail (read from their log, never from the database), one on
 * demand, and the check of the whole trail against them.
 */
export function createAuditCheckpointHandlers(deps: {
  db: Kysely<IdentityDatabase>;
  checkpointer: Checkpointer;
  log: CheckpointLog;
  keys: CheckpointKeys;
  timeoutMs: number;
}): Pick<
  ServiceImpl<typeof AuditService>,
  "listAuditCheckpoints" | "createAuditCheckpoint" | "verifyAuditTrail"
> {
  const unavailable = (err: unknown) =>
    svcError(
      Code.Unavailable,
      "audit_checkpoint_unavailable",
      "the audit checkpoint log cannot be reached now; try again, and see the identity service's log",
      {},
      { cause: err },
    );
  /** This process's own appends first, so what it wrote a moment ago reads as anchored. */
  const checkpoints = async (n: number) => {
    try {
      await deps.checkpointer.flush();
      return await withDeadline(deps.log.latest(n), deps.timeoutMs, "audit checkpoint log");
    } catch (err) {
      throw unavailable(err);
    }
  };
  return {
    async listAuditCheckpoints(req) {
      const items = await checkpoints(req.limit || DEFAULT_LIMIT);
      return create(ListAuditCheckpointsResponseSchema, {
        items: items.map(checkpointMessage),
        keys: deps.keys.trusted.map((k) => ({
          keyId: k.publicKeyId,
          publicKeyPem: k.publicKeyPem,
          active: k.publicKeyId === deps.keys.active.publicKeyId,
        })),
        store: deps.log.kind,
      });
    },
    async createAuditCheckpoint() {
      let c: SignedCheckpoint;
      try {
        c = await deps.checkpointer.checkpointNow();
      } catch (err) {
        throw unavailable(err);
      }
      return create(CreateAuditCheckpointResponseSchema, { checkpoint: checkpointMessage(c) });
    },
    async verifyAuditTrail() {
      const before = await checkpoints(NEWEST_BEFORE_READ);
      const rows = await withDeadline(wholeChain(deps.db), deps.timeoutMs, "database");
      const after = await checkpoints(VERIFY_CHECKPOINTS);
      const v = await verifyTrail(rows.map(chainLinkOf), { before, after }, deps.keys.trusted);
      return create(VerifyAuditTrailResponseSchema, {
        intact: !v.broken,
        rows: BigInt(v.rows),
        headSeq: BigInt(v.headSeq),
        headHash: v.headHash,
        anchoredSeq: BigInt(v.anchoredSeq),
        checkpoints: v.checkpoints,
        untrustedCheckpoints: v.untrustedCheckpoints,
        firstBadSeq: BigInt(v.broken?.seq ?? 0),
        firstBadId: v.broken?.id ?? "",
        problem: v.broken?.problem ?? "",
        why: v.broken?.why ?? "",
        checkpointStore: deps.log.kind,
      });
    },
  };
}

function checkpointMessage(c: SignedCheckpoint) {
  return create(AuditCheckpointSchema, {
    format: c.payload.format,
    seq: BigInt(c.payload.seq),
    headHash: c.payload.head_hash,
    time: c.payload.time,
    keyId: c.payload.key_id,
    signature: c.signature,
  });
}
