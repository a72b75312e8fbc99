import { providerEndpoints, type AgentBroker, type DelegatedToken } from "@svc/lib/auth";

/** How the chat agent acts for a person: its own client and the platform's broker. */
export interface ChatDelegationSettings {
  issuer: string;
  /** The API audience its actor token is asked for. */
  audience: string;
  agentClientId: string;
  agentClientSecret: string;
  broker: AgentBroker;
  timeoutMs: number;
}

/** The research agent's identity at the provider and the delegated tokens it acts with. */
export interface ChatDelegation {
  /** The agent subject (act.sub of every delegated token): the actor token's sub. */
  agentSubject(): Promise<string>;
  /** Exchanges the person's token for one acting through the agent (RFC 8693). */
  delegate(personToken: string, scopes: readonly string[]): Promise<DelegatedToken>;
}

/**
 * The agent's actor token comes from the client credentials grant of its own client and is kept
 * until 30 s before it expires; each chat then exchanges the person's token through the broker,
 * so act.sub names the agent and sub the person.
 *
 * @example const { accessToken } = await delegation.delegate(personToken, ["read:mcp:data"]);
 */
export function createChatDelegation(s: ChatDelegationSettings): ChatDelegation {
  const endpoints = providerEndpoints(s.issuer, s.timeoutMs);
  let cached: { token: string; sub: string; expiresAtMs: number } | undefined;

  async function actor() {
    if (cached && cached.expiresAtMs - 30_000 > Date.now()) return cached;
    const { tokenEndpoint } = await endpoints();
    const res = await fetch(tokenEndpoint, {
      method: "POST",
      signal: AbortSignal.timeout(s.timeoutMs),
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({
        grant_type: "client_credentials",
        client_id: s.agentClientId,
        client_secret: s.agentClientSecret,
        // oidc-provider reads resource (RFC 8707), Auth0 audience: both name the API.
        resource: s.audience,
        audience: s.audience,
      }).toString(),
    });
    const body = (await res.json().catch(() => ({}))) as Record<string, unknown>;
    if (!res.ok || typeof body.access_token !== "string")
      throw new Error(
        `the provider refused the agent's client credentials (${res.status}${typeof body.error === "string" ? ` ${body.error}` : ""})`,
      );
    const claims = payloadOf(body.access_token);
    cached = {
      token: body.access_token,
      sub: String(claims.sub ?? s.agentClientId),
      expiresAtMs: (claims.exp ?? Math.floor(Date.now() / 1000) + 60) * 1000,
    };
    return cached;
  }

  return {
    agentSubject: async () => (await actor()).sub,
    async delegate(personToken, scopes) {
      return s.broker.delegate(personToken, (await actor()).token, scopes);
    },
  };
}

/** The claims of a token the provider just gave us (not verified: only read for sub and exp). */
function payloadOf(token: string): { sub?: string; exp?: number } {
  try {
    return JSON.parse(Buffer.from(token.split(".")[1] ?? "", "base64url").toString("utf8")) as {
      sub?: string;
      exp?: number;
    };
  } catch {
    return {};
  }
}
