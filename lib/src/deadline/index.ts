/** Raised when a call to a store or another service did not answer within its deadline. */
export class DeadlineExceeded extends Error {
  readonly code = "deadline_exceeded";
  constructor(
    readonly what: string,
    readonly ms: number,
  ) {
    super(`${what} did not answer within ${ms} ms`);
    this.name = "DeadlineExceeded";
  }
}

/**
 * Settles with `work`, or rejects with DeadlineExceeded after `ms`. The work itself goes on (a
 * promise cannot be cancelled): use it where the callee has no deadline of its own, or as the
 * outer bound of several calls that each have one.
 */
export function withDeadline<T>(work: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new DeadlineExceeded(what, ms)), ms);
    timer.unref?.();
  });
  // A late rejection of the abandoned work must not become an unhandled rejection.
  work.catch(() => undefined);
  return Promise.race([work, expired]).finally(() => clearTimeout(timer));
}

export {
  CALL_DEADLINES_MS,
  HALT_MEMBERSHIP_CHECK_MS,
  MEMBERSHIP_CHECK_MS,
  callDeadlineMs,
  callKindOf,
  type CallKindName,
} from "./call-deadlines.js";
