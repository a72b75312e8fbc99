export { startTestIdp, type TestIdp, type SignOptions, type JwksBehaviour } from "./test-idp.js";
export {
  userClaims,
  freshMfaClaims,
  staleMfaClaims,
  agentClaims,
  machineClaims,
  createTestTokens,
  unsignedToken,
  hmacWithPublicKeyToken,
  type TestTokens,
} from "./tokens.js";
export {
  createAuthHarness,
  withBearer,
  refusal,
  type AuthHarness,
  type Refusal,
} from "./auth-harness.js";
