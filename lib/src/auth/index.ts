export { MFA_ACR, type AuthSettings } from "./settings.js";
export { principalKey, principalOf, hasScope, type Principal } from "./principal.js";
export { principalFromClaims } from "./claims.js";
export { createTokenVerifier, type TokenVerifier, type TokenKind } from "./token-verifier.js";
export { localPrincipal, assertLoopbackHost, LOCAL_USER_HEADER } from "./local-provider.js";
export { assertSteppedUp } from "./step-up.js";
export { createAuthInterceptor, policyOf, type MembershipLookup } from "./auth-interceptor.js";
export { createServicePrincipalInterceptor } from "./service-principal.js";
