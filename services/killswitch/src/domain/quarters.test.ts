import { describe, expect, it } from "vitest";
import { nextScheduled, quarterAfter, quarterOf, scheduledIn } from "./quarters.js";

const at = (iso: string) => new Date(iso);
const t = { monthOfQuarter: 2, dayOfMonth: 15, hourUtc: 9, minuteUtc: 30 };

describe("calendar quarters (UTC) and the drill's time in each", () => {
  it("names the quarter of an instant, its edges in UTC", () => {
    expect(quarterOf(at("2026-11-28T23:59:59Z"))).toEqual({
      label: "2026-Q4",
      start: at("2026-10-01T00:00:00Z"),
      end: at("2027-01-01T00:00:00Z"),
    });
    expect(quarterOf(at("2027-01-01T00:00:00Z")).label).toBe("2027-Q1");
    expect(quarterOf(at("2026-03-31T23:59:59.999Z")).label).toBe("2026-Q1");
  });

  it("steps across years both ways", () => {
    const q4 = quarterOf(at("2026-11-01T00:00:00Z"));
    expect(quarterAfter(q4, 1).label).toBe("2027-Q1");
    expect(quarterAfter(q4, -4).label).toBe("2025-Q4");
    expect(quarterAfter(q4, -7).label).toBe("2025-Q1");
  });

  it("puts the drill on the quarter's month, day and UTC time", () => {
    expect(scheduledIn(quarterOf(at("2026-11-01T00:00:00Z")), t)).toEqual(
      at("2026-11-15T09:30:00Z"),
    );
  });

  it("runs next this quarter while its time is ahead, at once when it passed uncovered, else next quarter", () => {
    expect(nextScheduled(at("2026-10-02T00:00:00Z"), t, false)).toEqual(at("2026-11-15T09:30:00Z"));
    const late = at("2026-12-01T00:00:00Z");
    expect(nextScheduled(late, t, false)).toEqual(late);
    expect(nextScheduled(late, t, true)).toEqual(at("2027-02-15T09:30:00Z"));
  });
});
