/** The spec's default posture: 7-day leases, 3 days of grace. */
export const DEFAULT_TTL_SECONDS = 7 * 86_400;
export const DEFAULT_GRACE_SECONDS = 3 * 86_400;

/** Why terms cannot be granted; the handler turns it into the spec's answer. */
export class LeaseTermsError extends Error {
  constructor(
    readonly code: "contract_ended",
    message: string,
  ) {
    super(message);
    this.name = "LeaseTermsError";
  }
}

/**
 * When a lease issued at `nowMs` expires: the requested ttl (default 7 days), clamped so that it
 * never outlives the contract. A contract already over grants nothing.
 *
 * @example leaseWindow({ nowMs, requestedTtlSeconds: 0 }).ttlSeconds // 604800
 */
export function leaseWindow(opts: {
  nowMs: number;
  requestedTtlSeconds?: number;
  contractEndsAtMs?: number;
}): { issuedAtMs: number; expiresAtMs: number; ttlSeconds: number; clamped: boolean } {
  const issuedAtMs = Math.floor(opts.nowMs / 1000) * 1000;
  const requested = opts.requestedTtlSeconds || DEFAULT_TTL_SECONDS;
  let ttlSeconds = requested;
  if (opts.contractEndsAtMs !== undefined) {
    const left = Math.floor((opts.contractEndsAtMs - issuedAtMs) / 1000);
    if (left <= 0)
      throw new LeaseTermsError(
        "contract_ended",
        `the contract ended at ${new Date(opts.contractEndsAtMs).toISOString()}; a lease needs a contract that runs on`,
      );
    ttlSeconds = Math.min(requested, left);
  }
  return {
    issuedAtMs,
    expiresAtMs: issuedAtMs + ttlSeconds * 1000,
    ttlSeconds,
    clamped: ttlSeconds < requested,
  };
}
