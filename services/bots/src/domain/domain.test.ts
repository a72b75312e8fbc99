import { describe, expect, it } from "vitest";
import { canonicalJson, specHash } from "./canonical-json.js";
import { statusTransitionProblem } from "./bot-status.js";
import { slugFromName } from "./slug.js";

describe("spec hash", () => {
  it("ignores key order and whitespace but not values", () => {
    const a = { name: "A", strategy: { family: "ma", parameters: { fast: 5, slow: 20 } } };
    const b = { strategy: { parameters: { slow: 20, fast: 5 }, family: "ma" }, name: "A" };
    expect(canonicalJson(a)).toBe(
      '{"name":"A","strategy":{"family":"ma","parameters":{"fast":5,"slow":20}}}',
    );
    expect(specHash(a)).toBe(specHash(b));
    expect(specHash(a)).not.toBe(specHash({ ...a, name: "B" }));
    expect(specHash(a)).toMatch(/^[0-9a-f]{64}$/);
  });
});

describe("bot status transitions", () => {
  it("allows the lifecycle and explains refusals", () => {
    expect(statusTransitionProblem("draft", "active")).toBeNull();
    expect(statusTransitionProblem("active", "archived")).toBeNull();
    expect(statusTransitionProblem("archived", "draft")).toBeNull();
    expect(statusTransitionProblem("active", "active")).toBeNull();
    expect(statusTransitionProblem("archived", "active")).toBe(
      "an archived bot cannot become active; from archived it can become draft",
    );
    expect(statusTransitionProblem("active", "draft")).toMatch(/can become archived/);
  });
});

describe("slugFromName", () => {
  it("makes URL-friendly slugs", () => {
    expect(slugFromName("Alpha MA (fast) ")).toBe("alpha-ma-fast");
    expect(slugFromName("Crème brûlée")).toBe("creme-brulee");
    expect(slugFromName("***")).toBe("bot");
  });
});
