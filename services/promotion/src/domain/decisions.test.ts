import { describe, expect, it } from "vitest";
import { decisionRefusal } from "./decisions.js";

const approveBy = (humanSub: string, submitter = "user|alice") =>
  decisionRefusal("approve", "pending", submitter, { humanSub, isAgent: false });

describe("decisionRefusal: four eyes", () => {
  it("refuses the submitter however the subject is spelled", () => {
    for (const same of [
      "user|alice",
      "user|Alice",
      "USER|ALICE",
      "user|alice ",
      " user|alice",
      "user|ali\u200bce",
      "user|alice\u200d",
      "\u2060user|alice",
      "user|alice\ufeff",
      "user|\uff41lice",
    ]) {
      expect(approveBy(same)?.code, JSON.stringify(same)).toBe("four_eyes_violation");
    }
    expect(approveBy("user|alice", "user|Alice\u200c")?.code).toBe("four_eyes_violation");
  });

  it("lets another person approve, and the submitter reject", () => {
    expect(approveBy("user|bob")).toBeNull();
    expect(approveBy("user|alicia")).toBeNull();
    expect(
      decisionRefusal("reject", "pending", "user|alice", {
        humanSub: "user|Alice",
        isAgent: false,
      }),
    ).toBeNull();
  });
});
