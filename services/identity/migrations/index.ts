import type { Migration } from "kysely";
import * as licenseRegistry from "./2026-11-23T1200-license-registry.js";
import * as securityAuditEvents from "./2026-11-24T0400-security-audit-events.js";
import * as tenancy from "./2026-11-24T0500-tenancy.js";
import * as auditAppendOnly from "./2026-11-27T2100-audit-append-only.js";
import * as credentialVault from "./2026-11-28T0800-credential-vault.js";
import * as auditSpecColumns from "./2026-11-30T0100-audit-spec-columns.js";
import * as orgInvitesAndStrategy from "./2026-11-30T0200-org-invites-and-strategy.js";
import * as notifications from "./2026-11-30T0600-notifications.js";

/** Every migration of the identity schema, in order; names never change. */
export const migrations: Record<string, Migration> = {
  "2026-11-23T1200-license-registry": licenseRegistry,
  "2026-11-24T0400-security-audit-events": securityAuditEvents,
  "2026-11-24T0500-tenancy": tenancy,
  "2026-11-27T2100-audit-append-only": auditAppendOnly,
  "2026-11-28T0800-credential-vault": credentialVault,
  "2026-11-30T0100-audit-spec-columns": auditSpecColumns,
  "2026-11-30T0200-org-invites-and-strategy": orgInvitesAndStrategy,
  "2026-11-30T0600-notifications": notifications,
};
