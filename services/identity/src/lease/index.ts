// The issuer's side of leases (signing, the signing key, renewal credentials); the format itself,
// shared with every holder and the license gate, is @svc/lib/license, re-exported for the tests.
export * from "@svc/lib/license";
export { signingKeyFromPem, type LeaseSigningKey } from "./keys.js";
export { signBytes, signLease } from "./sign-lease.js";
export {
  parseRenewal,
  renewalSignedBy,
  signRenewal,
  RENEWAL_FORMAT,
  RENEWAL_SKEW_SECONDS,
  type ParsedRenewal,
  type RenewalClaims,
} from "./renewal-credential.js";
