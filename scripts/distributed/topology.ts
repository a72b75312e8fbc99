import type { DevIdp } from "@svc/dev-idp";
import type { ChildSpec } from "./child.js";
import type { SchemaOwner } from "./database.js";

/** Where everything of one distributed topology is, decided before any child starts. */
export interface Layout {
  host: string;
  gatewayPort: number;
  servicePorts: Record<SchemaOwner, number>;
  databaseUrls: Record<SchemaOwner, string>;
  natsUrl: string;
  natsNamespace: string;
  redisUrl: string;
  runners: number;
  apiAudience: string;
  claimsNamespace: string;
  /** The pair that signs and verifies ApprovedPromotion tokens; only promotion holds the private half. */
  promotionKeys: { privateKeyPem: string; publicKeyPem: string };
  /** The lease-signing key's settings (_PEM or _PATH) as the operator gave them: identity's alone. */
  leaseSigningKey: Record<string, string>;
}

const ENTRY: Record<SchemaOwner | "runner" | "gateway", string> = {
  bots: "services/bots/src/main.ts",
  promotion: "services/promotion/src/main.ts",
  killswitch: "services/killswitch/src/main.ts",
  compliance: "services/compliance/src/main.ts",
  identity: "services/identity/src/main.ts",
  runner: "services/bots/src/runner/main.ts",
  gateway: "gateway/src/main.ts",
};

export function serviceUrl(layout: Layout, service: SchemaOwner): string {
  return `http://${layout.host}:${layout.servicePorts[service]}`;
}

/**
 * Every child of the topology with its settings: the services (each on its own port, its own
 * database role, its own client of the provider), the runners (the bots service's role: they
 * host its sessions) and the gateway, which knows every service by address.
 */
export function childSpecs(layout: Layout, idp: DevIdp | undefined): ChildSpec[] {
  const services = Object.keys(layout.servicePorts) as SchemaOwner[];
  const urls = Object.fromEntries(
    services.map((s) => [`SVC_${s.toUpperCase()}_URL`, serviceUrl(layout, s)]),
  );
  // Without a provider: local auth, which every process refuses off loopback; the gateway
  // forwards the x-svc-local-user header and the services trust it (the README's demo).
  const auth: Record<string, string> = idp
    ? {
        SVC_AUTH_PROVIDER: "oidc",
        SVC_AUTH_OIDC_ISSUER: idp.issuer,
        SVC_AUTH_OIDC_AUDIENCE: layout.apiAudience,
        SVC_AUTH_CLAIMS_NAMESPACE: layout.claimsNamespace,
        SVC_AUTH_M2M_ENABLED: "true",
        SVC_AUTH_M2M_AUDIENCE: layout.apiAudience,
      }
    : { SVC_AUTH_PROVIDER: "local" };
  const common: Record<string, string> = {
    ...urls,
    ...auth,
    SVC_HOST: layout.host,
    SVC_NATS_URL: layout.natsUrl,
    SVC_NATS_NAMESPACE: layout.natsNamespace,
    SVC_REDIS_URL: layout.redisUrl,
    SVC_PROMOTION_PUBLIC_KEY_PEM: layout.promotionKeys.publicKeyPem,
  };
  const asService = (s: SchemaOwner): Record<string, string> => ({
    ...common,
    SVC_DATABASE_URL: layout.databaseUrls[s],
    ...(idp && {
      SVC_SERVICE_CLIENT_ID: idp.clients.services[s].clientId,
      SVC_SERVICE_CLIENT_SECRET: idp.clients.services[s].clientSecret,
    }),
  });
  const specs: ChildSpec[] = services.map((s) => ({
    name: s,
    entry: ENTRY[s],
    env: {
      ...asService(s),
      SVC_GRPC_PORT: String(layout.servicePorts[s]),
      ...(s === "bots" ? { SVC_RUNNERS: "external" } : {}),
      ...(s === "promotion"
        ? { SVC_PROMOTION_SIGNING_KEY_PEM: layout.promotionKeys.privateKeyPem }
        : {}),
      ...(s === "identity" ? layout.leaseSigningKey : {}),
    },
  }));
  for (let i = 1; i <= layout.runners; i++)
    specs.push({ name: `runner-${i}`, entry: ENTRY.runner, env: asService("bots") });
  specs.push({
    name: "gateway",
    entry: ENTRY.gateway,
    env: {
      ...common,
      SVC_PORT: String(layout.gatewayPort),
      SVC_PUBLIC_URL: `http://${layout.host}:${layout.gatewayPort}`,
      ...(idp && { SVC_AUTH_LOGIN_CLIENT_ID: idp.clients.login.clientId }),
    },
  });
  return specs;
}
