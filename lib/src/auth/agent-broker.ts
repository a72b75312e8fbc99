import { providerEndpoints } from "./oidc-discovery.js";

/** The token-exchange profile agents are delegated through (the provider side: deploy/idp). */
export const DELEGATION_PROFILE = "svc-agent-delegation";
const TOKEN_EXCHANGE_GRANT = "urn:ietf:params:oauth:grant-type:token-exchange";
const ACCESS_TOKEN_TYPE = "urn:ietf:params:oauth:token-type:access_token";

export interface AgentBrokerSettings {
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** SVC_AUTH_AGENT_DELEGATION_TTL_SECONDS: a token living longer than this is refused. */
  ttlSeconds: number;
  timeoutMs: number;
}

/** Why a delegation failed: the provider's RFC 6749 error code, or that it did not answer. */
export class AgentBrokerError extends Error {
  constructor(
    readonly code:
      | "invalid_request"
      | "unauthorized_client"
      | "invalid_target"
      | "invalid_grant"
      | "provider_unreachable"
      | "ttl_exceeded"
      | string,
    message: string,
  ) {
    super(message);
  }
}

/** A delegated token: the person's, acting through the agent (act.sub). */
export interface DelegatedToken {
  accessToken: string;
  expiresIn: number;
  scope: string;
}

/**
 * The platform's agent token broker (RFC 8693): exchanges a person's access token and an agent's
 * actor token for a delegated token at the provider, through the svc-agent-delegation profile,
 * authenticated as the broker client. The agents of the platform (research chat) act only with
 * what it returns.
 *
 * @example const { accessToken } = await broker.delegate(userToken, agentToken, ["read:mcp:data"]);
 */
export function createAgentBroker(settings: AgentBrokerSettings) {
  const endpoints = providerEndpoints(settings.issuer, settings.timeoutMs);
  return {
    async delegate(
      subjectToken: string,
      actorToken: string,
      scopes: readonly string[],
    ): Promise<DelegatedToken> {
      let res: Response;
      try {
        const { tokenEndpoint } = await endpoints();
        res = await fetch(tokenEndpoint, {
          method: "POST",
          signal: AbortSignal.timeout(settings.timeoutMs),
          headers: { "content-type": "application/x-www-form-urlencoded" },
          body: new URLSearchParams({
            grant_type: TOKEN_EXCHANGE_GRANT,
            client_id: settings.clientId,
            client_secret: settings.clientSecret,
            subject_token: subjectToken,
            subject_token_type: ACCESS_TOKEN_TYPE,
            subject_token_profile: DELEGATION_PROFILE,
            actor_token: actorToken,
            actor_token_type: ACCESS_TOKEN_TYPE,
            scope: scopes.join(" "),
          }).toString(),
        });
      } catch (err) {
        throw new AgentBrokerError(
          "provider_unreachable",
          `the identity provider did not answer the token exchange: ${(err as Error).message}`,
        );
      }
      const body = (await res.json().catch(() => ({}))) as Record<string, unknown>;
      if (!res.ok || typeof body.access_token !== "string")
        throw new AgentBrokerError(
          typeof body.error === "string" ? body.error : "provider_unreachable",
          typeof body.error_description === "string"
            ? body.error_description
            : `the token endpoint answered ${res.status}`,
        );
      const expiresIn = Number(body.expires_in);
      if (!(expiresIn > 0) || expiresIn > settings.ttlSeconds)
        throw new AgentBrokerError(
          "ttl_exceeded",
          `the provider minted a delegated token for ${String(body.expires_in)} s; SVC_AUTH_AGENT_DELEGATION_TTL_SECONDS allows ${settings.ttlSeconds}`,
        );
      return {
        accessToken: body.access_token,
        expiresIn,
        scope: typeof body.scope === "string" ? body.scope : "",
      };
    },
  };
}

export type AgentBroker = ReturnType<typeof createAgentBroker>;
