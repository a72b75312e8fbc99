/** The two endpoints of the provider's discovery document that a sign-in needs. */
export interface ProviderEndpoints {
  authorizationEndpoint: string;
  tokenEndpoint: string;
}

/**
 * Reads `<issuer>/.well-known/openid-configuration` once, within a deadline; a failure is not
 * remembered, so the next login asks again.
 */
export function providerEndpoints(issuer: string, timeoutMs: number) {
  let known: Promise<ProviderEndpoints> | undefined;
  return (): Promise<ProviderEndpoints> => {
    known ??= (async () => {
      const res = await fetch(`${issuer.replace(/\/+$/, "")}/.well-known/openid-configuration`, {
        signal: AbortSignal.timeout(timeoutMs),
      });
      if (!res.ok) throw new Error(`discovery answered ${res.status}`);
      const doc = (await res.json()) as Record<string, unknown>;
      const authorizationEndpoint = doc.authorization_endpoint;
      const tokenEndpoint = doc.token_endpoint;
      if (typeof authorizationEndpoint !== "string" || typeof tokenEndpoint !== "string")
        throw new Error("discovery names no authorization_endpoint or token_endpoint");
      return { authorizationEndpoint, tokenEndpoint };
    })().catch((err: unknown) => {
      known = undefined;
      throw err;
    });
    return known;
  };
}
