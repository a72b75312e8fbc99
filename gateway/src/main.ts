import { createGrpcTransport } from "@connectrpc/connect-node";
import { loadConfig } from "@svc/lib/config";
import { createLogger, startProcessTelemetry } from "@svc/lib/telemetry";
import { assertListenAllowed, closeOnSignals, resilientTransport } from "@svc/lib/server";
import { BotsService, ControlPlaneService } from "@svc/gen/svc/bots/v1/bots_pb.js";
import { PromotionService } from "@svc/gen/svc/promotion/v1/promotion_pb.js";
import { KillSwitchService } from "@svc/gen/svc/killswitch/v1/killswitch_pb.js";
import { ComplianceService } from "@svc/gen/svc/compliance/v1/compliance_pb.js";
import {
  AuditService,
  CredentialService,
  IdentityService,
  NotificationService,
  LicenseService,
  McpService,
  TenancyService,
} from "@svc/gen/svc/identity/v1/identity_pb.js";
import { closeGateway } from "./close-gateway.js";
import { createGateway } from "./create-gateway.js";

// The gateway alone (distributed topology): every service is reached over gRPC by its SVC_*_URL.
const config = loadConfig();
const log = createLogger({ name: "gateway", level: config.logLevel, format: config.logFormat });
// The services trust the x-svc-local-user the gateway forwards: under local auth it must stay on loopback too.
try {
  assertListenAllowed(config.host, config.auth.provider);
} catch (err) {
  log.fatal((err as Error).message);
  process.exit(2);
}
const owners = {
  bots: [BotsService, ControlPlaneService],
  promotion: [PromotionService],
  killswitch: [KillSwitchService],
  compliance: [ComplianceService],
  identity: [
    IdentityService,
    LicenseService,
    TenancyService,
    McpService,
    AuditService,
    CredentialService,
    NotificationService,
  ],
} as const;
const missing = Object.keys(owners).filter(
  (name) => !config.serviceUrls[name as keyof typeof owners],
);
if (missing.length > 0) {
  log.fatal(
    { missing: missing.map((m) => `SVC_${m.toUpperCase()}_URL`) },
    "the standalone gateway needs the address of every service; use `npm start` for the all-in-one process",
  );
  process.exit(2);
}
const backends = Object.entries(owners).flatMap(([name, services]) => {
  // Read-only calls ride over a service's restart (tried again with backoff inside the edge's
  // deadline); a write is sent once and answered 503 with Retry-After if the service is down.
  // Each call's deadline is its kind's (lib/src/deadline/call-deadlines.ts), set by the edge.
  const transport = resilientTransport(
    createGrpcTransport({ baseUrl: config.serviceUrls[name as keyof typeof owners]! }),
    {},
  );
  return services.map((service) => ({ service, transport }));
});
// Traces (SVC_OTLP_ENDPOINT) and /metrics (SVC_METRICS_PORT) of this process, as every service has.
const telemetry = await startProcessTelemetry(config, log, "gateway");
const app = await createGateway({
  backends,
  bodyLimitBytes: config.bodyLimitBytes,
  textBodyLimitBytes: config.datasetMaxBytes,
  requestGuard: { provider: config.auth.provider, publicUrl: config.login.publicUrl },
  log,
});
await app.listen({ host: config.host, port: config.port });
log.info({ url: `http://${config.host}:${config.port}` }, "gateway listening");
closeOnSignals(log, [() => closeGateway(app), () => telemetry.close()]);
