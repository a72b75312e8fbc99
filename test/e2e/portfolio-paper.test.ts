import { sql } from "kysely";
import pg from "pg";
import { describe, expect, it } from "vitest";
import type { RunningPlatform } from "@svc/all-in-one";
import { ephemeralStatementKeyPem } from "@svc/lib/signed-statement";
import { approvedSession, as } from "../support/paper.js";
import {
  call,
  createTestDatabase,
  PLATFORM_START_TIMEOUT_MS,
  startTestPlatform,
} from "../support/test-platform.js";
import { eventually } from "../support/until.js";

const UNIVERSE = ["AAPL", "GOOG", "MSFT"];
const DAYS = 1000;

/** Daily bars of three symbols in one file with a symbol column; GOOG lacks days 100 to 104. */
function trio(): string {
  const lines = ["symbol,timestamp,open,high,low,close,volume"];
  for (let d = 0; d < DAYS; d++)
    UNIVERSE.forEach((symbol, k) => {
      if (symbol === "GOOG" && d >= 100 && d < 105) return;
      const price = (i: number) => 100 * (k + 1) * (1 + Math.sin(i / (4 + k)) / 10);
      const o = price(d);
      const c = price(d + 1);
      const t = new Date(Date.UTC(2023, 0, 1) + d * 86_400_000).toISOString().slice(0, 10);
      lines.push([symbol, t, o, Math.max(o, c) + 1, Math.min(o, c) - 1, c, 1e6].join(","));
    });
  return lines.join("\n");
}

interface Event {
  seq: number;
  type: string;
  data: Record<string, unknown>;
}

async function eventsOf(p: RunningPlatform, taskId: string): Promise<Event[]> {
  return (
    await sql<Event>`select seq::int as seq, type, data from bots.bot_events
      where task_id = ${taskId} order by seq`.execute(p.platform.db.db)
  ).rows;
}

/** The last event of the task, read while no platform runs. */
async function lastSeq(url: string, taskId: string): Promise<number> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    const r = await c.query<{ seq: number }>(
      "select max(seq)::int as seq from bots.bot_events where task_id = $1",
      [taskId],
    );
    return r.rows[0]!.seq;
  } finally {
    await c.end();
  }
}

/**
 * Every symbol's position as its fills move it, event by event: a runner that resumed a symbol
 * from anything but its position before would report a position its fills do not explain.
 */
function positionsFollowFills(events: Event[]): Record<string, number> {
  const held: Record<string, number> = {};
  let last: { symbol: string; signed: number } | undefined;
  for (const e of events) {
    if (e.type === "order_filled") {
      const units = e.data.units as number;
      last = { symbol: e.data.symbol as string, signed: e.data.side === "buy" ? units : -units };
    }
    if (e.type === "position_changed") {
      const symbol = e.data.symbol as string;
      expect(last?.symbol, `seq ${e.seq}`).toBe(symbol);
      const want = (held[symbol] ?? 0) + last!.signed;
      expect(e.data.units as number, `${symbol} at seq ${e.seq}`).toBeCloseTo(want, 9);
      held[symbol] = e.data.units as number;
    }
  }
  return held;
}

describe("a paper session of a universe (Postgres)", () => {
  it(
    "trades every symbol from one cash balance, resumes every position after a restart, and a kill switch flattens them all",
    async () => {
      const db = await createTestDatabase();
      const keys = ephemeralStatementKeyPem();
      const env = {
        SVC_DATABASE_URL: db.url,
        SVC_PROMOTION_SIGNING_KEY_PEM: keys.privateKeyPem,
        SVC_PROMOTION_PUBLIC_KEY_PEM: keys.publicKeyPem,
      };
      let p = await startTestPlatform("postgres", env);
      try {
        const up = await call(p.url, "POST", "/datasets", {
          name: "trio-1d",
          timeframe: "1d",
          csv: trio(),
        });
        expect(up.status, JSON.stringify(up.body)).toBe(201);
        const spec = {
          universe: { symbols: UNIVERSE, timeframe: "1d" },
          engine: { initial_cash: 90000, fee_bps: 5, slippage_bps: 2, position_size: 1 },
        };
        // A universe its data does not cover is refused before anything starts.
        const wide = await call(
          p.url,
          "POST",
          "/bots",
          {
            name: "wide",
            slug: "wide",
            kind: "trading",
            strategy: { family: "ma_crossover", parameters: { fast: 3, slow: 8 } },
            universe: { symbols: [...UNIVERSE, "AMZN"], timeframe: "1d" },
          },
          as("alice"),
        );
        expect(wide.status).toBe(201);
        const refused = await call(p.url, "POST", "/bots/wide/paper/start", {
          approved_promotion: "not-yet",
          data_source: "csv:trio-1d",
        });
        expect(refused.status).toBe(400);
        expect(refused.body.error.code).toBe("universe_not_covered");
        expect(refused.body.error.message).toContain("no bars of AMZN");

        const taskId = await approvedSession(p, "trio", "trio-fleet", 40, spec, {
          data_source: "csv:trio-1d",
        });
        // Trading: every symbol's bars recorded, orders of more than one symbol filled.
        const early = await eventually(
          "the session fills orders of every symbol and holds a position",
          () => eventsOf(p, taskId),
          (es) =>
            UNIVERSE.every((s) =>
              es.some((e) => e.type === "order_filled" && e.data.symbol === s),
            ) && Object.values(positionsFollowFills(es)).some((u) => u !== 0),
          60_000,
        );
        const started = early.find((e) => e.type === "session_started")!;
        expect(started.data).toMatchObject({ symbols: UNIVERSE, data_source: "csv:trio-1d" });
        const snap = (await call(p.url, "GET", "/bots/trio/state/snapshot")).body;
        expect(Object.keys(snap.positions).every((s) => UNIVERSE.includes(s))).toBe(true);

        // A restart of the service: the session resumes where it stopped, every symbol's
        // position and order count carried over.
        await p.close();
        const cut = await lastSeq(db.url, taskId);
        p = await startTestPlatform("postgres", env);
        const atCut = (await eventsOf(p, taskId)).filter((e) => e.seq <= cut);
        const held = Object.entries(positionsFollowFills(atCut)).filter(([, u]) => u !== 0);
        expect(held.length).toBeGreaterThan(0);
        const resumed = await eventually(
          "the resumed session trades every symbol it held at the restart",
          () => eventsOf(p, taskId),
          (es) =>
            held.every(([symbol]) =>
              es.some((e) => e.seq > cut && e.type === "order_filled" && e.data.symbol === symbol),
            ),
          60_000,
        );
        // Each of those trades moves the position it held before the restart, not a fresh one.
        positionsFollowFills(resumed);
        // No clock step lost or repeated: each symbol's bars follow on, GOOG's gap not filled in.
        for (const symbol of UNIVERSE) {
          const idx = resumed
            .filter((e) => e.type === "bar_received" && e.data.symbol === symbol)
            .map((e) => e.data.index as number);
          expect(idx, symbol).toEqual([...idx].sort((a, b) => a - b));
          expect(new Set(idx).size, symbol).toBe(idx.length);
          expect(idx[0], symbol).toBe(0);
          const gap = symbol === "GOOG" ? [100, 101, 102, 103, 104] : [];
          const want = Array.from({ length: idx.at(-1)! + 1 }, (_, i) => i).filter(
            (i) => !gap.includes(i),
          );
          expect(idx, symbol).toEqual(want);
        }
        // Order ids are per symbol and never reused across the restart.
        const ids = resumed.filter((e) => e.type === "order_placed").map((e) => e.data.order_id);
        expect(new Set(ids).size).toBe(ids.length);
        expect(ids.filter((id) => !/^.+-(AAPL|GOOG|MSFT):o\d+$/.test(String(id)))).toEqual([]);

        // Wait for a moment where two symbols are held, then a kill switch (flatten) on the bot.
        await eventually(
          "two symbols are held at once",
          async () => (await call(p.url, "GET", "/bots/trio/state/snapshot")).body.positions,
          (positions) => Object.keys(positions).length >= 2,
          60_000,
        );
        const engaged = await call(p.url, "PUT", "/kill-switches/trio-drill", {
          scope: "bot",
          target: "trio",
          mode: "flatten",
          reason: "drill",
        });
        expect(engaged.status, JSON.stringify(engaged.body)).toBe(200);
        await eventually(
          "the session parks",
          async () => (await call(p.url, "GET", "/bots/trio/deployments")).body.items[0],
          (d) => d?.parked === true,
        );
        const after = await eventsOf(p, taskId);
        const halted = after.findIndex((e) => e.type === "halted");
        const draining = after.findLastIndex(
          (e) => e.type === "phase_changed" && e.data.phase === "Draining",
        );
        // Every symbol flat, every working order of every symbol gone, nothing traded after.
        const end = (await call(p.url, "GET", "/bots/trio/state/snapshot")).body;
        expect(end.positions).toEqual({});
        expect(end.metrics.open_orders).toBe(0);
        const flattening = after.slice(draining, halted).filter((e) => e.type === "order_filled");
        expect(new Set(flattening.map((e) => e.data.symbol)).size).toBeGreaterThanOrEqual(2);
        expect(after.slice(halted).some((e) => e.type === "order_filled")).toBe(false);
        for (const units of Object.values(positionsFollowFills(after))) expect(units).toBe(0);
        expect((await call(p.url, "DELETE", "/kill-switches/trio-drill")).status).toBe(200);
        await eventually(
          "the session runs again on release",
          async () => (await call(p.url, "GET", "/bots/trio/deployments")).body.items[0],
          (d) => d?.status === "running",
        );
        expect((await call(p.url, "POST", `/bots/trio/paper/stop/${taskId}`)).body.status).toBe(
          "success",
        );
      } finally {
        await p.close();
        await db.drop();
      }
    },
    PLATFORM_START_TIMEOUT_MS * 2 + 120_000,
  );
});
