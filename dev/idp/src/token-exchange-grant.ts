import type Provider from "oidc-provider";
import { errors } from "oidc-provider";
import { jwtVerify, SignJWT, type CryptoKey, type JWTPayload } from "jose";
import {
  ACCESS_TOKEN_TYPE,
  TOKEN_EXCHANGE_GRANT,
  delegate,
} from "../../../deploy/idp/token-exchange.js";

/** What the grant needs to verify the tokens it is given and sign the one it mints. */
export interface ExchangeKeys {
  kid: string;
  privateKey: CryptoKey;
  publicKey: CryptoKey;
}

export interface ExchangeSettings {
  issuer: string;
  audience: string;
  ttlSeconds: number;
  claimsNamespace: string;
}

const PARAMETERS = [
  "subject_token",
  "subject_token_type",
  "subject_token_profile",
  "actor_token",
  "actor_token_type",
  "requested_token_type",
  "scope",
  "audience",
];

/**
 * Registers RFC 8693 token exchange on the provider, decided by the profile we ship
 * (`deploy/idp/token-exchange.ts`), so the development provider and the production one answer
 * alike. The provider authenticates the client; the profile decides everything else. Every machine
 * client is registered with the grant at the protocol layer so that a client the profile does not
 * allow is answered `unauthorized_client` as the spec says, not the provider's generic refusal.
 */
export function registerTokenExchange(
  provider: Provider,
  keys: ExchangeKeys,
  settings: ExchangeSettings,
): void {
  const payloadOf = async (token: unknown): Promise<JWTPayload | undefined> => {
    if (typeof token !== "string" || token === "") return undefined;
    try {
      const { payload } = await jwtVerify(token, keys.publicKey, { issuer: settings.issuer });
      return payload;
    } catch {
      return undefined;
    }
  };

  provider.registerGrantType(
    TOKEN_EXCHANGE_GRANT,
    async (ctx) => {
      const client = ctx.oidc.client!;
      const params = ctx.oidc.params as Record<string, unknown>;
      const metadata = client.metadata() as { svc_grants?: string[]; svc_profiles?: string[] };
      const scope = typeof params.scope === "string" ? params.scope : "";
      const result = delegate(
        {
          client: {
            id: client.clientId,
            grants: metadata.svc_grants ?? [],
            profiles: metadata.svc_profiles ?? [],
          },
          profile:
            typeof params.subject_token_profile === "string"
              ? params.subject_token_profile
              : undefined,
          subjectTokenType:
            typeof params.subject_token_type === "string" ? params.subject_token_type : undefined,
          subject: await payloadOf(params.subject_token),
          actor: await payloadOf(params.actor_token),
          scopes: scope.split(" ").filter(Boolean),
        },
        { ...settings, now: Date.now },
      );
      // 400 with the profile's error code and its description, the RFC 6749 error body.
      if (!result.ok) throw new errors.CustomOIDCProviderError(result.error, result.description);
      const accessToken = await new SignJWT(result.claims)
        .setProtectedHeader({ alg: "RS256", typ: "at+jwt", kid: keys.kid })
        .sign(keys.privateKey);
      ctx.body = {
        access_token: accessToken,
        issued_token_type: ACCESS_TOKEN_TYPE,
        token_type: "Bearer",
        expires_in: result.expiresIn,
        scope: result.claims.scope,
      };
    },
    PARAMETERS,
  );
}
