import { describe, expect, it } from "vitest";
import { isLiveSession, type DeploymentState } from "./deployment-status.js";

describe("a live paper session", () => {
  it("is one running or parked by a kill switch; every other state is over or not started", () => {
    const states: DeploymentState[] = [
      "pending",
      "running",
      "parked",
      "success",
      "failed",
      "halted",
    ];
    expect(states.filter(isLiveSession)).toEqual(["running", "parked"]);
  });
});
