import { describe, expect, it } from "vitest";
import type { ControlChangeRow } from "../store/compliance.repository.js";
import { dueReports } from "./due-reports.js";

const change = (
  id: string,
  at: string,
  over: Partial<ControlChangeRow> = {},
): ControlChangeRow => ({
  id,
  kind: "risk_limits",
  bot_id: "b1",
  bot_slug: "alpha",
  fleet: null,
  version: 2,
  previous_version: 1,
  actor: "local|alice",
  changed_at: new Date(at),
  before: {},
  after: {},
  ...over,
});

describe("the validation reports due after control changes", () => {
  it("groups uncovered changes by year and report: a bot's own, the platform's for the rest", () => {
    const due = dueReports([
      change("c1", "2025-12-31T23:00:00Z"),
      change("c2", "2026-02-01T00:00:00Z"),
      change("c3", "2026-03-01T00:00:00Z", { kind: "control_code", bot_slug: "alpha-2" }),
      change("c4", "2026-03-02T00:00:00Z", {
        kind: "kill_switch_settings",
        bot_id: null,
        bot_slug: null,
      }),
    ]);
    expect(
      due.map((d) => [d.year, d.scope, d.bot, d.controlChanges, d.dueSince.toISOString()]),
    ).toEqual([
      [2025, "bot", "alpha", ["c1"], "2025-12-31T23:00:00.000Z"],
      [2026, "platform", "", ["c4"], "2026-03-02T00:00:00.000Z"],
      // The slug the bot has as of its latest change.
      [2026, "bot", "alpha-2", ["c2", "c3"], "2026-02-01T00:00:00.000Z"],
    ]);
    expect(due[2]!.kinds).toEqual(["risk_limits", "control_code"]);
  });
});
