/** A holder renews when under 24 hours of validity remain (the spec's auto-renewal trigger). */
export const RENEW_BEFORE_SECONDS = 86_400;

/** Where a lease is in its lifecycle at `nowMs`, offline. */
export type LeaseState = "valid" | "grace" | "expired";

/**
 * The state of a lease and the seconds until that state ends (0 once expired).
 *
 * @example leaseStateAt({ expiresAtMs, graceSeconds: 259200, nowMs }) // { state: "grace", secondsLeft: 3600 }
 */
export function leaseStateAt(opts: { expiresAtMs: number; graceSeconds: number; nowMs: number }): {
  state: LeaseState;
  secondsLeft: number;
} {
  const graceEndsMs = opts.expiresAtMs + opts.graceSeconds * 1000;
  if (opts.nowMs < opts.expiresAtMs)
    return { state: "valid", secondsLeft: Math.floor((opts.expiresAtMs - opts.nowMs) / 1000) };
  if (opts.nowMs < graceEndsMs)
    return { state: "grace", secondsLeft: Math.floor((graceEndsMs - opts.nowMs) / 1000) };
  return { state: "expired", secondsLeft: 0 };
}

/** True when a holder should renew: under 24 hours of validity left (or already past it). */
export function renewalDue(expiresAtMs: number, nowMs: number): boolean {
  return expiresAtMs - nowMs < RENEW_BEFORE_SECONDS * 1000;
}
