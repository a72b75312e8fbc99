import { readFileSync } from "node:fs";
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningPlatform } from "@svc/all-in-one";
import { as } from "../support/paper.js";
import { call, startTestPlatform } from "../support/test-platform.js";
import { eventually } from "../support/until.js";

const SAMPLE = readFileSync(
  new URL("../../services/bots/data/sample-btc-usd-1d.csv", import.meta.url),
  "utf8",
);

/** A bot through promotion (alice submits, bob approves): its ApprovedPromotion token. */
async function approve(p: RunningPlatform, slug: string, timeframe: string): Promise<string> {
  const bot = (
    await call(
      p.url,
      "POST",
      "/bots",
      {
        name: slug,
        slug,
        kind: "trading",
        universe: { symbols: ["SOL-USD"], timeframe },
        strategy: { family: "ma_crossover", parameters: { fast: 3, slow: 8 } },
      },
      as("alice"),
    )
  ).body;
  await eventually(
    `the promotion service learns of bot ${slug}`,
    async () =>
      (
        await sql<{
          n: number;
        }>`select count(*)::int as n from promotion.known_bot_versions where slug = ${slug}`.execute(
          p.platform.db.db,
        )
      ).rows[0]!.n,
    (n) => n > 0,
  );
  await call(
    p.url,
    "POST",
    "/promotion/requests",
    {
      request_id: `pd-${slug}`,
      kind: "strategy",
      artifact: { bot_ref: slug, version: 1, version_hash: bot.spec_hash },
      validation: { verdict: "PASS" },
      risk: { decision: "APPROVE" },
    },
    as("alice"),
  );
  const token = (await call(p.url, "POST", `/promotion/requests/pd-${slug}/approve`, {}, as("bob")))
    .body.approved_promotion;
  await eventually(
    `promotion request pd-${slug} is promoted`,
    () => call(p.url, "GET", `/promotion/requests/pd-${slug}`),
    (r) => r.body.status === "promoted",
  );
  return token;
}

describe("a paper session over an uploaded data set", () => {
  let p: RunningPlatform;
  beforeAll(async () => {
    p = await startTestPlatform("pglite");
    const up = await call(
      p.url,
      "POST",
      "/datasets?name=xbt-day&symbol=XBT-EUR&timeframe=1d",
      SAMPLE,
      {
        "content-type": "text/csv",
      },
    );
    expect(up.status).toBe(201);
  }, 60_000);
  afterAll(async () => {
    await p?.close();
  });

  it("trades the uploaded bars and names the data set's symbol in its records", async () => {
    const token = await approve(p, "daily-paper", "1d");
    const started = await call(p.url, "POST", "/bots/daily-paper/paper/start", {
      approved_promotion: token,
      data_source: "csv:xbt-day",
      speed: 5000,
    });
    expect(started.status, JSON.stringify(started.body)).toBe(202);
    const fills = await eventually(
      "the session fills orders",
      async () =>
        (await call(p.url, "GET", "/bots/daily-paper/state/events?type=order_filled&limit=5")).body
          .items,
      (items) => items.length > 0,
      30_000,
    );
    expect(fills[0].data.symbol).toBe("XBT-EUR");
    const [first] = (
      await call(p.url, "GET", "/bots/daily-paper/state/events?type=session_started")
    ).body.items;
    expect(first.data).toMatchObject({ data_source: "csv:xbt-day", symbol: "XBT-EUR" });
  });

  it("refuses a data set whose timeframe is not the bot's, naming both", async () => {
    const token = await approve(p, "hourly-paper", "1h");
    const res = await call(p.url, "POST", "/bots/hourly-paper/paper/start", {
      approved_promotion: token,
      data_source: "csv:xbt-day",
    });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({
      code: "timeframe_mismatch",
      details: { field: "data_source" },
    });
    expect(res.body.error.message).toMatch(/1d bars.*timeframe is 1h/);
  });
});
