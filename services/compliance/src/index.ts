import { ComplianceService } from "@svc/gen/svc/compliance/v1/compliance_pb.js";
import { startOutboxRelay, type BusSubscription } from "@svc/lib/bus";
import { migrateSchema, schemaDb } from "@svc/lib/db";
import { completeService, type Platform, type ServiceModule } from "@svc/lib/server";
import { migrations } from "../migrations/index.js";
import type { ReportSources } from "./clients/report-sources.js";
import type { StartRun } from "./clients/start-run.js";
import { createTestRunHandlers } from "./handlers/test-run-handlers.js";
import { consumeControlChanges } from "./consumers/control-changes.js";
import { createSignedReportHandlers } from "./handlers/signed-report-handlers.js";
import {
  createValidationReportHandlers,
  reportMaker,
} from "./handlers/validation-report-handlers.js";
import { COMPLIANCE_SCHEMA, type ComplianceDatabase } from "./store/compliance.table.js";

export { startRunFrom, type StartRun } from "./clients/start-run.js";
export {
  reportDeadlineMs,
  reportSourcesFrom,
  type ReportSources,
} from "./clients/report-sources.js";
export { runDeadlineMs } from "./clients/bots-over-network.js";
export { REPORT_SHA_HEADER } from "./handlers/validation-report-handlers.js";
export { REPORT_SCHEMA_PATH, reportSchemaErrors } from "./report/validate-report.js";

export interface ComplianceDeps {
  /** How runs are started in the bots service; without it they answer 503. */
  startRun?: StartRun;
  /** Where reports are made from (bots service, killswitch service); without it they answer 503. */
  reportSources?: ReportSources;
}

/**
 * The compliance service: RTS 6 conformance (Art. 6) and stress (Art. 10) runs, started in the
 * bots service over Connect; the annual validation report over the runs, the drills and the
 * material control changes it records; and the signed reports it keeps seven years.
 */
export async function createComplianceModule(
  platform: Platform,
  deps: ComplianceDeps = {},
): Promise<ServiceModule> {
  await migrateSchema(platform.db.db, COMPLIANCE_SCHEMA, migrations);
  const db = schemaDb<ComplianceDatabase>(platform.db.db, COMPLIANCE_SCHEMA);
  const make = reportMaker(deps.reportSources, db);
  let consumer: BusSubscription | undefined;
  let relay: ReturnType<typeof startOutboxRelay> | undefined;
  return {
    name: "compliance",
    services: [ComplianceService],
    routes(router) {
      router.service(
        ComplianceService,
        completeService(ComplianceService, {
          ...createTestRunHandlers(deps.startRun),
          ...createValidationReportHandlers(make),
          ...createSignedReportHandlers({ db, make }),
        }),
      );
    },
    async start() {
      // The outbox carries this service's audit events (signatures, refused deletes) to the chain.
      relay = startOutboxRelay({
        db: platform.db.db,
        schema: COMPLIANCE_SCHEMA,
        bus: platform.bus,
        log: (o: object, m: string) => platform.log.warn(o, m),
        published: (o: object, m: string) => platform.log.info(o, m),
      });
      consumer = await consumeControlChanges({ bus: platform.bus, db, schema: COMPLIANCE_SCHEMA });
    },
    async stop() {
      await consumer?.stop();
      await relay?.stop();
    },
  };
}
