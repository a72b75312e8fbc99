import { onExecutePostLogin, type PostLoginEvent } from "../../../deploy/idp/post-login.js";
import type { DevUser } from "./users.js";

/** What the post-login action decided for one login. */
export interface PostLoginOutcome {
  /** The action asked for a second factor (the caller wanted MFA, or the risk was high). */
  mfaRequired: boolean;
  /** Claims the action set on the access token (already under the claims namespace). */
  accessTokenClaims: Record<string, unknown>;
  idTokenClaims: Record<string, unknown>;
}

export interface PostLoginSecrets {
  apiUrl: string;
  tokenUrl: string;
  clientId: string;
  clientSecret: string;
  m2mAudience: string;
  claimsNamespace: string;
}

/** The action's cache: the provider keeps it across logins (the machine token lives 50 minutes). */
export type ActionCache = Map<string, { value: string; expires_at?: number }>;

/**
 * Runs the post-login action we ship (`deploy/idp/post-login.ts`) for a login at the development
 * provider, with the event and api objects the production provider would hand it, so the
 * integration tests exercise the same code for real.
 */
export async function runPostLogin(
  user: DevUser,
  login: { methods: string[]; acrValues: string[] },
  secrets: PostLoginSecrets,
  cache: ActionCache,
  log: (message: string, detail?: unknown) => void,
): Promise<PostLoginOutcome> {
  const outcome: PostLoginOutcome = {
    mfaRequired: false,
    accessTokenClaims: {},
    idTokenClaims: {},
  };
  const event: PostLoginEvent = {
    user: {
      user_id: user.sub,
      email: user.email,
      groups: user.groups ?? [],
      multifactor: ["otp"],
    },
    connection: user.connection ?? { name: "dev-oidc", strategy: "oidc" },
    ...(user.organization ? { organization: user.organization } : {}),
    authentication: { methods: login.methods.map((name) => ({ name })) },
    transaction: { acr_values: login.acrValues },
    secrets: {
      API_URL: secrets.apiUrl,
      TOKEN_URL: secrets.tokenUrl,
      M2M_CLIENT_ID: secrets.clientId,
      M2M_CLIENT_SECRET: secrets.clientSecret,
      M2M_AUDIENCE: secrets.m2mAudience,
      CLAIMS_NAMESPACE: secrets.claimsNamespace,
    },
  };
  await onExecutePostLogin(
    event,
    {
      accessToken: {
        setCustomClaim: (name, value) => void (outcome.accessTokenClaims[name] = value),
      },
      idToken: { setCustomClaim: (name, value) => void (outcome.idTokenClaims[name] = value) },
      multifactor: { enable: () => void (outcome.mfaRequired = true) },
      cache: {
        get: (key) => cache.get(key),
        set: (key, value, options) =>
          void cache.set(key, { value, expires_at: options.expires_at }),
      },
    },
    { fetch, now: Date.now, log },
  );
  return outcome;
}
