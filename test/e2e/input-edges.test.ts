import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningPlatform } from "@svc/all-in-one";
import { call, startTestPlatform } from "../support/test-platform.js";

const NUL = "\u0000";

// Postgres refuses NUL in text, and a body that is not an object must never stand for "no
// input": both are caller mistakes, answered 400 naming the field before any handler runs.
describe("input edges on Postgres: NUL characters, non-object bodies, negative sequence numbers", () => {
  let p: RunningPlatform;
  const expectInvalid = (
    res: {
      status: number;
      body: { error: { code: string; message: string; details: { field?: unknown } } };
    },
    field: string,
  ) => {
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe("invalid_argument");
    expect(res.body.error.details.field).toBe(field);
    expect(res.body.error.message).toContain(field);
  };

  beforeAll(async () => {
    p = await startTestPlatform("postgres");
    expect(p.platform.db.kind).toBe("postgres");
    expect(
      (await call(p.url, "POST", "/bots", { name: "Edge", kind: "trading", fleet: "edges" }))
        .status,
    ).toBe(201);
  });
  afterAll(async () => {
    await p?.close();
  });

  it("a NUL in a body string answers 400 naming the field, and writes nothing", async () => {
    const res = await call(p.url, "POST", "/bots", { name: `Evil${NUL}Bot`, kind: "trading" });
    expectInvalid(res, "name");
    expect(res.body.error.message).toMatch(/NUL/);
    const nested = await call(p.url, "POST", "/bots", {
      name: "Nested",
      kind: "trading",
      models: [{ name: "ok" }, { name: `m${NUL}` }],
    });
    expectInvalid(nested, "models[1].name");
    const inStruct = await call(p.url, "POST", "/bots", {
      name: "Params",
      kind: "trading",
      strategy: { family: "ma_crossover", parameters: { note: { deep: [`x${NUL}`] } } },
    });
    expectInvalid(inStruct, "strategy.parameters.note.deep[0]");
    const listed = await call(p.url, "GET", "/bots");
    expect(listed.body.items.map((b: { name: string }) => b.name)).toEqual(["Edge"]);
  });

  it("a NUL in a path parameter answers 400 naming it", async () => {
    expectInvalid(await call(p.url, "GET", "/bots/%00"), "bot_ref");
    expectInvalid(await call(p.url, "GET", "/bots/edge%00x/versions"), "bot_ref");
  });

  it("a NUL in a kill-switch reason answers 400 and engages nothing", async () => {
    const res = await call(p.url, "PUT", "/kill-switches/x", {
      scope: "fleet",
      target: "edges",
      mode: "cancel",
      reason: `drill${NUL}`,
    });
    expectInvalid(res, "reason");
    expect((await call(p.url, "GET", "/kill-switches/x")).status).toBe(404);
  });

  it("a NUL in a promotion request_id answers 400 and files nothing", async () => {
    const res = await call(p.url, "POST", "/promotion/requests", {
      request_id: `r${NUL}1`,
      kind: "strategy",
      artifact: { bot_ref: "edge", version: 1, version_hash: "0".repeat(64) },
      validation: { verdict: "PASS" },
      risk: { decision: "APPROVE" },
    });
    expectInvalid(res, "request_id");
    expect((await call(p.url, "GET", "/promotion/requests")).body.items).toEqual([]);
  });

  it("a JSON null, array, number or string body answers 400 naming the body", async () => {
    for (const body of ["null", "[]", "[{}]", "7", '"x"', "true"]) {
      const drill = await call(p.url, "POST", "/kill-switch/drills", body);
      expectInvalid(drill, "body");
      expect(drill.body.error.message).toMatch(/JSON object/);
      expectInvalid(await call(p.url, "POST", "/bots", body), "body");
      expectInvalid(await call(p.url, "PUT", "/bots/edge", body), "body");
    }
    expect((await call(p.url, "GET", "/kill-switch/drills")).body.items).toEqual([]);
    expect((await call(p.url, "GET", "/bots/edge")).body.status).toBe("draft");
  });

  it("refuses a negative after_seq or as_of_seq, naming the field and the minimum", async () => {
    const events = await call(p.url, "GET", "/bots/edge/state/events?after_seq=-1");
    expectInvalid(events, "after_seq");
    expect(events.body.error.details).toMatchObject({ min: 0 });
    const replay = await call(p.url, "POST", "/bots/edge/replay", { as_of_seq: -1 });
    expectInvalid(replay, "as_of_seq");
    expect((await call(p.url, "GET", "/bots/edge/state/events?after_seq=0")).status).toBe(200);
  });
});
