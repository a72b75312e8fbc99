import type { JsonObject } from "@bufbuild/protobuf";

/** The format tag inside every payload: it also keeps a lease signature from meaning anything else. */
export const LEASE_FORMAT = "svc-license-lease/v1";

/** What a lease states, signed as its canonical bytes (see canonical.ts). */
export interface LeasePayload {
  format: typeof LEASE_FORMAT;
  lease_id: string;
  deployment_id: string;
  /** Omitted when the issuer named no customer. */
  customer_id?: string;
  entitlements: JsonObject;
  /** Grows by one with every lease of the deployment: a holder refuses a smaller one. */
  serial: number;
  /** RFC 3339, UTC, whole seconds. */
  issued_at: string;
  expires_at: string;
  ttl_seconds: number;
  grace_period_seconds: number;
  public_key_id: string;
}

/** The lease as issued and as kept in the holder's file. */
export interface SignedLease {
  payload: LeasePayload;
  /** Ed25519 signature of the payload's canonical bytes, base64url. */
  signature: string;
}

/** Why a lease document was refused; callers branch on `code`. */
export class LeaseFormatError extends Error {
  readonly code = "lease_malformed";
  constructor(message: string) {
    super(message);
    this.name = "LeaseFormatError";
  }
}

const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/;

/** RFC 3339 at whole seconds, the only time form a lease carries. */
export function leaseTime(ms: number): string {
  return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace(".000Z", "Z");
}

/**
 * Parses lease JSON text and checks its shape (not its signature: see verify-lease.ts).
 *
 * @example const lease = parseLease(await readFile("lease.json", "utf8"));
 */
export function parseLease(text: string): SignedLease {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (err) {
    throw new LeaseFormatError(`the lease is not JSON: ${(err as Error).message}`);
  }
  if (!isObject(doc) || !isObject(doc.payload) || typeof doc.signature !== "string")
    throw new LeaseFormatError('a lease is {"payload": {...}, "signature": "..."}');
  const p = doc.payload;
  if (p.format !== LEASE_FORMAT)
    throw new LeaseFormatError(`unknown lease format ${JSON.stringify(p.format)}`);
  for (const f of ["lease_id", "deployment_id", "public_key_id"] as const)
    if (typeof p[f] !== "string" || p[f] === "") throw new LeaseFormatError(`${f} is missing`);
  for (const f of ["issued_at", "expires_at"] as const)
    if (typeof p[f] !== "string" || !RFC3339.test(p[f]))
      throw new LeaseFormatError(`${f} must be an RFC 3339 UTC time`);
  for (const f of ["serial", "ttl_seconds", "grace_period_seconds"] as const)
    if (!Number.isSafeInteger(p[f]) || (p[f] as number) < 0)
      throw new LeaseFormatError(`${f} must be a whole number`);
  if (!isObject(p.entitlements)) throw new LeaseFormatError("entitlements must be an object");
  if (p.customer_id !== undefined && typeof p.customer_id !== "string")
    throw new LeaseFormatError("customer_id must be a string");
  return { payload: p as unknown as LeasePayload, signature: doc.signature };
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}
