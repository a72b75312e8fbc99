import type { Migration } from "kysely";
import { outboxMigration, processedEventsMigration } from "@svc/lib/bus";
import * as controlChanges from "./2026-11-30T0302-control-changes.js";
import * as signedReports from "./2026-11-30T0310-signed-reports.js";

/** Every migration of the compliance schema, in order; names never change. */
export const migrations: Record<string, Migration> = {
  "2026-11-30T0300-processed-events": processedEventsMigration,
  // Audit events (a signature, a refused delete) leave through it to the identity service's chain.
  "2026-11-30T0301-outbox": outboxMigration,
  "2026-11-30T0302-control-changes": controlChanges,
  "2026-11-30T0310-signed-reports": signedReports,
};
