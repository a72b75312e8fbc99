import { describe, expect, it } from "vitest";
import { claimsFromMemberships, grantChanges, normalizeGroups } from "./group-sync.js";

const grant = (role: string, group: string) => ({
  scope_kind: "team",
  scope_id: "desk-1",
  role,
  source_group: group,
});

describe("group sync", () => {
  it("trims, drops empty and de-duplicates groups", () => {
    expect(normalizeGroups([" Traders ", "", "  ", "Traders", "risk"])).toEqual([
      "Traders",
      "risk",
    ]);
  });

  it("adds what the groups call for and removes what a left group granted, keeping the same role from another group", () => {
    const held = [
      grant("trader", "traders"),
      grant("trader", "desk-leads"),
      grant("viewer", "old"),
    ];
    const wanted = [
      grant("trader", "traders"),
      grant("approver", "risk"),
      grant("approver", "risk"),
    ];
    expect(grantChanges(held, wanted)).toEqual({
      add: [grant("approver", "risk")],
      remove: [grant("trader", "desk-leads"), grant("viewer", "old")],
    });
    expect(grantChanges(wanted, wanted)).toEqual({ add: [], remove: [] });
  });

  it("derives claims from memberships, stable whatever their order", () => {
    expect(
      claimsFromMemberships([
        { scope_kind: "workspace", scope_id: "w2", role: "trader" },
        { scope_kind: "workspace", scope_id: "w1", role: "viewer" },
        { scope_kind: "org", scope_id: "o1", role: "trader" },
      ]),
    ).toEqual({
      team_id: "",
      workspace_id: "w1",
      project_id: "",
      lab_id: "",
      roles: ["trader", "viewer"],
    });
  });
});
