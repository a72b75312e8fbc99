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
  type BrokenLink,
  type ChainedAuditFields,
  type ChainLink,
} from "./chain.js";
