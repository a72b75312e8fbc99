import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BACKENDS, call, startTestPlatform } from "../support/test-platform.js";
import type { RunningPlatform } from "@svc/all-in-one";

const spec = (over: Record<string, unknown> = {}) => ({
  name: "Alpha MA",
  kind: "trading",
  fleet: "majors",
  universe: { symbols: ["BTC-USD"], venue: "sim", timeframe: "1d" },
  strategy: { family: "ma_crossover", parameters: { fast: 10, slow: 30 } },
  engine: { initial_cash: 100000, fee_bps: 5, slippage_bps: 2, position_size: 0.5 },
  ...over,
});

describe.each(BACKENDS)("Bots API through the gateway on %s", (backend) => {
  let p: RunningPlatform;
  beforeAll(async () => {
    p = await startTestPlatform(backend);
  });
  afterAll(async () => {
    await p?.close();
  });

  it("creates, reads by slug and id, versions every spec change, archives and deletes", async () => {
    const created = await call(p.url, "POST", "/bots", spec());
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      name: "Alpha MA",
      slug: "alpha-ma",
      kind: "trading",
      status: "draft",
      current_version: 1,
    });
    expect(created.body.spec_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(created.headers.get("x-request-id")).toBeTruthy();
    const id = created.body.id;

    const bySlug = await call(p.url, "GET", "/bots/alpha-ma");
    expect(bySlug.status).toBe(200);
    expect(bySlug.body.id).toBe(id);
    expect(bySlug.body.spec.strategy.parameters).toEqual({ fast: 10, slow: 30 });
    expect((await call(p.url, "GET", `/bots/${id}`)).body.slug).toBe("alpha-ma");

    const v2 = await call(p.url, "PUT", "/bots/alpha-ma", {
      spec: spec({ strategy: { family: "ma_crossover", parameters: { fast: 12, slow: 30 } } }),
    });
    expect(v2.status).toBe(200);
    expect(v2.body.current_version).toBe(2);
    const v3 = await call(p.url, "PUT", "/bots/alpha-ma", {
      spec: spec({
        engine: { initial_cash: 100000, fee_bps: 7, slippage_bps: 2, position_size: 0.5 },
      }),
    });
    expect(v3.body.current_version).toBe(3);

    // The same spec with its keys in another order is the same spec: no version.
    const reordered = {
      ...spec(),
      engine: { position_size: 0.5, slippage_bps: 2, fee_bps: 7, initial_cash: 100000 },
    };
    const noop = await call(p.url, "PUT", "/bots/alpha-ma", { spec: reordered });
    expect(noop.status).toBe(200);
    expect(noop.body.current_version).toBe(3);
    expect(noop.body.spec_hash).toBe(v3.body.spec_hash);

    const versions = await call(p.url, "GET", "/bots/alpha-ma/versions");
    expect(versions.body.items.map((v: { version: number }) => v.version)).toEqual([1, 2, 3]);
    const hashes = new Set(versions.body.items.map((v: { spec_hash: string }) => v.spec_hash));
    expect(hashes.size).toBe(3);
    expect(versions.body.items[2].spec_hash).toBe(v3.body.spec_hash);
    expect(versions.body.items[0].spec.strategy.parameters.fast).toBe(10);

    const listed = await call(p.url, "GET", "/bots?status=draft");
    expect(listed.body.items).toContainEqual({
      id,
      name: "Alpha MA",
      slug: "alpha-ma",
      kind: "trading",
      status: "draft",
      current_version: 3,
      fleet: "majors",
      // Read only when the list is asked with include_runtime.
      runtime: null,
    });

    const active = await call(p.url, "PUT", "/bots/alpha-ma", { status: "active" });
    expect(active.body.status).toBe("active");
    const refusedDelete = await call(p.url, "DELETE", "/bots/alpha-ma");
    expect(refusedDelete.status).toBe(409);
    expect(refusedDelete.body.error.code).toBe("invalid_transition");

    const archived = await call(p.url, "PUT", "/bots/alpha-ma", { status: "archived" });
    expect(archived.body.status).toBe("archived");
    const frozen = await call(p.url, "PUT", "/bots/alpha-ma", { spec: spec({ name: "Renamed" }) });
    expect(frozen.status).toBe(409);
    expect(frozen.body.error.message).toMatch(/restore it to draft/);

    const deleted = await call(p.url, "DELETE", "/bots/alpha-ma");
    expect(deleted.status).toBe(200);
    expect(deleted.body).toEqual({ id, deleted: true });
    expect((await call(p.url, "GET", "/bots/alpha-ma")).status).toBe(404);
    expect((await call(p.url, "GET", `/bots/${id}/versions`)).status).toBe(404);
  });

  it("refuses a duplicate slug with 409 and an impossible status change with 409", async () => {
    expect((await call(p.url, "POST", "/bots", spec({ name: "Dup", slug: "dup" }))).status).toBe(
      201,
    );
    const again = await call(p.url, "POST", "/bots", spec({ name: "Dup two", slug: "dup" }));
    expect(again.status).toBe(409);
    expect(again.body.error).toMatchObject({ code: "slug_taken", details: { slug: "dup" } });
    await call(p.url, "PUT", "/bots/dup", { status: "archived" });
    const jump = await call(p.url, "PUT", "/bots/dup", { status: "active" });
    expect(jump.status).toBe(409);
    expect(jump.body.error.message).toBe(
      "an archived bot cannot become active; from archived it can become draft",
    );
  });

  it("serializes concurrent updates: each spec change gets its own version number", async () => {
    await call(p.url, "POST", "/bots", spec({ name: "Race", slug: "race" }));
    const results = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        call(p.url, "PUT", "/bots/race", {
          spec: spec({
            name: "Race",
            slug: "race",
            strategy: { family: "ma_crossover", parameters: { fast: i + 1, slow: 50 } },
          }),
        }),
      ),
    );
    expect(results.every((r) => r.status === 200)).toBe(true);
    const versions = await call(p.url, "GET", "/bots/race/versions");
    expect(versions.body.items.map((v: { version: number }) => v.version)).toEqual([
      1, 2, 3, 4, 5, 6, 7, 8, 9,
    ]);
    expect((await call(p.url, "GET", "/bots/race")).body.current_version).toBe(9);
  });

  it("answers 404 naming the unknown bot", async () => {
    const res = await call(p.url, "GET", "/bots/no-such-bot");
    expect(res.status).toBe(404);
    expect(res.body).toEqual({
      error: {
        code: "bot_not_found",
        message: 'no bot with id or slug "no-such-bot"',
        details: { bot_ref: "no-such-bot" },
      },
    });
  });
});
