/** What the auth kernel needs from the SVC_AUTH_* configuration. */
export interface AuthSettings {
  provider: "local" | "oidc";
  issuer?: string;
  audience?: string;
  /** Defaults to `${issuer}/.well-known/jwks.json`. */
  jwksUri?: string;
  /** URL-style prefix ending in "/" of the custom claims (org_id, roles, ...). */
  claimsNamespace: string;
  enforce: "strict" | "permissive";
  m2mEnabled: boolean;
  m2mAudience?: string;
  /** Accept RFC 8693 delegated agent tokens (with an act claim) at all. */
  agentTokensEnabled: boolean;
  /** Never "none" nor an HMAC algorithm: an HMAC key could be the public key itself. */
  algorithms: string[];
  stepUpMaxAgeSeconds: number;
  clockToleranceSeconds: number;
  jwksTimeoutMs: number;
  /** Minimum time between two JWKS fetches triggered by an unknown kid. */
  jwksCooldownMs: number;
  tokenCacheSize: number;
}

/** The acr value of the OpenID PAPE multi-factor policy, the spec's MFA acr. */
export const MFA_ACR = "http://schemas.openid.net/pape/policies/2007/06/multi-factor";
