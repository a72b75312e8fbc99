import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, startTestPlatform } from "../support/test-platform.js";
import type { RunningPlatform } from "@svc/all-in-one";

describe("bad input through the gateway: 4xx that say what to fix, nothing half-written", () => {
  let p: RunningPlatform;
  const count = async () => (await call(p.url, "GET", "/bots")).body.items.length as number;

  beforeAll(async () => {
    p = await startTestPlatform("pglite", { SVC_BODY_LIMIT_BYTES: "4096" });
    await call(p.url, "POST", "/bots", { name: "Existing", kind: "trading" });
  });
  afterAll(async () => {
    await p?.close();
  });

  it("malformed JSON: 400 naming the position", async () => {
    const res = await call(p.url, "POST", "/bots", '{"name": "x", "kind": }');
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe("invalid_argument");
    expect(res.body.error.message).toBe(
      "malformed JSON at position 22 (line 1, column 23): value expected",
    );
    expect(res.body.error.details).toMatchObject({
      field: "body",
      position: 22,
      line: 1,
      column: 23,
    });
    const multiline = await call(
      p.url,
      "POST",
      "/bots",
      '{\n  "name": "x",\n  "kind": "trading",\n}',
    );
    expect(multiline.body.error.message).toMatch(
      /^malformed JSON at position \d+ \(line 4, column 1\)/,
    );
  });

  it("unknown field: 400 naming it and the known ones", async () => {
    const res = await call(p.url, "POST", "/bots", { name: "x", kind: "trading", colour: "red" });
    expect(res.status).toBe(400);
    expect(res.body.error.details.field).toBe("colour");
    expect(res.body.error.message).toMatch(
      /^unknown field colour; known fields here: name, slug, kind/,
    );
    const nested = await call(p.url, "POST", "/bots", {
      name: "x",
      kind: "trading",
      engine: { fees: 1 },
    });
    expect(nested.body.error.details.field).toBe("engine.fees");
  });

  it("wrong type: 400 naming the field and the expected type", async () => {
    const res = await call(p.url, "POST", "/bots", {
      name: "x",
      kind: "trading",
      engine: { fee_bps: "five" },
    });
    expect(res.status).toBe(400);
    expect(res.body.error.message).toBe('engine.fee_bps must be a number; got string "five"');
    const arr = await call(p.url, "POST", "/bots", { name: ["x"], kind: "trading" });
    expect(arr.body.error.message).toBe("name must be a string; got an array");
    const q = await call(p.url, "GET", "/bots?limit=ten");
    expect(q.status).toBe(400);
    expect(q.body.error.details.field).toBe("limit");
  });

  it("enum outside the allowed values: 400 listing them", async () => {
    const res = await call(p.url, "POST", "/bots", { name: "x", kind: "hft" });
    expect(res.status).toBe(400);
    expect(res.body.error.message).toBe('kind must be one of trading, research; got "hft"');
    expect(res.body.error.details.allowed).toEqual(["trading", "research"]);
    const q = await call(p.url, "GET", "/bots?status=deleted");
    expect(q.body.error.details.allowed).toEqual(["draft", "active", "archived"]);
  });

  it("missing required field: 400 naming it, relative to the body", async () => {
    const res = await call(p.url, "POST", "/bots", { kind: "trading" });
    expect(res.status).toBe(400);
    expect(res.body.error).toEqual({
      code: "invalid_argument",
      message: "name is required",
      details: { field: "name" },
    });
    const noBody = await call(p.url, "POST", "/bots");
    expect(noBody.status).toBe(400);
    expect(noBody.body.error.details.field).toBe("spec");
    const rule = await call(p.url, "POST", "/bots", {
      name: "x",
      kind: "trading",
      engine: { position_size: 2 },
    });
    expect(rule.body.error.message).toBe("engine.position_size=2 is above the maximum 1");
  });

  it("body over the limit: 413", async () => {
    const res = await call(p.url, "POST", "/bots", {
      name: "x",
      kind: "trading",
      agents: Array.from({ length: 200 }, (_, i) => ({ name: `agent-${i}`, role: "r".repeat(20) })),
    });
    expect(res.status).toBe(413);
    expect(res.body.error).toMatchObject({
      code: "payload_too_large",
      details: { limit_bytes: 4096 },
    });
  });

  it("wrong method on a known path: 405 with Allow; unknown path: 404", async () => {
    const res = await call(p.url, "PATCH", "/bots/existing");
    expect(res.status).toBe(405);
    expect(res.headers.get("allow")).toBe("GET, PUT, DELETE");
    expect(res.body.error.code).toBe("method_not_allowed");
    const missing = await call(p.url, "GET", "/bots/existing/nothing-here");
    expect(missing.status).toBe(404);
    expect(missing.body.error.code).toBe("route_not_found");
  });

  it("a reserved slug, a non-JSON content type, a path contradicted by the body", async () => {
    expect(
      (await call(p.url, "POST", "/bots", { name: "Halt all", kind: "trading", slug: "halt-all" }))
        .body.error.details.field,
    ).toBe("slug");
    expect(
      (
        await call(p.url, "POST", "/bots", "name=x", {
          "content-type": "application/x-www-form-urlencoded",
        })
      ).status,
    ).toBe(415);
    const contradicted = await call(p.url, "PUT", "/bots/existing", {
      bot_ref: "other",
      status: "active",
    });
    expect(contradicted.status).toBe(400);
    expect(contradicted.body.error.details.field).toBe("bot_ref");
  });

  it("left nothing half-written after all of the above", async () => {
    expect(await count()).toBe(1);
    const versions = await call(p.url, "GET", "/bots/existing/versions");
    expect(versions.body.items).toHaveLength(1);
    expect((await call(p.url, "GET", "/bots/existing")).body.status).toBe("draft");
  });
});
