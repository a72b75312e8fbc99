import { describe, expect, it } from "vitest";
import { leaseStateAt, renewalDue } from "@svc/lib/license";
import { leaseWindow, LeaseTermsError } from "./lease-terms.js";

const NOW = Date.parse("2026-11-23T12:00:00.400Z");
const DAY = 86_400_000;

describe("lease terms", () => {
  it("default to seven days from the whole second of issue", () => {
    const w = leaseWindow({ nowMs: NOW });
    expect(w.ttlSeconds).toBe(604_800);
    expect(new Date(w.expiresAtMs).toISOString()).toBe("2026-11-30T12:00:00.000Z");
  });

  it("never outlive the contract, and refuse a contract that is over", () => {
    const w = leaseWindow({
      nowMs: NOW,
      requestedTtlSeconds: 30 * 86_400,
      contractEndsAtMs: NOW + 2 * DAY,
    });
    expect(w).toMatchObject({ ttlSeconds: 2 * 86_400, clamped: true });
    expect(() => leaseWindow({ nowMs: NOW, contractEndsAtMs: NOW - 1 })).toThrow(LeaseTermsError);
  });

  it("decay valid -> grace -> expired, counting down the time left in each", () => {
    const at = (nowMs: number) =>
      leaseStateAt({ expiresAtMs: NOW, graceSeconds: 3 * 86_400, nowMs });
    expect(at(NOW - 60_000)).toEqual({ state: "valid", secondsLeft: 60 });
    expect(at(NOW + DAY)).toEqual({ state: "grace", secondsLeft: 2 * 86_400 });
    expect(at(NOW + 3 * DAY)).toEqual({ state: "expired", secondsLeft: 0 });
  });

  it("call for renewal under 24 hours of validity", () => {
    expect(renewalDue(NOW + DAY + 1000, NOW)).toBe(false);
    expect(renewalDue(NOW + DAY - 1000, NOW)).toBe(true);
  });
});
