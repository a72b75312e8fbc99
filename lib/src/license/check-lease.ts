import { LeaseFormatError, parseLease, type SignedLease } from "./lease-document.js";
import { leaseStateAt, type LeaseState } from "./lease-state.js";
import type { LeasePublicKey } from "./public-keys.js";
import { verifyLeaseSignature } from "./verify-lease.js";

/** Why the holder refused a lease file; each has its own log line. */
export type Refusal =
  | "no_lease"
  | "malformed"
  | "other_deployment"
  | "unpinned_key"
  | "key_not_fetched"
  | "bad_signature"
  | "older_serial"
  | "clock_rollback";

export type LeaseCheck =
  | { ok: true; lease: SignedLease; state: LeaseState; secondsLeft: number }
  | { ok: false; refusal: Refusal; message: string };

/** How far ahead of the clock a lease's issued_at may be before the clock counts as rolled back. */
const ISSUE_SKEW_MS = 300_000;

/**
 * Verifies a lease file offline, as a holder must: shape, deployment, pinned key, signature,
 * serial not older than one seen, issued no later than the clock allows; then where it stands.
 */
export async function checkLease(
  text: string | undefined,
  ctx: {
    deploymentId: string;
    pinnedIds: string[];
    keys: LeasePublicKey[];
    highestSerial: number;
    nowMs: number;
  },
): Promise<LeaseCheck> {
  if (text === undefined)
    return {
      ok: false,
      refusal: "no_lease",
      message: "no lease file yet: install one (svc-license-daemon install <file>)",
    };
  let lease: SignedLease;
  try {
    lease = parseLease(text);
  } catch (err) {
    if (err instanceof LeaseFormatError)
      return { ok: false, refusal: "malformed", message: err.message };
    throw err;
  }
  const p = lease.payload;
  if (p.deployment_id !== ctx.deploymentId)
    return {
      ok: false,
      refusal: "other_deployment",
      message: `the lease is for deployment ${p.deployment_id}, this install is ${ctx.deploymentId}`,
    };
  if (!ctx.pinnedIds.includes(p.public_key_id))
    return {
      ok: false,
      refusal: "unpinned_key",
      message: `the lease is signed by key ${p.public_key_id}, which is not pinned (SVC_LICENSE_PINNED_KEY_IDS)`,
    };
  const refusal = await verifyLeaseSignature(lease, ctx.keys);
  if (refusal === "unknown_key")
    return {
      ok: false,
      refusal: "key_not_fetched",
      message: `pinned key ${p.public_key_id} has not been fetched from the vendor yet; the daemon needs to reach it once`,
    };
  if (refusal === "bad_signature")
    return {
      ok: false,
      refusal: "bad_signature",
      message: `the signature of lease ${p.lease_id} does not verify: the file was altered`,
    };
  if (p.serial < ctx.highestSerial)
    return {
      ok: false,
      refusal: "older_serial",
      message: `lease serial ${p.serial} is older than serial ${ctx.highestSerial} already seen: refusing a rolled-back lease file`,
    };
  if (Date.parse(p.issued_at) > ctx.nowMs + ISSUE_SKEW_MS)
    return {
      ok: false,
      refusal: "clock_rollback",
      message: `the lease was issued at ${p.issued_at}, after the clock's ${new Date(ctx.nowMs).toISOString()}: the clock is behind`,
    };
  const at = leaseStateAt({
    expiresAtMs: Date.parse(p.expires_at),
    graceSeconds: p.grace_period_seconds,
    nowMs: ctx.nowMs,
  });
  return { ok: true, lease, ...at };
}
