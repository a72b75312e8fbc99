import { create } from "@bufbuild/protobuf";
import { ConnectError } from "@connectrpc/connect";
import { describe, expect, it } from "vitest";
import { CreateBotRequestSchema, BotKind } from "@svc/gen/svc/bots/v1/bots_pb.js";
import { VerdictSchema } from "@svc/gen/svc/promotion/v1/promotion_pb.js";
import { errorDetailOf } from "../errors/index.js";
import { allowedEnumWireValues, validateMessage } from "./index.js";

function failure(fn: () => void): { message: string; field: unknown } {
  try {
    fn();
  } catch (err) {
    const e = ConnectError.from(err);
    return { message: e.rawMessage, field: errorDetailOf(e).details.field };
  }
  throw new Error("expected a validation failure");
}

const validSpec = { name: "Alpha", kind: BotKind.TRADING };

describe("validateMessage", () => {
  it("accepts a minimal valid spec", () => {
    expect(() => validateMessage(CreateBotRequestSchema, create(CreateBotRequestSchema, { spec: validSpec }))).not.toThrow();
  });

  it("names a missing required message, string and enum", () => {
    expect(failure(() => validateMessage(CreateBotRequestSchema, create(CreateBotRequestSchema, {}))).field).toBe("spec");
    const noName = create(CreateBotRequestSchema, { spec: { kind: BotKind.TRADING } });
    expect(failure(() => validateMessage(CreateBotRequestSchema, noName))).toEqual({ message: "spec.name is required", field: "spec.name" });
    const noKind = create(CreateBotRequestSchema, { spec: { name: "x" } });
    expect(failure(() => validateMessage(CreateBotRequestSchema, noKind)).message).toBe("spec.kind is required: one of trading, research");
  });

  it("checks patterns, lengths and numeric bounds deep in the tree", () => {
    const badSlug = create(CreateBotRequestSchema, { spec: { ...validSpec, slug: "Not A Slug" } });
    expect(failure(() => validateMessage(CreateBotRequestSchema, badSlug)).field).toBe("spec.slug");
    const longName = create(CreateBotRequestSchema, { spec: { ...validSpec, name: "x".repeat(201) } });
    expect(failure(() => validateMessage(CreateBotRequestSchema, longName)).message).toMatch(/at most 200/);
    const fee = create(CreateBotRequestSchema, { spec: { ...validSpec, engine: { feeBps: -1 } } });
    expect(failure(() => validateMessage(CreateBotRequestSchema, fee))).toEqual({ message: "spec.engine.fee_bps=-1 is below the minimum 0", field: "spec.engine.fee_bps" });
    const model = create(CreateBotRequestSchema, { spec: { ...validSpec, models: [{ name: "ok" }, { uri: "s3://x" }] } });
    expect(failure(() => validateMessage(CreateBotRequestSchema, model)).field).toBe("spec.models[1].name");
  });

  it("refuses enum numbers outside the declared set (binary callers can send any)", () => {
    const bad = create(CreateBotRequestSchema, { spec: { ...validSpec, kind: 7 as BotKind } });
    expect(failure(() => validateMessage(CreateBotRequestSchema, bad)).message).toBe("spec.kind must be one of trading, research");
  });

  it("spells enum values the way the spec does", () => {
    expect(allowedEnumWireValues(VerdictSchema)).toEqual(["PASS", "PASS_WITH_FINDINGS", "FAIL"]);
  });
});
