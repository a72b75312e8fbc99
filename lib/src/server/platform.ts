import type { ConnectRouter, Interceptor } from "@connectrpc/connect";
import type { DescService } from "@bufbuild/protobuf";
import { sql } from "kysely";
import type { Config } from "../config/index.js";
import { withDeadline } from "../deadline/index.js";
import { openDatabase, type Database } from "../db/index.js";
import { openEventBus, type EventBus } from "../bus/index.js";
import { openKeyValueStore, type KeyValueStore } from "../kv/index.js";
import {
  createLogger,
  createLoggingInterceptor,
  createTracingInterceptor,
  startProcessTelemetry,
  type Logger,
} from "../telemetry/index.js";
import {
  createAgentBroker,
  createAuthInterceptor,
  createServicePrincipalInterceptor,
  createTokenVerifier,
  type AgentBroker,
  type AuthSettings,
  type MembershipLookup,
  type Principal,
  serviceAudienceOf,
} from "../auth/index.js";
import { Code, svcError } from "../errors/index.js";
import { createValidationInterceptor } from "../validate/index.js";
import { createMembershipAuditInterceptor, createRefusalAuditInterceptor } from "../audit/index.js";
import { createLicenseInterceptor, openLicenseGate, type LicenseGate } from "../license/index.js";

/** The shared infrastructure one process hands to each service it hosts. */
export interface Platform {
  config: Config;
  db: Database;
  bus: EventBus;
  kv: KeyValueStore;
  log: Logger;
  /** The install's license (SVC_LICENSE_ENFORCEMENT_ENABLED): licensed routes and trading bots ask it. */
  license: LicenseGate;
  /** The server interceptor chain every service mounts, outermost first. */
  interceptors: Interceptor[];
  /**
   * The RFC 8693 agent token broker (SVC_AUTH_AGENT_*), when delegation is on and its client is
   * configured: agents of the platform act only with the delegated tokens it gets.
   */
  agentBroker?: AgentBroker;
  /**
   * Wires how the auth interceptor learns a caller's membership rows (SVC_AUTH_ENFORCE): from the
   * identity service. Until it is wired, a check that needs one fails closed.
   */
  useMembershipLookup(lookup: MembershipLookup): void;
  /** Whether every store answers within its deadline (a hung one fails it, not only a refusing one). */
  ready(): Promise<boolean>;
  close(): Promise<void>;
}

/** What a service factory returns: its routes, and the background work it owns. */
export interface ServiceModule {
  name: string;
  services: DescService[];
  routes: (router: ConnectRouter) => void;
  /** Starts background work (outbox relay, consumers, sweepers) after migrations ran. */
  start(): Promise<void>;
  stop(): Promise<void>;
}

/** The auth kernel's settings: the configuration declares them in the kernel's own shape. */
export function authSettingsFrom(config: Config): AuthSettings {
  return config.auth;
}

/**
 * The interceptor order, outermost first, and why:
 * 1. logging: request id and one log line, and hides internal errors, so it wraps everything;
 * 2. tracing: a server span that continues the caller's trace;
 * 3. refusal audit: a step-up the auth interceptor refuses is recorded in the audit trail;
 * 4. auth: the proto's policy (token, scopes, step-up) before any handler code or validation;
 * 5. license: the proto's licensed feature, after auth so only a known caller learns the license;
 * 6. validation: the proto's field rules, so handlers only ever see valid input.
 */
export function standardInterceptors(
  config: Config,
  log: Logger,
  license: LicenseGate,
  bus: EventBus,
  hasMembership: MembershipLookup,
): Interceptor[] {
  const settings = authSettingsFrom(config);
  return [
    createLoggingInterceptor(log),
    createTracingInterceptor(),
    createRefusalAuditInterceptor(bus, log),
    createMembershipAuditInterceptor(bus, log),
    exceptHealth(
      createAuthInterceptor({ settings, verifier: createTokenVerifier(settings), hasMembership }),
    ),
    createLicenseInterceptor(license),
    createValidationInterceptor(),
  ];
}

/**
 * The chain of an in-process transport between two services of one process: the same as a
 * network call's, with the calling service as principal instead of a verified token.
 */
export function internalInterceptors(log: Logger, caller: string): Interceptor[] {
  return [
    createLoggingInterceptor(log),
    createTracingInterceptor(),
    createServicePrincipalInterceptor(caller),
    createValidationInterceptor(),
  ];
}

/**
 * Opens the database, bus and key-value store the configuration names (embedded defaults where
 * nothing is configured) and builds the interceptor chain.
 */
export async function openPlatform(
  config: Config,
  name: string,
  overrides: Partial<Pick<Platform, "db" | "bus" | "kv" | "log" | "license">> = {},
): Promise<Platform> {
  const log =
    overrides.log ?? createLogger({ name, level: config.logLevel, format: config.logFormat });
  const dataDir = config.dataDir === "memory://" ? undefined : config.dataDir;
  const db =
    overrides.db ??
    (await openDatabase({
      url: config.databaseUrl,
      dataDir,
      timeoutMs: config.timeouts.dbMs,
      sharedBuffersMb: config.pglite.sharedBuffersMb,
    }));
  const bus =
    overrides.bus ??
    (await openEventBus({
      url: config.natsUrl,
      namespace: config.natsNamespace,
      timeoutMs: config.timeouts.busMs,
    }));
  const kv =
    overrides.kv ??
    (await openKeyValueStore({ url: config.redisUrl, timeoutMs: config.timeouts.kvMs }));
  const holder = config.licenseHolder;
  const license =
    overrides.license ??
    (await openLicenseGate({
      enforced: config.flags.licenseEnforcementEnabled,
      dir: holder.dir,
      deploymentId: holder.deploymentId ?? "",
      pinnedIds: holder.pinnedKeyIds,
      refreshMs: holder.refreshMs,
      log,
    }));
  let membership: MembershipLookup | undefined;
  const notWired = () =>
    svcError(
      Code.Unavailable,
      "membership_unverifiable",
      "this service cannot ask the identity service for membership rows (it runs apart from it without SVC_IDENTITY_URL or its SVC_SERVICE_CLIENT_ID/_SECRET): SVC_AUTH_ENFORCE refuses until it can",
    );
  // A misconfiguration, not an outage: halts fail closed here too, as they did before.
  const hasMembership: MembershipLookup = Object.assign(
    (p: Principal) => {
      if (membership) return membership(p);
      throw notWired();
    },
    {
      forHalt: async (p: Principal) => {
        if (!membership) throw notWired();
        if (membership.forHalt) return membership.forHalt(p);
        return { member: await membership(p), source: "verified" as const };
      },
      fresh: (p: Principal) => {
        if (!membership) throw notWired();
        return (membership.fresh ?? membership)(p);
      },
    },
  );
  const agentBroker = openAgentBroker(config, log);
  const telemetry = await startProcessTelemetry(config, log, name);
  if (!license.enforced)
    log.info(
      "license enforcement is off (SVC_LICENSE_ENFORCEMENT_ENABLED=false): licensed features are open",
    );
  return {
    config,
    db,
    bus,
    kv,
    log,
    license,
    interceptors: standardInterceptors(
      withServiceAudience(config, name),
      log,
      license,
      bus,
      hasMembership,
    ),
    ...(agentBroker ? { agentBroker } : {}),
    useMembershipLookup(lookup) {
      membership = lookup;
    },
    async ready() {
      const probes = [
        withDeadline(sql`select 1`.execute(db.db), config.timeouts.dbMs, "database"),
        kv.ping(),
        bus.ping(),
      ];
      const results = await Promise.allSettled(probes);
      const failed = results.flatMap((r, i) =>
        r.status === "rejected"
          ? [{ store: ["database", "key-value store", "bus"][i], err: String(r.reason) }]
          : [],
      );
      if (failed.length > 0) log.warn({ failed }, "not ready: a store does not answer");
      return failed.length === 0;
    },
    async close() {
      await telemetry.close();
      if (!overrides.license) license.close();
      if (!overrides.bus) await bus.close();
      if (!overrides.kv) await kv.close();
      if (!overrides.db) await db.close();
    },
  };
}

/** The platform's services: a process named after one of them serves it alone (runStandalone). */
const SERVICES = new Set(["bots", "promotion", "killswitch", "compliance", "identity"]);

/**
 * A standalone service accepts its peers' machine tokens (audience urn:svc:service:<name>); a
 * process hosting several services (all-in-one) is called by none over the network.
 */
function withServiceAudience(config: Config, name: string): Config {
  if (!SERVICES.has(name) || config.auth.provider !== "oidc") return config;
  return { ...config, auth: { ...config.auth, serviceAudience: serviceAudienceOf(name) } };
}

/** Probes carry no token: the standard health service stays public, everything else is guarded. */
function exceptHealth(interceptor: Interceptor): Interceptor {
  return (next) => {
    const guarded = interceptor(next);
    return (req) => (req.service.typeName === "grpc.health.v1.Health" ? next(req) : guarded(req));
  };
}

/** The broker when SVC_AUTH_AGENT_* ask for one; the start-up log says what the settings do. */
function openAgentBroker(config: Config, log: Logger): AgentBroker | undefined {
  const { clientId, clientSecret, delegationTtlSeconds } = config.agentBroker;
  const enabled = config.auth.agentTokensEnabled && config.auth.provider === "oidc";
  if (!enabled) {
    if (clientId || clientSecret)
      log.warn(
        "SVC_AUTH_AGENT_BROKER_CLIENT_ID/_SECRET are set but delegation is off (SVC_AUTH_AGENT_TOKEN_EXCHANGE_ENABLED=true and SVC_AUTH_PROVIDER=oidc turn it on): they are not used",
      );
    return undefined;
  }
  if (!clientId || !clientSecret || !config.auth.issuer) {
    log.warn(
      "delegated agent tokens are accepted, but the platform mints none: set SVC_AUTH_AGENT_BROKER_CLIENT_ID and SVC_AUTH_AGENT_BROKER_CLIENT_SECRET",
    );
    return undefined;
  }
  log.info(
    { client_id: clientId, ttl_seconds: delegationTtlSeconds },
    "agent token broker on: delegations through the svc-agent-delegation profile (research chat acts with them when SVC_CHAT_AGENT_CLIENT_ID/_SECRET name its agent)",
  );
  return createAgentBroker({
    issuer: config.auth.issuer,
    clientId,
    clientSecret,
    ttlSeconds: delegationTtlSeconds,
    timeoutMs: config.timeouts.dbMs,
  });
}
