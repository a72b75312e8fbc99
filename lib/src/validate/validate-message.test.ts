import { create } from "@bufbuild/protobuf";
import { StructSchema, ValueSchema } from "@bufbuild/protobuf/wkt";
import { ConnectError } from "@connectrpc/connect";
import { describe, expect, it } from "vitest";
import {
  CreateBotRequestSchema,
  BotKind,
  ListStateEventsRequestSchema,
  ReplayBotRequestSchema,
} from "@svc/gen/svc/bots/v1/bots_pb.js";
import { AllocationProposalSchema, VerdictSchema } from "@svc/gen/svc/promotion/v1/promotion_pb.js";
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
    expect(() =>
      validateMessage(CreateBotRequestSchema, create(CreateBotRequestSchema, { spec: validSpec })),
    ).not.toThrow();
  });

  it("names a missing required message, string and enum", () => {
    expect(
      failure(() => validateMessage(CreateBotRequestSchema, create(CreateBotRequestSchema, {})))
        .field,
    ).toBe("spec");
    const noName = create(CreateBotRequestSchema, { spec: { kind: BotKind.TRADING } });
    expect(failure(() => validateMessage(CreateBotRequestSchema, noName))).toEqual({
      message: "spec.name is required",
      field: "spec.name",
    });
    const noKind = create(CreateBotRequestSchema, { spec: { name: "x" } });
    expect(failure(() => validateMessage(CreateBotRequestSchema, noKind)).message).toBe(
      "spec.kind is required: one of trading, research",
    );
  });

  it("checks patterns, lengths and numeric bounds deep in the tree", () => {
    const badSlug = create(CreateBotRequestSchema, { spec: { ...validSpec, slug: "Not A Slug" } });
    expect(failure(() => validateMessage(CreateBotRequestSchema, badSlug)).field).toBe("spec.slug");
    const longName = create(CreateBotRequestSchema, {
      spec: { ...validSpec, name: "x".repeat(201) },
    });
    expect(failure(() => validateMessage(CreateBotRequestSchema, longName)).message).toMatch(
      /at most 200/,
    );
    const fee = create(CreateBotRequestSchema, { spec: { ...validSpec, engine: { feeBps: -1 } } });
    expect(failure(() => validateMessage(CreateBotRequestSchema, fee))).toEqual({
      message: "spec.engine.fee_bps=-1 is below the minimum 0",
      field: "spec.engine.fee_bps",
    });
    const model = create(CreateBotRequestSchema, {
      spec: { ...validSpec, models: [{ name: "ok" }, { uri: "s3://x" }] },
    });
    expect(failure(() => validateMessage(CreateBotRequestSchema, model)).field).toBe(
      "spec.models[1].name",
    );
  });

  it("refuses enum numbers outside the declared set (binary callers can send any)", () => {
    const bad = create(CreateBotRequestSchema, { spec: { ...validSpec, kind: 7 as BotKind } });
    expect(failure(() => validateMessage(CreateBotRequestSchema, bad)).message).toBe(
      "spec.kind must be one of trading, research",
    );
  });

  it("spells enum values the way the spec does", () => {
    expect(allowedEnumWireValues(VerdictSchema)).toEqual(["PASS", "PASS_WITH_FINDINGS", "FAIL"]);
  });

  it("refuses a NUL character in any string, naming where it is", () => {
    const nul = "a\u0000b";
    const named = (
      msg: Parameters<typeof validateMessage>[1],
      desc: Parameters<typeof validateMessage>[0] = CreateBotRequestSchema,
    ) => failure(() => validateMessage(desc, msg));
    expect(named(create(CreateBotRequestSchema, { spec: { ...validSpec, name: nul } }))).toEqual({
      message: "spec.name contains the NUL character (U+0000), which cannot be stored; remove it",
      field: "spec.name",
    });
    expect(
      named(create(CreateBotRequestSchema, { spec: { ...validSpec, fleet: nul } })).field,
    ).toBe("spec.fleet");
    expect(
      named(
        create(CreateBotRequestSchema, {
          spec: { ...validSpec, universe: { symbols: ["BTC-USD", nul] } },
        }),
      ).field,
    ).toBe("spec.universe.symbols[1]");
    expect(
      named(
        create(CreateBotRequestSchema, {
          spec: { ...validSpec, strategy: { family: "ma", parameters: { a: { b: [1, nul] } } } },
        }),
      ).field,
    ).toBe("spec.strategy.parameters.a.b[1]");
    const keyed = named(
      create(CreateBotRequestSchema, {
        spec: { ...validSpec, strategy: { family: "ma", parameters: { [nul]: 1 } } },
      }),
    );
    expect(keyed).toEqual({
      message:
        "a key of spec.strategy.parameters contains the NUL character (U+0000), which cannot be stored; remove it",
      field: "spec.strategy.parameters",
    });
    expect(
      named(create(AllocationProposalSchema, { capital: { [nul]: 1 } }), AllocationProposalSchema)
        .field,
    ).toBe("capital");
  });

  it("finds a NUL inside google.protobuf.Value and Struct messages", () => {
    const struct = create(StructSchema, {
      fields: { note: create(ValueSchema, { kind: { case: "stringValue", value: "x\u0000" } }) },
    });
    expect(failure(() => validateMessage(StructSchema, struct)).field).toBe("fields.note");
    const nan = create(StructSchema, {
      fields: { n: create(ValueSchema, { kind: { case: "numberValue", value: Number.NaN } }) },
    });
    expect(failure(() => validateMessage(StructSchema, nan)).message).toMatch(
      /^fields.n is not a valid JSON value/,
    );
    const clean = create(StructSchema, {
      fields: { note: create(ValueSchema, { kind: { case: "stringValue", value: "fine" } }) },
    });
    expect(() => validateMessage(StructSchema, clean)).not.toThrow();
  });

  it("refuses a negative sequence number where the contract says min 0", () => {
    expect(
      failure(() =>
        validateMessage(
          ListStateEventsRequestSchema,
          create(ListStateEventsRequestSchema, { botRef: "b", afterSeq: -1n }),
        ),
      ),
    ).toEqual({
      message: "after_seq=-1 is below the minimum 0",
      field: "after_seq",
    });
    expect(
      failure(() =>
        validateMessage(
          ReplayBotRequestSchema,
          create(ReplayBotRequestSchema, { botRef: "b", asOfSeq: -5n }),
        ),
      ).field,
    ).toBe("as_of_seq");
    expect(() =>
      validateMessage(
        ReplayBotRequestSchema,
        create(ReplayBotRequestSchema, { botRef: "b", asOfSeq: 3n }),
      ),
    ).not.toThrow();
  });
});

describe("the proto's patterns", () => {
  it("are anchored at both ends: an unanchored one passes any value that merely contains a match", async () => {
    const { readdirSync, readFileSync } = await import("node:fs");
    const root = new URL("../../../proto/svc/", import.meta.url);
    const loose: string[] = [];
    for (const dir of readdirSync(root))
      for (const file of readdirSync(new URL(`${dir}/v1/`, root)).filter((f) =>
        f.endsWith(".proto"),
      ))
        for (const [, pattern] of readFileSync(new URL(`${dir}/v1/${file}`, root), "utf8").matchAll(
          /pattern: "((?:[^"\\]|\\.)*)"/g,
        ))
          if (!pattern!.startsWith("^") || !pattern!.endsWith("$"))
            loose.push(`${file}: ${pattern}`);
    expect(loose).toEqual([]);
  });
});
