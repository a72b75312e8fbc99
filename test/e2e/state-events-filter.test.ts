import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningPlatform } from "@svc/all-in-one";
import { approvedSession } from "../support/paper.js";
import { call, startTestPlatform } from "../support/test-platform.js";
import { eventually } from "../support/until.js";

type Event = { seq: string; type: string; data: Record<string, unknown> };

describe("GET /bots/{bot_ref}/state/events?type=", () => {
  let p: RunningPlatform;
  beforeAll(async () => {
    p = await startTestPlatform("postgres");
    await approvedSession(p, "filtered", "f1", 5000, {
      universe: { symbols: ["ETH-USD"], timeframe: "1d" },
    });
    await eventually(
      "the session trades to the end of the data",
      async () => (await call(p.url, "GET", "/bots/filtered/deployments")).body.items[0],
      (d) => d?.status === "success",
      60_000,
    );
  }, 120_000);
  afterAll(async () => {
    await p?.close();
  });

  const events = async (q: string): Promise<Event[]> => {
    const res = await call(p.url, "GET", `/bots/filtered/state/events?limit=1000&${q}`);
    expect(res.status, q).toBe(200);
    return res.body.items;
  };

  it("lists only the types asked for, repeated or comma-separated, in order", async () => {
    const fills = await events("type=order_filled");
    expect(fills.length).toBeGreaterThan(0);
    expect(new Set(fills.map((e) => e.type))).toEqual(new Set(["order_filled"]));
    // Records name the data set's symbol (the bundled BTC-USD), not a placeholder.
    expect(new Set(fills.map((e) => e.data.symbol))).toEqual(new Set(["BTC-USD"]));
    const both = await events("type=order_filled&type=position_changed");
    const comma = await events("type=order_filled,position_changed");
    expect(comma).toEqual(both);
    expect(new Set(both.map((e) => e.type))).toEqual(new Set(["order_filled", "position_changed"]));
    const seqs = both.map((e) => Number(e.seq));
    expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
    expect(both.length).toBe(fills.length * 2);
  });

  it("pages a filtered list with next_cursor", async () => {
    const all = await events("type=order_filled");
    const first = await call(p.url, "GET", "/bots/filtered/state/events?type=order_filled&limit=1");
    expect(first.body.items).toHaveLength(1);
    const next = await call(
      p.url,
      "GET",
      `/bots/filtered/state/events?type=order_filled&limit=1&after_seq=${first.body.next_cursor}`,
    );
    expect(next.body.items[0]).toEqual(all[1]);
  });

  it("refuses an unknown type, listing the known ones", async () => {
    // A NUL byte is refused before the service reads the type, naming the value's place.
    const nul = await call(p.url, "GET", "/bots/filtered/state/events?type=a%00b");
    expect(nul.status).toBe(400);
    expect(nul.body.error.details.field).toMatch(/^type/);
    for (const q of ["type=order_fill", "type=order_filled,nope"]) {
      const res = await call(p.url, "GET", `/bots/filtered/state/events?${q}`);
      expect(res.status, q).toBe(400);
      expect(res.body.error.details.field).toBe("type");
      expect(res.body.error.message).toMatch(/known: .*order_filled/);
    }
  });
});
