import type { Principal } from "./principal.js";

/** Client ids of the platform's services at the provider: svc-service-<service>. */
export const SERVICE_CLIENT_PREFIX = "svc-service-";

/** The audience a machine token for calling this service carries (RFC 8707 resource). */
export function serviceAudienceOf(service: string): string {
  return `urn:svc:service:${service}`;
}

/** The service a client-credentials token was issued to, from its subject (the client id). */
export function serviceOfClient(clientId: string): string | undefined {
  return clientId.startsWith(SERVICE_CLIENT_PREFIX) &&
    clientId.length > SERVICE_CLIENT_PREFIX.length
    ? clientId.slice(SERVICE_CLIENT_PREFIX.length)
    : undefined;
}

/** The service an RPC belongs to, from its proto package: svc.bots.v1.BotsService -> bots. */
export function serviceOfTypeName(typeName: string): string {
  return typeName.split(".")[1] ?? typeName;
}

/** The principal of a platform service acting as itself (never a person). */
export function servicePrincipal(service: string): Principal {
  return {
    sub: `service|${service}`,
    actorType: "machine",
    delegated: false,
    roles: [],
    scopes: [],
    amr: [],
  };
}
