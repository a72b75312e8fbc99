export { startTestIdp, freshMfaClaims, type TestIdp } from "./test-idp.js";
