import type { Migration } from "kysely";
import { outboxMigration, processedEventsMigration } from "@svc/lib/bus";
import * as killSwitches from "./2026-11-22T1700-kill-switches.js";
import * as drills from "./2026-11-22T1710-drills.js";
import * as drillVerdicts from "./2026-11-25T0900-drill-verdicts.js";
import * as listPagingIndexes from "./2026-11-25T1505-list-paging-indexes.js";
import * as drillSchedule from "./2026-11-28T1000-drill-schedule.js";
import * as foldAuditIntoTrail from "./2026-11-30T0110-fold-audit-into-trail.js";

/** Every migration of the killswitch schema, in order; names never change. */
export const migrations: Record<string, Migration> = {
  "2026-11-22T1659-processed-events": processedEventsMigration,
  "2026-11-22T1700-kill-switches": killSwitches,
  "2026-11-22T1710-drills": drills,
  // Audit events leave through it to the identity service's chain.
  "2026-11-24T0400-outbox": outboxMigration,
  "2026-11-25T0900-drill-verdicts": drillVerdicts,
  "2026-11-25T1505-list-paging-indexes": listPagingIndexes,
  "2026-11-28T1000-drill-schedule": drillSchedule,
  // Its old audit table's rows go to the one trail; the table goes.
  "2026-11-30T0110-fold-audit-into-trail": foldAuditIntoTrail,
};
