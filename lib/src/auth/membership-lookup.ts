import { createContextKey, type HandlerContext } from "@connectrpc/connect";
import { HALT_MEMBERSHIP_CHECK_MS, withDeadline } from "../deadline/index.js";
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
  /** How long a halt's check waits for the identity service (default HALT_MEMBERSHIP_CHECK_MS). */
  haltTimeoutMs?: number;
  /** The oldest answer a halt may still go by when the identity service does not answer. */
  lastKnownMaxAgeMs?: number;
  now?: () => number;
}

/**
 * How a halt's caller passed the membership check: asked of the identity service (or its fresh
 * cache), taken from the last answer it gave for that person (`ageMs` old), or, with no answer
 * ever known, let through on the scope alone because halting is the safe direction.
 */
export type MembershipSource =
  { source: "verified" } | { source: "cached"; ageMs: number } | { source: "unverified_halt" };

export type HaltMembershipVerdict = { member: boolean } & MembershipSource;

/** A halt's membership check: never fails for want of the identity service. */
export type HaltMembershipLookup = (p: Principal) => Promise<HaltMembershipVerdict>;

/**
 * Set by the auth interceptor when a halt passed on a membership it did not verify just now, so
 * the call's audit record says so (lib/src/audit/membership-audit-interceptor.ts).
 */
export const assumedMembershipKey = createContextKey<MembershipSource | undefined>(undefined, {
  description: "membership assumed for a halt",
});

/**
 * For a halt route that can also lift or loosen a halt (a kill switch moved to another target,
 * say): refuses 503 membership_unverifiable when this call's membership was assumed, so what
 * releases never passes on a membership nobody checked.
 *
 * @example if (req.rescope) assertMembershipVerified(ctx);
 */
export function assertMembershipVerified(ctx: Pick<HandlerContext, "values">): void {
  const assumed = ctx.values.get(assumedMembershipKey);
  if (assumed)
    throw svcError(
      Code.Unavailable,
      "membership_unverifiable",
      `the identity service did not answer (membership ${assumed.source === "cached" ? "taken from its last answer" : "not known"}); this lifts a halt, which needs a checked membership: only halting goes without one`,
      {},
      { headers: { "retry-after": "1" } },
    );
}

/**
 * Set by the auth interceptor on every call whose membership it checked: asks the identity
 * service again, past any cache, for this call's caller (what a release is checked with).
 */
export const freshMembershipCheckKey = createContextKey<(() => Promise<boolean>) | undefined>(
  undefined,
  { description: "the caller's membership, asked of the identity service afresh" },
);

/**
 * For a halt route whose request turns out to lift or loosen a halt (a kill switch moved to
 * another key, or given a TTL): the same check a release gets, the identity service asked afresh.
 * Refuses 503 membership_unverifiable when it does not answer, 403 membership_required when the
 * caller is no longer a member; a call whose membership was not checked at all passes.
 *
 * @example if (req.rescope) await assertMembershipFresh(ctx);
 */
export async function assertMembershipFresh(ctx: Pick<HandlerContext, "values">): Promise<void> {
  assertMembershipVerified(ctx);
  const check = ctx.values.get(freshMembershipCheckKey);
  if (check && !(await check()))
    throw svcError(
      Code.PermissionDenied,
      "membership_required",
      "the caller has no membership in this organization any more; lifting a halt needs one",
    );
}

/** How many people's last known memberships a process keeps. */
const LAST_KNOWN_CAPACITY = 10_000;

/** Last known memberships are kept this long for halts (docs/kill-switch.md). */
export const LAST_KNOWN_MEMBERSHIP_MAX_AGE_MS = 24 * 3_600_000;

/**
 * The auth interceptor's membership check, asked of the identity service with a short cache.
 * An identity service that does not answer within the deadline fails the call closed (503
 * membership_unverifiable), never open: strict enforcement must not lapse with a dependency.
 * An agent is checked as the person it acts for.
 *
 * A halt is the exception (`forHalt`): it waits for the identity service only
 * HALT_MEMBERSHIP_CHECK_MS, then goes by the last answer known for that person (up to
 * LAST_KNOWN_MEMBERSHIP_MAX_AGE_MS old: a known non-member is still refused) or, with none
 * known, lets the holder of the route's scope halt. A release (`fresh`) is the opposite: it
 * asks the identity service every time, cache or not, and fails closed when it does not answer.
 */
export function createMembershipLookup(
  opts: MembershipLookupOptions,
): MembershipLookup & { forHalt: HaltMembershipLookup; fresh: MembershipLookup } {
  const now = opts.now ?? Date.now;
  const maxAgeMs = opts.lastKnownMaxAgeMs ?? LAST_KNOWN_MEMBERSHIP_MAX_AGE_MS;
  const known = new Map<string, { member: boolean; at: number }>();
  const fresh = (hit: { member: boolean; at: number }) =>
    now() - hit.at < (hit.member ? opts.ttlMs : opts.negativeTtlMs);
  const ask = async (subject: string, timeoutMs: number) => {
    const member = (await withDeadline(opts.countOf(subject), timeoutMs, "identity service")) > 0;
    // Oldest answer out first, never all at once: a halt with identity down goes by these.
    known.delete(subject);
    if (known.size >= LAST_KNOWN_CAPACITY) known.delete(known.keys().next().value!);
    known.set(subject, { member, at: now() });
    return member;
  };
  const subjectOf = (p: Principal) => p.onBehalfOfSub ?? p.sub;

  const verify = async (p: Principal, cached: boolean) => {
    const subject = subjectOf(p);
    const hit = known.get(subject);
    if (cached && hit && fresh(hit)) return hit.member;
    try {
      return await ask(subject, opts.timeoutMs);
    } catch (err) {
      throw svcError(
        Code.Unavailable,
        "membership_unverifiable",
        `the identity service could not say whether ${subject} is a member (${(err as Error).message}); strict enforcement refuses until it can`,
        {},
        { cause: err, headers: { "retry-after": "1" } },
      );
    }
  };

  const check: MembershipLookup = (p) => verify(p, true);
  const afresh: MembershipLookup = (p) => verify(p, false);

  const forHalt: HaltMembershipLookup = async (p) => {
    const subject = subjectOf(p);
    const hit = known.get(subject);
    if (hit && fresh(hit)) return { member: hit.member, source: "verified" };
    try {
      return {
        member: await ask(subject, opts.haltTimeoutMs ?? HALT_MEMBERSHIP_CHECK_MS),
        source: "verified",
      };
    } catch {
      const ageMs = hit ? now() - hit.at : Infinity;
      if (hit && ageMs <= maxAgeMs) return { member: hit.member, source: "cached", ageMs };
      return { member: true, source: "unverified_halt" };
    }
  };

  return Object.assign(check, { forHalt, fresh: afresh });
}
