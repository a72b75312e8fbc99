// The lease format shared by the issuer (identity service) and the holder (license daemon).
export { canonicalBytes } from "./canonical.js";
export { toBase64Url, fromBase64Url } from "./encoding.js";
export {
  leasePublicKey,
  publicKeyIdOf,
  publicKeysFromPem,
  signingKeyFromPem,
  type LeasePublicKey,
  type LeaseSigningKey,
} from "./keys.js";
export {
  LEASE_FORMAT,
  LeaseFormatError,
  leaseTime,
  parseLease,
  type LeasePayload,
  type SignedLease,
} from "./lease-document.js";
export { signBytes, signLease } from "./sign-lease.js";
export { verifyLeaseSignature, type LeaseRefusal } from "./verify-lease.js";
export {
  parseRenewal,
  renewalSignedBy,
  signRenewal,
  RENEWAL_FORMAT,
  RENEWAL_SKEW_SECONDS,
  type ParsedRenewal,
  type RenewalClaims,
} from "./renewal-credential.js";
