import { providerEndpoints } from "./oidc-discovery.js";
import { serviceAudienceOf } from "./service-identity.js";

export interface ServiceTokenSettings {
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** Deadline of one token request (discovery included). */
  timeoutMs: number;
}

/** Hands out this service's machine token for calling a peer, fetched when near expiry. */
export interface ServiceTokens {
  tokenFor(callee: string): Promise<string>;
}

interface Held {
  token: string;
  /** When to fetch the next one: well before expiry, so a call never carries an expiring token. */
  renewAt: number;
}

const sources = new Map<string, ServiceTokens>();

/**
 * This service's machine tokens (client credentials, RFC 6749 4.4) with the audience of each peer
 * it calls (RFC 8707 resource urn:svc:service:<callee>), cached per callee until a fifth of their
 * life (at most a minute) is left. Concurrent calls share one request; a failed request is not
 * remembered. One source per client in the process, whatever number of peers use it.
 *
 * @example const token = await serviceTokens(settings).tokenFor("killswitch");
 */
export function serviceTokens(settings: ServiceTokenSettings): ServiceTokens {
  const key = `${settings.issuer}\u0000${settings.clientId}`;
  const known = sources.get(key);
  if (known) return known;
  const endpoints = providerEndpoints(settings.issuer, settings.timeoutMs);
  const held = new Map<string, Held>();
  const asking = new Map<string, Promise<string>>();

  const fetchToken = async (callee: string): Promise<string> => {
    const { tokenEndpoint } = await endpoints();
    const res = await fetch(tokenEndpoint, {
      method: "POST",
      signal: AbortSignal.timeout(settings.timeoutMs),
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({
        grant_type: "client_credentials",
        client_id: settings.clientId,
        client_secret: settings.clientSecret,
        resource: serviceAudienceOf(callee),
      }).toString(),
    });
    const body = (await res.json().catch(() => ({}))) as Record<string, unknown>;
    if (!res.ok || typeof body.access_token !== "string")
      throw new Error(
        `the identity provider refused a token for calling the ${callee} service: ${String(body.error ?? res.status)}${body.error_description ? ` (${String(body.error_description)})` : ""}`,
      );
    const lifetimeS = Number(body.expires_in) > 0 ? Number(body.expires_in) : 60;
    const marginS = Math.min(60, lifetimeS / 5);
    held.set(callee, {
      token: body.access_token,
      renewAt: Date.now() + (lifetimeS - marginS) * 1000,
    });
    return body.access_token;
  };

  const source: ServiceTokens = {
    tokenFor(callee) {
      const h = held.get(callee);
      if (h && Date.now() < h.renewAt) return Promise.resolve(h.token);
      let pending = asking.get(callee);
      if (!pending) {
        pending = fetchToken(callee).finally(() => asking.delete(callee));
        asking.set(callee, pending);
      }
      return pending;
    },
  };
  sources.set(key, source);
  return source;
}
