import { describe, expect, it } from "vitest";
import { planMigration, type MembershipChangeRow } from "./tenancy-strategy.js";

const row = (
  subject: string,
  source: "invite" | "idp_group",
  role: string,
): MembershipChangeRow => ({
  user_id: `id-${subject}`,
  subject,
  scope_kind: "org",
  scope_id: "o1",
  role,
  source,
  connection_kind: source === "idp_group" ? "generic_oidc" : "",
  source_group: source === "idp_group" ? "traders" : "",
});
const invited = row("ivy", "invite", "viewer");
const grouped = row("gus", "idp_group", "trader");
const wantedByGroups = [
  grouped,
  row("hal", "idp_group", "trader"),
  row("hal", "idp_group", "trader"),
];

describe("planMigration", () => {
  it("removes the grants of the source that stops granting", () => {
    const inputs = {
      inviteGrants: [invited],
      groupGrants: [grouped],
      groupWanted: [],
      pendingInvites: 2,
    };
    expect(planMigration("hybrid", "invite_only", inputs)).toEqual({
      added: [],
      removed: [grouped],
      revokeInvites: false,
      invitesRevoked: 0,
    });
    expect(planMigration("hybrid", "group_mapped", inputs)).toEqual({
      added: [],
      removed: [invited],
      revokeInvites: true,
      invitesRevoked: 2,
    });
  });

  it("adds what reported groups grant when groups start granting, once each, less what is held", () => {
    const inputs = {
      inviteGrants: [invited],
      groupGrants: [grouped],
      groupWanted: wantedByGroups,
      pendingInvites: 0,
    };
    expect(planMigration("invite_only", "hybrid", inputs).added).toEqual([
      row("hal", "idp_group", "trader"),
    ]);
    expect(planMigration("invite_only", "group_mapped", inputs).removed).toEqual([invited]);
  });

  it("changes nothing when the strategy stays", () => {
    const inputs = {
      inviteGrants: [invited],
      groupGrants: [grouped],
      groupWanted: wantedByGroups,
      pendingInvites: 1,
    };
    for (const s of ["hybrid", "invite_only", "group_mapped"] as const)
      expect(planMigration(s, s, inputs)).toEqual({
        added: [],
        removed: [],
        revokeInvites: false,
        invitesRevoked: 0,
      });
  });
});
