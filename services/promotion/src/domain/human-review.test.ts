import { describe, expect, it } from "vitest";
import { humanReview } from "./human-review.js";

describe("who decides whether a human looks", () => {
  it("requires a human by default, whatever the submitter asks", () => {
    expect(humanReview("strategy", false, false, []).required).toBe(true);
    expect(humanReview("allocation", undefined, false, ["allocation"]).required).toBe(true);
  });
  it("honours a waiver only for a kind the operator listed", () => {
    expect(humanReview("allocation", false, false, ["allocation"])).toEqual({
      required: false,
      policy: expect.stringContaining("SVC_PROMOTION_SKIP_HUMAN_KINDS=allocation"),
    });
    expect(humanReview("strategy", false, false, ["allocation"]).required).toBe(true);
  });
  it("never for a request an agent submitted", () => {
    expect(humanReview("allocation", false, true, ["allocation"])).toEqual({
      required: true,
      policy: expect.stringContaining("agent"),
    });
  });
});
