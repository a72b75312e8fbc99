/** What the auth kernel needs from the SVC_AUTH_* configuration. */
export interface AuthSettings {
  /** "local" trusts every caller as a local user (loopback only); "oidc" verifies access tokens. */
  provider: "local" | "oidc";
  issuer?: string;
  audience?: string;
  /** Defaults to `${issuer}/.well-known/jwks.json` (trailing slash of the issuer dropped). */
  jwksUri?: string;
  /** URL-style prefix ending in "/" of the custom claims (org_id, roles, ...). */
  claimsNamespace: string;
  enforce: "strict" | "permissive";
  m2mEnabled: boolean;
  /** Audience of the client_credentials tokens of the sync routes; defaults to `audience`. */
  m2mAudience?: string;
  /**
   * This process's own service audience (urn:svc:service:<name>) when it is one standalone
   * service: a token with it is a peer service's machine token, held to the RPC's callers.
   */
  serviceAudience?: string;
  /** Accept RFC 8693 delegated agent tokens (with an act claim) at all. */
  agentTokensEnabled: boolean;
  /** Never "none" nor an HMAC algorithm: an HMAC key could be the public key itself. */
  algorithms: string[];
  stepUpMaxAgeSeconds: number;
  clockToleranceSeconds: number;
  /** How long one JWKS fetch may take before the call fails with jwks_unreachable. */
  jwksTimeoutMs: number;
  /** Minimum time between two JWKS fetches triggered by an unknown kid. */
  jwksCooldownMs: number;
  /** Verified tokens remembered until they expire; 0 turns the cache off. */
  tokenCacheSize: number;
}

/** The acr value of the OpenID PAPE multi-factor policy, the spec's MFA acr. */
export const MFA_ACR = "http://schemas.openid.net/pape/policies/2007/06/multi-factor";

/** Asymmetric algorithms the major OIDC providers sign access tokens with. */
export const DEFAULT_ALGORITHMS: readonly string[] = Object.freeze([
  "RS256",
  "ES256",
  "EdDSA",
  "PS256",
]);

/**
 * The defaults, declared once: the kernel, the configuration loader and its documented defaults
 * all read them from here (step-up window 180 s as the spec says, 5 s clock tolerance, 3 s JWKS
 * timeout, 30 s cooldown, 10 000 cached tokens, strict enforcement).
 */
export const AUTH_DEFAULTS = Object.freeze({
  claimsNamespace: "https://svc.example/claims/",
  enforce: "strict",
  m2mEnabled: false,
  agentTokensEnabled: false,
  algorithms: DEFAULT_ALGORITHMS,
  stepUpMaxAgeSeconds: 180,
  clockToleranceSeconds: 5,
  jwksTimeoutMs: 3_000,
  jwksCooldownMs: 30_000,
  tokenCacheSize: 10_000,
} as const satisfies Omit<
  AuthSettings,
  "provider" | "issuer" | "audience" | "jwksUri" | "m2mAudience" | "algorithms"
> & { algorithms: readonly string[] });

/** The settings a caller must name; every other one has a default. */
export type AuthSettingsInput = Pick<AuthSettings, "provider"> &
  Partial<Omit<AuthSettings, "provider">>;

/**
 * Fills the defaults (`AUTH_DEFAULTS`) and checks the result.
 *
 * @example const settings = defineAuthSettings({ provider: "oidc", issuer, audience });
 */
export function defineAuthSettings(input: AuthSettingsInput): AuthSettings {
  const settings: AuthSettings = {
    ...AUTH_DEFAULTS,
    algorithms: [...AUTH_DEFAULTS.algorithms],
    ...stripUndefined(input),
    provider: input.provider,
  };
  assertValidAuthSettings(settings);
  return settings;
}

/**
 * Throws a TypeError (a configuration mistake, not a bad token) for settings that would verify
 * nothing or verify too much.
 *
 * @example assertValidAuthSettings(settings); // throws for algorithms ["HS256"]
 */
export function assertValidAuthSettings(s: AuthSettings): void {
  if (!s.claimsNamespace.endsWith("/"))
    throw new TypeError(`claimsNamespace ${JSON.stringify(s.claimsNamespace)} must end with "/"`);
  const unsafe = s.algorithms.filter((a) => a.toLowerCase() === "none" || /^HS/i.test(a));
  if (unsafe.length > 0)
    throw new TypeError(`algorithms must be asymmetric; refused: ${unsafe.join(", ")}`);
  if (s.provider !== "oidc") return;
  if (!s.issuer || !s.audience) throw new TypeError("oidc auth needs an issuer and an audience");
  if (s.algorithms.length === 0)
    throw new TypeError("oidc auth needs at least one allowed algorithm");
}

/** The key set location: the configured one, else the issuer's well-known path. */
export function jwksUriOf(s: AuthSettings): URL {
  return new URL(s.jwksUri ?? `${(s.issuer ?? "").replace(/\/+$/, "")}/.well-known/jwks.json`);
}

function stripUndefined<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}
