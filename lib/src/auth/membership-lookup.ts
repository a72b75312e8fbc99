import { withDeadline } from "../deadline/index.js";
import { Code, svcError } from "../errors/index.js";
import type { MembershipLookup } from "./auth-interceptor.js";
import type { Principal } from "./principal.js";

export interface MembershipLookupOptions {
  /** How many membership rows the identity service holds for a subject. */
  countOf: (subject: string) => Promise<number>;
  /** How long a subject with memberships is remembered. */
  ttlMs: number;
  /** How long a subject without any is remembered: short, so a new member gets in soon. */
  negativeTtlMs: number;
  timeoutMs: number;
  now?: () => number;
}

/**
 * The auth interceptor's membership check, asked of the identity service with a short cache.
 * An identity service that does not answer within the deadline fails the call closed (503
 * membership_unverifiable), never open: strict enforcement must not lapse with a dependency.
 * An agent is checked as the person it acts for.
 */
export function createMembershipLookup(opts: MembershipLookupOptions): MembershipLookup {
  const now = opts.now ?? Date.now;
  const known = new Map<string, { member: boolean; until: number }>();
  return async (p: Principal) => {
    const subject = p.onBehalfOfSub ?? p.sub;
    const hit = known.get(subject);
    if (hit && hit.until > now()) return hit.member;
    let count: number;
    try {
      count = await withDeadline(opts.countOf(subject), opts.timeoutMs, "identity service");
    } catch (err) {
      throw svcError(
        Code.Unavailable,
        "membership_unverifiable",
        `the identity service could not say whether ${subject} is a member (${(err as Error).message}); strict enforcement refuses until it can`,
        {},
        { cause: err, headers: { "retry-after": "1" } },
      );
    }
    const member = count > 0;
    if (known.size > 10_000) known.clear();
    known.set(subject, { member, until: now() + (member ? opts.ttlMs : opts.negativeTtlMs) });
    return member;
  };
}
