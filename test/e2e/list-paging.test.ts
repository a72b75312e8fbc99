import { randomUUID } from "node:crypto";
import { sql } from "kysely";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningPlatform } from "@svc/all-in-one";
import { killSwitchKey } from "@svc/lib/contracts";
import {
  call,
  createTestDatabase,
  PLATFORM_START_TIMEOUT_MS,
  startTestPlatform,
} from "../support/test-platform.js";

type Item = Record<string, unknown>;

/**
 * One list route and a second client writing straight into its table between pages: `insert`
 * adds a row at a sort position (`at`: its timestamp, or its number for the lists keyed by a
 * sequence), `remove` deletes one. Rows seeded before the walk share timestamps in threes and
 * differ by a microsecond otherwise, inside one millisecond: what a JS Date cannot tell apart.
 */
interface ListCase {
  name: string;
  path: () => string;
  query?: Record<string, string>;
  idOf: (item: Item) => string;
  insert: (at: string) => Promise<string>;
  remove: (id: string) => Promise<void>;
  /** Where a row sorts: a timestamp or a number; `i` counts up, `later` sorts after the seed. */
  at: (i: number, later: boolean) => string;
  /** Ids on the list that the test did not seed (the bundled data sets). */
  foreign?: (item: Item) => boolean;
}

const micro = (i: number) =>
  `2026-01-01T00:00:00.000${String(Math.floor(i / 3)).padStart(3, "0")}Z`;
const byTime = (i: number, later: boolean) =>
  later ? `2027-01-01T00:00:00.${String(i).padStart(6, "0")}Z` : micro(i);
const bySeq = (i: number, later: boolean) => String(later ? 1000 + i : i + 1);

describe("keyset pagination on every list route, through the gateway, on postgres", () => {
  let p: RunningPlatform;
  let drop: () => Promise<void>;
  let pool: pg.Pool;
  const bot = { id: randomUUID(), slug: "paged-bot" };
  const otherBot = { id: randomUUID(), slug: "paged-other" };
  const q = (text: string, values: unknown[] = []) => pool.query(text, values);

  async function insertBot(
    b: { id: string; slug: string },
    at: string,
    more: { fleet?: string; status?: string } = {},
  ): Promise<string> {
    const spec = { name: b.slug, slug: b.slug, fleet: more.fleet ?? "" };
    await q(
      `insert into bots.bots (id, slug, name, kind, status, fleet, current_version, spec_hash, spec, created_by, created_at)
       values ($1, $2, $2, 'trading', $3, $4, 1, 'h', $5, 'test', $6)`,
      [b.id, b.slug, more.status ?? "draft", more.fleet ?? null, JSON.stringify(spec), at],
    );
    return b.id;
  }

  beforeAll(async () => {
    const created = await createTestDatabase();
    drop = created.drop;
    p = await startTestPlatform("postgres", { SVC_DATABASE_URL: created.url });
    pool = new pg.Pool({ connectionString: created.url, max: 2 });
    await insertBot(bot, "2020-01-01T00:00:00Z");
    await insertBot(otherBot, "2020-01-01T00:00:00Z");
  }, PLATFORM_START_TIMEOUT_MS);
  afterAll(async () => {
    await pool?.end();
    await p?.close();
    await drop?.();
  });

  async function page(path: string, query: Record<string, string>) {
    const r = await call(p.url, "GET", `${path}?${new URLSearchParams(query)}`);
    return r;
  }

  /** Walks every page of a list, 3 at a time, calling `between` after each page but the last. */
  async function walk(
    path: string,
    query: Record<string, string>,
    between: (n: number) => Promise<void> = async () => {},
  ): Promise<{ items: Item[]; firstToken: string }> {
    const items: Item[] = [];
    let token = "";
    let firstToken = "";
    let n = 0;
    do {
      const r = await page(path, { ...query, limit: "3", ...(token ? { page_token: token } : {}) });
      expect(r.status, r.text).toBe(200);
      expect(r.body.items.length).toBeLessThanOrEqual(3);
      expect(typeof r.body.next_page_token).toBe("string");
      items.push(...r.body.items);
      token = r.body.next_page_token;
      firstToken ||= token;
      if (token) await between(n++);
      // A token that never reaches the end (a page that repeats) fails here, not at the timeout.
      expect(n, "pages walked").toBeLessThan(100);
    } while (token);
    return { items, firstToken };
  }

  const uuidCase = (
    name: string,
    path: () => string,
    table: string,
    idColumn: string,
    insertRow: (id: string, at: string) => Promise<void>,
    extra: Partial<ListCase> = {},
  ): ListCase => ({
    name,
    path,
    idOf: (i) => String(i.id),
    at: byTime,
    async insert(at) {
      const id = randomUUID();
      await insertRow(id, at);
      return id;
    },
    remove: async (id) => void (await q(`delete from ${table} where ${idColumn} = $1`, [id])),
    ...extra,
  });

  let slugs = 0;
  const cases: ListCase[] = [
    uuidCase(
      "bots",
      () => "/bots",
      "bots.bots",
      "id",
      async (id, at) => {
        await insertBot({ id, slug: `b-${slugs++}` }, at, { fleet: "majors" });
      },
      { foreign: (i) => !String(i.slug).startsWith("b-") },
    ),
    {
      name: "bot versions",
      path: () => `/bots/${bot.slug}/versions`,
      idOf: (i) => String(i.version),
      at: bySeq,
      async insert(at) {
        await q(
          `insert into bots.bot_versions (bot_id, version, spec_hash, spec, created_by) values ($1, $2, 'h', '{}', 'test')`,
          [bot.id, Number(at)],
        );
        return at;
      },
      remove: async (v) =>
        void (await q(`delete from bots.bot_versions where bot_id = $1 and version = $2`, [
          bot.id,
          Number(v),
        ])),
    },
    uuidCase(
      "bot deployments",
      () => `/bots/${bot.slug}/deployments`,
      "bots.bot_deployments",
      "id",
      async (id, at) => {
        await q(
          `insert into bots.bot_deployments (id, bot_id, version, target, status, task_id, request, created_at)
           values ($1, $2, 1, 'backtest', 'success', $3, '{}', $4)`,
          [id, bot.id, `t-${id}`, at],
        );
      },
    ),
    uuidCase(
      "bot trials",
      () => `/bots/${bot.slug}/trials`,
      "bots.trial_ledger",
      "trial_id",
      async (id, at) => {
        await q(
          `insert into bots.trial_ledger (trial_id, bot_id, version, spec_hash, strategy_family, parameters, data_source, observations, sharpe, recorded_at)
           values ($1, $2, 1, 'h', 'ma_crossover', '{}', 'csv:x', 0, 0, $3)`,
          [id, bot.id, at],
        );
      },
      { idOf: (i) => String(i.trial_id) },
    ),
    {
      name: "state events",
      path: () => `/bots/${bot.slug}/state/events`,
      idOf: (i) => String(i.seq),
      at: bySeq,
      async insert(at) {
        await q(
          `insert into bots.bot_events (bot_id, seq, task_id, type, data) values ($1, $2, 't', 'bar_received', '{"close": 1}')`,
          [bot.id, Number(at)],
        );
        return at;
      },
      remove: async (s) =>
        void (await q(`delete from bots.bot_events where bot_id = $1 and seq = $2`, [
          bot.id,
          Number(s),
        ])),
    },
    {
      name: "data sets",
      path: () => "/datasets",
      idOf: (i) => String(i.name),
      // Names sort as the keys do: the seed's zero-padded, the later ones after it.
      at: (i, later) =>
        later ? `z-${String(i).padStart(4, "0")}` : `m-${String(i).padStart(4, "0")}`,
      foreign: (i) => i.bundled === true,
      async insert(name) {
        await q(
          `insert into bots.datasets (id, name, symbol, timeframe, first_bar_time, last_bar_time, bar_count, size_bytes, created_by)
           values ($1, $2, 'X', '1d', now(), now(), 1, 1, 'test')`,
          [randomUUID(), name],
        );
        return name;
      },
      remove: async (name) => void (await q(`delete from bots.datasets where name = $1`, [name])),
    },
    uuidCase(
      "compliance runs",
      () => `/bots/${bot.slug}/compliance-runs`,
      "bots.compliance_runs",
      "id",
      async (id, at) => {
        await q(
          `insert into bots.compliance_runs (id, bot_id, kind, version, version_hash, task_id, status, peak_multiple, cases_total, requested_by, created_at)
           values ($1, $2, 'conformance', 1, 'h', $3, 'completed', 1, 0, 'test', $4)`,
          [id, bot.id, `c-${id}`, at],
        );
      },
    ),
    ...(["promotion requests", "pending approvals"] as const).map((name): ListCase => ({
      name,
      path: () => (name === "pending approvals" ? "/promotion/approvals" : "/promotion/requests"),
      idOf: (i) => String(i.request_id),
      at: byTime,
      async insert(at) {
        const id = `req-${randomUUID()}`;
        await q(
          `insert into promotion.promotion_requests (request_id, kind, status, body, gates, requested_by, submitter_sub, requires_human_approval, created_at)
             values ($1, 'promote_live', 'pending', '{}', '[]', 'test', 'test', true, $2)`,
          [id, at],
        );
        return id;
      },
      remove: async (id) =>
        void (await q(`delete from promotion.promotion_requests where request_id = $1`, [id])),
    })),
    {
      name: "kill switches",
      path: () => "/kill-switches",
      idOf: (i) => String((i.metadata as Item).name),
      at: byTime,
      async insert(at) {
        const name = `ks-${randomUUID().slice(0, 8)}`;
        await q(
          `insert into killswitch.kill_switches (name, scope, target, mode, reason, ttl, engaged_by, engaged_at)
           values ($1, 'bot', $1, 'cancel', 'paging test', '', 'test', $2)`,
          [name, at],
        );
        return name;
      },
      remove: async (name) =>
        void (await q(`delete from killswitch.kill_switches where name = $1`, [name])),
    },
    uuidCase(
      "drills",
      () => "/kill-switch/drills",
      "killswitch.drills",
      "id",
      async (id, at) => {
        const result = { bots: 0, per_bot: [], all_restarted: true, note: "" };
        await q(
          `insert into killswitch.drills (id, started_at, started_by, reason, result, state, verdict, ended_at)
         values ($1, $2, 'test', 'paging test', $3, 'finished', 'pass', $2)`,
          [id, at, JSON.stringify(result)],
        );
      },
    ),
  ];

  const firstTokens = new Map<string, string>();

  it.each(cases.map((c) => [c.name, c] as const))(
    "%s: every row present throughout is seen exactly once while rows come and go between pages",
    async (_name, c) => {
      const seeded: string[] = [];
      for (let i = 0; i < 14; i++) seeded.push(await c.insert(c.at(i, false)));
      // Rows deleted between pages: some the walk has passed, some it has not reached.
      const doomed = [seeded[1]!, seeded[8]!, seeded[12]!, seeded[13]!];
      const stable = seeded.filter((id) => !doomed.includes(id));
      const added: string[] = [];
      const { items, firstToken } = await walk(c.path(), c.query ?? {}, async (n) => {
        if (n < doomed.length) await c.remove(doomed[n]!);
        // One row that sorts after everything seeded, one into the middle of the seed.
        added.push(await c.insert(c.at(100 + n, true)));
        added.push(await c.insert(c.at(100 + n, false)));
      });
      firstTokens.set(c.name, firstToken);
      const seen = items.filter((i) => !c.foreign?.(i)).map(c.idOf);
      expect(new Set(seen).size, `no row twice in ${seen.join(",")}`).toBe(seen.length);
      for (const id of stable)
        expect(
          seen.filter((s) => s === id),
          id,
        ).toHaveLength(1);
      for (const id of seen)
        expect(stable.includes(id) || doomed.includes(id) || added.includes(id), id).toBe(true);
      // Clean up, so the next list's walk over a shared table (approvals) starts from its own seed.
      for (const id of [...stable, ...added, ...doomed]) await c.remove(id);
    },
  );

  it("refuses a token of another list, and a malformed one, with 400 naming page_token", async () => {
    expect(firstTokens.size).toBe(cases.length);
    for (const [i, c] of cases.entries()) {
      const foreign = firstTokens.get(cases[(i + 1) % cases.length]!.name)!;
      for (const token of [foreign, "bm90LWEtdG9rZW4", "%%%", foreign.slice(0, -4)]) {
        const r = await page(c.path(), { page_token: token });
        expect(r.status, `${c.name} with ${token}: ${r.text}`).toBe(400);
        expect(r.body.error.code).toBe("invalid_parameter");
        expect(r.body.error.details.field).toBe("page_token");
      }
    }
  });

  it("a page token is bound to its filters and its parent bot", async () => {
    for (let i = 0; i < 5; i++)
      await insertBot({ id: randomUUID(), slug: `f-${i}` }, byTime(i, true), { fleet: "majors" });
    const first = await page("/bots", { fleet: "majors", limit: "2" });
    expect(first.body.next_page_token).not.toBe("");
    const same = await page("/bots", { fleet: "majors", page_token: first.body.next_page_token });
    expect(same.status, same.text).toBe(200);
    expect(same.body.items.every((b: Item) => b.fleet === "majors")).toBe(true);
    const others: Record<string, string>[] = [
      { fleet: "minors" },
      {},
      { fleet: "majors", status: "active" },
    ];
    for (const query of others) {
      const r = await page("/bots", { ...query, page_token: first.body.next_page_token });
      expect(r.status, JSON.stringify(query)).toBe(400);
      expect(r.body.error.details.field).toBe("page_token");
      expect(r.body.error.message).toMatch(/other filters/);
    }

    for (let v = 1; v <= 3; v++)
      await q(
        `insert into bots.bot_versions (bot_id, version, spec_hash, spec, created_by) values ($1, $2, 'h', '{}', 'test')`,
        [otherBot.id, v],
      );
    const versions = await page(`/bots/${otherBot.slug}/versions`, { limit: "1" });
    const elsewhere = await page(`/bots/${bot.slug}/versions`, {
      page_token: versions.body.next_page_token,
    });
    expect(elsewhere.status).toBe(400);
    expect(elsewhere.body.error.details.field).toBe("page_token");
  });

  it("limit 0 means 100, 1000 is the most, 1001 is 400; the old after and after_seq still page", async () => {
    const values = Array.from(
      { length: 120 },
      (_, i) =>
        `('${randomUUID()}', 'many-${i}', 'many-${i}', 'trading', 'draft', 1, 'h', '{}', 'test')`,
    );
    await q(
      `insert into bots.bots (id, slug, name, kind, status, current_version, spec_hash, spec, created_by) values ${values.join(",")}`,
    );
    const dflt = await page("/bots", {});
    expect(dflt.body.items).toHaveLength(100);
    expect(dflt.body.next_page_token).not.toBe("");
    const all = await page("/bots", { limit: "1000" });
    expect(all.status).toBe(200);
    expect(all.body.next_page_token).toBe("");
    const tooMany = await page("/bots", { limit: "1001" });
    expect(tooMany.status).toBe(400);
    expect(JSON.stringify(tooMany.body.error)).toMatch(/limit/);

    const ids = all.body.items.map((b: Item) => b.id);
    const after = await page("/bots", { after: ids[9], limit: "5" });
    expect(after.body.items.map((b: Item) => b.id)).toEqual(ids.slice(10, 15));

    for (let s = 1; s <= 5; s++)
      await q(
        `insert into bots.bot_events (bot_id, seq, task_id, type, data) values ($1, $2, 't', 'bar_received', '{"close": 1}')`,
        [otherBot.id, s],
      );
    const bySeqCursor = await page(`/bots/${otherBot.slug}/state/events`, {
      after_seq: "2",
      limit: "2",
    });
    expect(bySeqCursor.body.items.map((e: Item) => e.seq)).toEqual(["3", "4"]);
    expect(bySeqCursor.body.next_cursor).toBe("4");
    const next = await page(`/bots/${otherBot.slug}/state/events`, {
      page_token: bySeqCursor.body.next_page_token,
    });
    expect(next.body.items.map((e: Item) => e.seq)).toEqual(["5"]);
  });

  it("kill switches: the recorded ones by time, then the keys set by hand by name, each once", async () => {
    const recorded = ["ks-a", "ks-b"];
    for (const [i, name] of recorded.entries())
      await q(
        `insert into killswitch.kill_switches (name, scope, target, mode, reason, ttl, engaged_by, engaged_at)
         values ($1, 'bot', $1, 'cancel', 'paging test', '', 'test', $2)`,
        [name, byTime(i, false)],
      );
    const byHand = ["hand-c", "hand-a", "hand-b"];
    for (const target of byHand) await p.platform.kv.set(killSwitchKey("bot", target), "by hand");
    const { items } = await walk("/kill-switches", {});
    expect(items.map((i) => (i.metadata as Item).name)).toEqual([
      ...recorded,
      "kv-bot-hand-a",
      "kv-bot-hand-b",
      "kv-bot-hand-c",
    ]);
    for (const target of byHand) await p.platform.kv.delete(killSwitchKey("bot", target));
    await q(`delete from killswitch.kill_switches where name = any($1)`, [recorded]);
  });

  it("include_runtime gives each listed bot the runtime GET /bots/{ref} gives, kill switches set by hand included", async () => {
    const slugsOf = ["rt-running", "rt-draining", "rt-idle"];
    const made = [];
    for (const [i, slug] of slugsOf.entries()) {
      const b = { id: randomUUID(), slug };
      await insertBot(b, byTime(500 + i, true), { fleet: "rt-fleet" });
      made.push(b);
    }
    const event = (botId: string, seq: number, type: string, data: object) =>
      q(
        `insert into bots.bot_events (bot_id, seq, task_id, type, data) values ($1, $2, 't', $3, $4)`,
        [botId, seq, type, JSON.stringify(data)],
      );
    await event(made[0]!.id, 1, "session_started", { symbol: "X", initial_cash: 1 });
    await event(made[0]!.id, 2, "bar_received", { close: 1 });
    await event(made[1]!.id, 1, "session_started", { symbol: "X", initial_cash: 1 });
    await event(made[1]!.id, 2, "phase_changed", { phase: "Draining" });
    await event(made[1]!.id, 3, "bar_received", { close: 1 });
    await p.platform.kv.set(killSwitchKey("bot", "rt-draining"), "set by hand");

    const listed = await walk("/bots", { fleet: "rt-fleet", include_runtime: "true" });
    expect(listed.items.map((b) => b.slug)).toEqual(slugsOf);
    for (const b of listed.items) {
      const one = await call(p.url, "GET", `/bots/${b.slug}`);
      expect(b.runtime, String(b.slug)).toEqual(one.body.runtime);
    }
    expect(listed.items.map((b) => (b.runtime as Item).phase)).toEqual(["Running", "Draining", ""]);
    expect((listed.items[1]!.runtime as Item).kill_switch_engaged).toBe(true);
    await p.platform.kv.delete(killSwitchKey("bot", "rt-draining"));
  });
});

// The default topology (npm start) keeps every schema in embedded PGlite: the same keyset SQL runs
// there too.
describe("keyset pagination on PGlite", () => {
  let p: RunningPlatform;
  beforeAll(async () => {
    p = await startTestPlatform("pglite");
  }, PLATFORM_START_TIMEOUT_MS);
  afterAll(async () => {
    await p?.close();
  });

  it("walks bots with their runtime, versions and promotion requests a page at a time", async () => {
    const ids: string[] = [];
    for (let i = 0; i < 7; i++) {
      const made = await call(p.url, "POST", "/bots", {
        name: `Lite ${i}`,
        kind: "research",
        fleet: i % 2 ? "odd" : "even",
      });
      expect(made.status, made.text).toBe(201);
      ids.push(made.body.id);
    }
    // The first bot drains: its phase comes from its events, as GET /bots/{ref} reads them.
    await sql`insert into bots.bot_events (bot_id, seq, task_id, type, data) values
      (${ids[0]}, 1, 't', 'session_started', '{"symbol": "X", "initial_cash": 1}'),
      (${ids[0]}, 2, 't', 'phase_changed', '{"phase": "Draining"}')`.execute(p.platform.db.db);
    const seen: Item[] = [];
    let token = "";
    do {
      const q = new URLSearchParams({ limit: "3", include_runtime: "true", page_token: token });
      const r = await call(p.url, "GET", `/bots?${q}`);
      expect(r.status, r.text).toBe(200);
      seen.push(...r.body.items);
      token = r.body.next_page_token;
    } while (token);
    expect(seen.map((b) => b.id)).toEqual(ids);
    for (const b of seen)
      expect(b.runtime).toEqual((await call(p.url, "GET", `/bots/${b.id}`)).body.runtime);
    expect(seen.map((b) => (b.runtime as Item).phase)).toEqual([
      "Draining",
      "",
      "",
      "",
      "",
      "",
      "",
    ]);
    const odd = await call(p.url, "GET", "/bots?fleet=odd");
    expect(odd.body.items.map((b: Item) => b.id)).toEqual([ids[1], ids[3], ids[5]]);
    for (const path of [`/bots/${ids[0]}/versions`, "/promotion/requests", "/kill-switch/drills"]) {
      const r = await call(p.url, "GET", `${path}?limit=1`);
      expect(r.status, `${path}: ${r.text}`).toBe(200);
      expect(r.body.next_page_token).toBe("");
    }
  });
});
