import type { Kysely } from "kysely";
import {
  AuditService,
  CredentialService,
  IdentityService,
  NotificationService,
  LicenseService,
  McpService,
  TenancyService,
} from "@svc/gen/svc/identity/v1/identity_pb.js";
import { createMembershipLookup } from "@svc/lib/auth";
import { migrateSchema, schemaDb } from "@svc/lib/db";
import { membershipCountOf } from "./store/tenancy.repository.js";
import { completeService, type Platform, type ServiceModule } from "@svc/lib/server";
import { migrations } from "../migrations/index.js";
import type { BusSubscription } from "@svc/lib/bus";
import { consumeAuditEvents } from "./consumers/audit-events.js";
import { createAuditHandlers } from "./handlers/audit-handlers.js";
import { createAuditCheckpointHandlers } from "./handlers/audit-checkpoint-handlers.js";
import { openCheckpointing } from "./audit/open-checkpointing.js";
import { createLicenseHandlers } from "./handlers/license-handlers.js";
import { createMcpHandlers } from "./handlers/mcp-handlers.js";
import { createTenancyHandlers } from "./handlers/tenancy-handlers.js";
import type { McpClients } from "./mcp/data-tools.js";
import { createWhoAmI } from "./handlers/whoami.js";
import { createLoginHandlers } from "./handlers/login-handlers.js";
import { createBrowserLogin } from "./login/browser-login.js";
import { createLeaseRegistry } from "./licensing/lease-registry.js";
import { loadSigningKeys } from "./licensing/signing-keys.js";
import type { IdentityDatabase } from "./store/identity.table.js";
import { createCredentialHandlers } from "./handlers/credential-handlers.js";
import { createCredentialVault } from "./vault/credential-vault.js";
import { kekRingFrom } from "./vault/kek.js";
import { consumeNotificationEvents } from "./consumers/notification-events.js";
import { createNotificationHandlers } from "./handlers/notification-handlers.js";
import { createEventSignal } from "./notifications/event-signal.js";
import { startDispatcher, type Dispatcher } from "./notifications/dispatcher.js";

/** A member is remembered 30 s; a non-member 2 s, so a person just synced gets in at once. */
const MEMBER_CACHE_MS = 30_000;
const NON_MEMBER_CACHE_MS = 2_000;

export type { McpClients } from "./mcp/data-tools.js";

/** The identity service's schema. */
export const IDENTITY_SCHEMA = "identity";

/**
 * The identity service: principals, login sync hooks, tenancy mappings, license leases, MCP.
 * Every RPC is built.
 */
export async function createIdentityModule(
  platform: Platform,
  wiring: {
    now?: () => number;
    /** How the MCP data tools reach the bots and promotion services, once they exist. */
    mcpClients?: () => McpClients | undefined;
  } = {},
): Promise<ServiceModule> {
  await migrateSchema(platform.db.db, IDENTITY_SCHEMA, migrations);
  const keys = loadSigningKeys(platform.config.licenseLease);
  const checkpointing = await openCheckpointing(
    platform,
    keys.on ? keys.active.publicKeyId : undefined,
  );
  // Every append to the audit trail, whichever handler makes it, reaches the checkpointer.
  const db = (
    schemaDb<IdentityDatabase>(platform.db.db, IDENTITY_SCHEMA) as Kysely<IdentityDatabase>
  ).withPlugin(checkpointing.watch);
  const checkpointer = checkpointing.checkpointer(db);
  const registryEnforced = platform.config.flags.licenseRegistryEnforced;
  if (keys.on)
    platform.log.info(
      {
        public_key_id: keys.active.publicKeyId,
        retired_public_key_ids: keys.retired.map((k) => k.publicKeyId),
        registry_enforced: registryEnforced,
      },
      "licensing is on: leases are signed with the active key",
    );
  else
    platform.log.warn(
      { why: keys.why },
      `licensing is off: ${keys.why}; lease issuance, renewal and the public key answer 503 license_lease_unavailable`,
    );
  if (!registryEnforced)
    platform.log.warn(
      "SVC_LICENSE_REGISTRY_ENFORCED=false: revocations are recorded but do not deny renewals",
    );
  const registry = createLeaseRegistry({
    db,
    keys,
    registryEnforced,
    now: wiring.now ?? Date.now,
    log: platform.log,
  });
  const tenancy = createTenancyHandlers(db);
  const kekRing = kekRingFrom(platform.config.vault);
  if (kekRing.on)
    platform.log.info(
      { kek_id: kekRing.active.id, previous_kek_id: kekRing.previous?.id },
      "the credentials vault is on: secrets are sealed under the active key-encryption key",
    );
  else
    platform.log.warn(
      { why: kekRing.why },
      `the credentials vault is off: ${kekRing.why}; the credential routes answer 503 vault_unavailable`,
    );
  const vault = createCredentialVault(db, kekRing);
  const { auth, login: loginSettings } = platform.config;
  const login = createLoginHandlers(
    createBrowserLogin({
      provider: auth.provider,
      issuer: auth.issuer,
      audience: auth.audience,
      ...loginSettings,
      timeoutMs: platform.config.timeouts.dbMs,
    }),
  );
  if (auth.provider === "oidc" && !loginSettings.stateKey)
    platform.log.info(
      "browser sign-in states are sealed with a key of this process: set SVC_AUTH_LOGIN_STATE_KEY when several identity processes serve /auth/login",
    );
  // SVC_AUTH_ENFORCE asks the identity service, the owner of membership rows; in this process it
  // asks its store directly (other processes call ListMembershipsOf).
  platform.useMembershipLookup(
    createMembershipLookup({
      countOf: (subject) => membershipCountOf(db, subject),
      ttlMs: MEMBER_CACHE_MS,
      negativeTtlMs: NON_MEMBER_CACHE_MS,
      timeoutMs: platform.config.timeouts.dbMs,
    }),
  );
  let auditTrail: BusSubscription | undefined;
  let notificationEvents: BusSubscription | undefined;
  let dispatcher: Dispatcher | undefined;
  const eventSignal = createEventSignal();
  return {
    name: "identity",
    services: [
      IdentityService,
      LicenseService,
      TenancyService,
      McpService,
      AuditService,
      CredentialService,
      NotificationService,
    ],
    routes(router) {
      router.service(
        IdentityService,
        completeService(IdentityService, {
          whoAmI: createWhoAmI(db),
          ...login,
          ...tenancy.identity,
        }),
      );
      router.service(
        LicenseService,
        completeService(LicenseService, createLicenseHandlers(registry)),
      );
      router.service(TenancyService, completeService(TenancyService, tenancy.tenancy));
      router.service(CredentialService, createCredentialHandlers(vault, platform.config.auth));
      router.service(
        NotificationService,
        createNotificationHandlers({
          db,
          kekRing,
          allowHttpLoopback: platform.config.webhooks.allowHttpLoopback,
          timeoutMs: platform.config.timeouts.dbMs,
          signal: eventSignal,
        }),
      );
      router.service(
        McpService,
        completeService(
          McpService,
          createMcpHandlers({
            db,
            clients: wiring.mcpClients ?? (() => undefined),
            timeoutMs: platform.config.timeouts.dbMs,
            license: platform.license,
          }),
        ),
      );
      router.service(
        AuditService,
        completeService(AuditService, {
          ...createAuditHandlers(db),
          ...createAuditCheckpointHandlers({
            db,
            checkpointer,
            log: checkpointing.log,
            keys: checkpointing.keys,
            timeoutMs: platform.config.timeouts.dbMs,
          }),
        }),
      );
    },
    async start() {
      await checkpointer.start();
      auditTrail = await consumeAuditEvents({
        bus: platform.bus,
        db,
        timeoutMs: platform.config.timeouts.dbMs,
      });
      notificationEvents = await consumeNotificationEvents({
        bus: platform.bus,
        db,
        timeoutMs: platform.config.timeouts.dbMs,
        recorded: eventSignal.notify,
        log: platform.log,
      });
      dispatcher = startDispatcher({
        db,
        kekRing,
        settings: platform.config.webhooks,
        timeoutMs: platform.config.timeouts.dbMs,
        log: platform.log,
      });
    },
    async stop() {
      await dispatcher?.stop();
      await notificationEvents?.stop();
      await auditTrail?.stop();
      await checkpointer.stop();
      await checkpointing.log.close();
    },
  };
}
