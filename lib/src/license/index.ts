// Offline license leases as every holder reads them: the signed format, its canonical bytes, the
// public keys and their ids, the offline check, the holder's files, and the gate that enforces
// SVC_LICENSE_ENFORCEMENT_ENABLED. The issuer's side (signing) lives in the identity service.
export { canonicalBytes } from "./canonical.js";
export { toBase64Url, fromBase64Url } from "./encoding.js";
export {
  leasePublicKey,
  publicKeyIdOf,
  publicKeysFromPem,
  type LeasePublicKey,
} from "./public-keys.js";
export {
  LEASE_FORMAT,
  LeaseFormatError,
  leaseTime,
  parseLease,
  type LeasePayload,
  type SignedLease,
} from "./lease-document.js";
export { verifyLeaseSignature, type LeaseRefusal } from "./verify-lease.js";
export { leaseStateAt, renewalDue, RENEW_BEFORE_SECONDS, type LeaseState } from "./lease-state.js";
export { checkLease, type LeaseCheck, type Refusal } from "./check-lease.js";
export {
  CLOCK_SLACK_MS,
  holderPaths,
  pinnedOnly,
  readIfExists,
  readMemory,
  readPinnedKeys,
  type HolderMemory,
  type HolderPaths,
} from "./holder-files.js";
export {
  LICENSE_FEATURES,
  openLicenseGate,
  type FeatureVerdict,
  type LicenseFeature,
  type LicenseGate,
  type LicenseGateOptions,
  type LicenseStanding,
} from "./license-gate.js";
export {
  createLicenseInterceptor,
  licenseRefusal,
  LICENSE_STATUS_HEADER,
} from "./license-interceptor.js";
