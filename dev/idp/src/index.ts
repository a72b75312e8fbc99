export { startDevIdp, type DevIdp, type DevIdpOptions } from "./dev-idp.js";
export {
  signIn,
  followProviderLogin,
  machineToken,
  SignInError,
  type Credentials,
  type SignInOptions,
  type SignInResult,
} from "./sign-in.js";
export { defaultUsers, devUser, type DevUser } from "./users.js";
export type { DevClients, MachineClient } from "./clients.js";
