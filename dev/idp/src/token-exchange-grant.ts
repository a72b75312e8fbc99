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
  /** What the provider's RBAC grants the person now (undefined: no such person any more). */
  permissionsOf: (sub: string) => readonly string[] | undefined;
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
  // Only access tokens (RFC 9068 at+jwt): an ID token or a logout token, signed with the same
  // key, is no subject or actor of an exchange. The profile checks audience and kind.
  const verified = async (
    name: string,
    token: unknown,
  ): Promise<{ payload?: JWTPayload; refusal?: string }> => {
    if (typeof token !== "string" || token === "") return {};
    try {
      const { payload } = await jwtVerify(token, keys.publicKey, {
        issuer: settings.issuer,
        typ: "at+jwt",
      });
      return { payload };
    } catch (err) {
      return { refusal: `the ${name} does not verify: ${(err as Error).message}` };
    }
  };

  provider.registerGrantType(
    TOKEN_EXCHANGE_GRANT,
    async (ctx) => {
      const client = ctx.oidc.client!;
      const params = ctx.oidc.params as Record<string, unknown>;
      const metadata = client.metadata() as { svc_grants?: string[]; svc_profiles?: string[] };
      const scope = typeof params.scope === "string" ? params.scope : "";
      const subject = await verified("subject token", params.subject_token);
      const actor = await verified("actor token", params.actor_token);
      const person = typeof subject.payload?.sub === "string" ? subject.payload.sub : undefined;
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
          subject: subject.payload,
          actor: actor.payload,
          scopes: scope.split(" ").filter(Boolean),
          personHoldsNow: person === undefined ? undefined : (settings.permissionsOf(person) ?? []),
        },
        { ...settings, now: Date.now },
      );
      // 400 with the profile's error code and its description, the RFC 6749 error body; a token
      // that did not verify is refused in the profile's order (it has no payload), said plainly.
      if (!result.ok)
        throw new errors.CustomOIDCProviderError(
          result.error,
          (result.error === "invalid_grant" && (subject.refusal ?? actor.refusal)) ||
            result.description,
        );
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
