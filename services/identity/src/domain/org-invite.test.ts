import { describe, expect, it } from "vitest";
import { inviteStatus, inviteTokenHash, mintInviteToken } from "./org-invite.js";

describe("org invites", () => {
  it("mints a different token each time and keeps its SHA-256", () => {
    const a = mintInviteToken();
    const b = mintInviteToken();
    expect(a.token).not.toBe(b.token);
    expect(a.hash).toBe(inviteTokenHash(a.token));
    expect(a.hash).toMatch(/^[0-9a-f]{64}$/);
  });

  it("says accepted or revoked over expired, since those are final", () => {
    const now = new Date("2026-11-30T12:00:00Z");
    const past = new Date("2026-11-29T12:00:00Z");
    const future = new Date("2026-12-01T12:00:00Z");
    const base = { accepted_at: null, revoked_at: null, expires_at: future };
    expect(inviteStatus(base, now)).toBe("pending");
    expect(inviteStatus({ ...base, expires_at: now }, now)).toBe("expired");
    expect(inviteStatus({ ...base, expires_at: past, accepted_at: past }, now)).toBe("accepted");
    expect(inviteStatus({ ...base, expires_at: past, revoked_at: past }, now)).toBe("revoked");
  });
});
