// The platform-wide audit trail: services record security-relevant acts in their outbox
// (recordAudit); the identity service chains them (auditHash); anyone can check the chain
// (firstBrokenLink).
export {
  AUDIT_SUBJECT,
  auditActorOf,
  auditOriginOf,
  currentTraceId,
  publishAudit,
  recordAudit,
  type AuditEntry,
  type AuditOrigin,
  type AuditOutcome,
} from "./record-audit.js";
export { createRefusalAuditInterceptor } from "./refusal-audit-interceptor.js";
export { createMembershipAuditInterceptor } from "./membership-audit-interceptor.js";
export {
  auditHash,
  firstBrokenLink,
  GENESIS_HASH,
  SPEC_COLUMNS_MIGRATION,
  type AuditDelegation,
  type AuditHashFormat,
  type BrokenLink,
  type ChainedAuditFields,
  type ChainLink,
} from "./chain.js";
export { DELEGATION_PROFILE } from "../auth/agent-broker.js";
export {
  CHECKPOINT_FORMAT,
  checkpointRefusal,
  signCheckpoint,
  type CheckpointPayload,
  type CheckpointRefusal,
  type SignedCheckpoint,
} from "./checkpoint.js";
import type { CheckpointLog } from "./checkpoint-log.js";
export {
  checkpointStreamOf,
  createMemoryCheckpointLog,
  type CheckpointLog,
} from "./checkpoint-log.js";
export {
  verifyTrail,
  type CheckpointsAround,
  type TrailBreak,
  type TrailProblem,
  type TrailVerdict,
} from "./verify-trail.js";

type NatsCheckpointLog = typeof import("./nats-checkpoint-log.js");

/** The JetStream checkpoint log; the NATS client is loaded only by a process that uses it. */
export async function openNatsCheckpointLog(
  ...args: Parameters<NatsCheckpointLog["openNatsCheckpointLog"]>
): Promise<CheckpointLog> {
  return (await import("./nats-checkpoint-log.js")).openNatsCheckpointLog(...args);
}
