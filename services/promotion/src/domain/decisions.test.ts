import { describe, expect, it } from "vitest";
import { decisionRefusal } from "./decisions.js";

const approveBy = (humanSub: string, submitter = "user|alice") =>
  decisionRefusal("approve", "pending", { sub: submitter }, { humanSub, isAgent: false });

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
      decisionRefusal(
        "reject",
        "pending",
        { sub: "user|alice" },
        {
          humanSub: "user|Alice",
          isAgent: false,
        },
      ),
    ).toBeNull();
  });

  it("refuses another subject of the submitter's internal user, and only where both are known", () => {
    const alice = { sub: "user|alice", internalUserId: "u-1" };
    const decide = (humanSub: string, internalUserId?: string, submitter = alice) =>
      decisionRefusal("approve", "pending", submitter, {
        humanSub,
        isAgent: false,
        internalUserId,
      });
    expect(decide("google-oauth2|1077", "u-1")?.code).toBe("four_eyes_violation");
    expect(decide("user|bob", "u-2")).toBeNull();
    expect(decide("user|bob")).toBeNull();
    expect(decide("user|bob", "", { sub: "user|alice", internalUserId: "" })).toBeNull();
    expect(decide("user|\u0430lice", "u-2")?.code).toBe("four_eyes_violation");
  });
});
