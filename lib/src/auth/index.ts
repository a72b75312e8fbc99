export {
  MFA_ACR,
  DEFAULT_ALGORITHMS,
  defineAuthSettings,
  assertValidAuthSettings,
  jwksUriOf,
  type AuthSettings,
  type AuthSettingsInput,
} from "./settings.js";
export {
  bearerRejectionKey,
  principalKey,
  refusedPrincipalKey,
  principalOf,
  hasScope,
  type Principal,
} from "./principal.js";
export { principalFromClaims } from "./claims.js";
export { canonicalSubject, sameSubject } from "./canonical-subject.js";
export { createTokenVerifier, type TokenVerifier, type TokenKind } from "./token-verifier.js";
export { createTokenCache, type TokenCache } from "./token-cache.js";
export { jwksUnreachable, invalidToken } from "./token-errors.js";
export { localPrincipal, LOCAL_USER_HEADER } from "./local-provider.js";
export { assertSteppedUp, type StepUpWindow } from "./step-up.js";
export { policyOf } from "./auth-policy.js";
export { bearerOf, BEARER_CHALLENGE } from "./bearer.js";
export {
  createAuthInterceptor,
  type AuthInterceptorOptions,
  type MembershipLookup,
} from "./auth-interceptor.js";
export { createServicePrincipalInterceptor, callerNotAllowed } from "./service-principal.js";
export {
  SERVICE_CLIENT_PREFIX,
  serviceAudienceOf,
  serviceOfClient,
  serviceOfTypeName,
  servicePrincipal,
} from "./service-identity.js";
export { serviceTokens, type ServiceTokens, type ServiceTokenSettings } from "./service-tokens.js";
export {
  assertMembershipFresh,
  assertMembershipVerified,
  freshMembershipCheckKey,
  assumedMembershipKey,
  createMembershipLookup,
  LAST_KNOWN_MEMBERSHIP_MAX_AGE_MS,
  type HaltMembershipLookup,
  type HaltMembershipVerdict,
  type MembershipLookupOptions,
  type MembershipSource,
} from "./membership-lookup.js";
export {
  createDelegatedScopeGuard,
  delegatedScopeRevoked,
  type DelegatedScopeGuard,
} from "./delegated-scopes.js";
export { providerEndpoints, type ProviderEndpoints } from "./oidc-discovery.js";
export {
  createAgentBroker,
  AgentBrokerError,
  DELEGATION_PROFILE,
  type AgentBroker,
  type AgentBrokerSettings,
  type DelegatedToken,
} from "./agent-broker.js";
