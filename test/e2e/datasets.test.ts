import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningPlatform } from "@svc/all-in-one";
import { call, startTestPlatform } from "../support/test-platform.js";
import { eventually } from "../support/until.js";

const SAMPLE = readFileSync(
  new URL("../../services/bots/data/sample-btc-usd-1d.csv", import.meta.url),
  "utf8",
);
const LIMIT = 100_000;

const bot = (slug: string, timeframe = "1d", symbols = ["SOL-USD"]) => ({
  name: slug,
  slug,
  kind: "trading",
  universe: { symbols, timeframe },
  strategy: { family: "ma_crossover", parameters: { fast: 5, slow: 20 } },
  engine: { initial_cash: 100000, fee_bps: 5, slippage_bps: 2, position_size: 1 },
});

describe("data sets: upload, list, and backtests over them", () => {
  let p: RunningPlatform;
  beforeAll(async () => {
    p = await startTestPlatform("postgres", { SVC_DATASET_MAX_BYTES: String(LIMIT) });
  }, 60_000);
  afterAll(async () => {
    await p?.close();
  });

  const backtest = async (slug: string, body: Record<string, unknown>) => {
    const res = await call(p.url, "POST", `/bots/${slug}/backtest`, body);
    expect(res.status, JSON.stringify(res.body)).toBe(202);
    return eventually(
      `backtest ${res.body.id} ends`,
      async () =>
        (await call(p.url, "GET", `/bots/${slug}/deployments`)).body.items.find(
          (d: { id: string }) => d.id === res.body.id,
        ),
      (d) => d?.status === "success" || d?.status === "failed",
    );
  };
  const trades = async (slug: string, id: string) =>
    (await call(p.url, "GET", `/bots/${slug}/deployments/${id}/trades?page_size=1000`)).body;

  it("lists the bundled data set with its symbol, timeframe and range", async () => {
    const res = await call(p.url, "GET", "/datasets");
    expect(res.status).toBe(200);
    expect(res.body.items[0]).toMatchObject({
      name: "sample-btc-usd-1d",
      data_source: "csv:sample-btc-usd-1d",
      symbol: "BTC-USD",
      timeframe: "1d",
      first_bar_time: "2022-01-01T00:00:00Z",
      bar_count: "1000",
      bundled: true,
    });
  });

  it("keeps an uploaded CSV; a backtest over it is the backtest over the same bundled bars", async () => {
    const up = await call(p.url, "POST", "/datasets", {
      name: "btc-copy",
      symbol: "XBT-EUR",
      timeframe: "1d",
      csv: SAMPLE,
    });
    expect(up.status, JSON.stringify(up.body)).toBe(201);
    expect(up.body).toMatchObject({
      name: "btc-copy",
      data_source: "csv:btc-copy",
      symbol: "XBT-EUR",
      bar_count: "1000",
      bundled: false,
      size_bytes: String(Buffer.byteLength(SAMPLE)),
      created_by: "local|default",
    });
    const listed = (await call(p.url, "GET", "/datasets")).body.items;
    expect(listed.map((d: { name: string }) => d.name)).toEqual(["sample-btc-usd-1d", "btc-copy"]);
    expect(listed[1].last_bar_time).toBe(listed[0].last_bar_time);

    await call(p.url, "POST", "/bots", bot("same"));
    const bundled = await backtest("same", { data_source: "csv:sample-btc-usd-1d" });
    const uploaded = await backtest("same", { data_source: "csv:btc-copy" });
    expect(uploaded.status).toBe("success");
    const { data_source: a, ...fromBundled } = bundled.result_summary;
    const { data_source: b, ...fromUpload } = uploaded.result_summary;
    expect([a, b]).toEqual(["csv:sample-btc-usd-1d", "csv:btc-copy"]);
    expect(fromUpload).toEqual(fromBundled);
    const t1 = await trades("same", bundled.id);
    const t2 = await trades("same", uploaded.id);
    // The trades name the data set's symbol, not the bot's.
    expect(t1.items[0].symbol).toBe("BTC-USD");
    expect(t2.items[0].symbol).toBe("XBT-EUR");
    const strip = (items: Array<Record<string, unknown>>) =>
      items.map(({ symbol: _symbol, ...t }) => t);
    expect(strip(t2.items)).toEqual(strip(t1.items));
    // A date range cuts an uploaded data set as it cuts the bundled one.
    const ranged = await backtest("same", {
      data_source: "csv:btc-copy",
      start: "2022-03-01T00:00:00Z",
      end: "2022-09-01T00:00:00Z",
    });
    expect(ranged.result_summary.bars).toBe(184);
  });

  it("refuses a CSV with a bad line, naming it", async () => {
    const lines = SAMPLE.split("\n");
    lines[6] = "2022-01-06,30000,29000,29500,29800,10"; // line 7: high under open
    const res = await call(p.url, "POST", "/datasets", {
      name: "bad-line",
      symbol: "BTC-USD",
      timeframe: "1d",
      csv: lines.slice(0, 50).join("\n"),
    });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({
      code: "malformed_csv",
      details: { field: "csv", line: 7 },
    });
    expect(res.body.error.message).toMatch(/^line 7: high 29000/);
    const header = await call(p.url, "POST", "/datasets", {
      name: "bad-header",
      symbol: "BTC-USD",
      timeframe: "1d",
      csv: "time,o,h,l,c,v\n",
    });
    expect(header.status).toBe(400);
    expect(header.body.error.details.line).toBe(1);
    // Nothing of a refused upload is kept.
    const names = (await call(p.url, "GET", "/datasets")).body.items.map(
      (d: { name: string }) => d.name,
    );
    expect(names).not.toContain("bad-line");
  });

  it("refuses bad names, taken names and fields out of their rules", async () => {
    const body = { name: "ok-name", symbol: "BTC-USD", timeframe: "1d", csv: SAMPLE };
    for (const [over, field] of [
      [{ name: "a\u0000b" }, "name"],
      [{ name: "Upper" }, "name"],
      [{ name: "x".repeat(65) }, "name"],
      [{ timeframe: "1w" }, "timeframe"],
      [{ timeframe: "-1d" }, "timeframe"],
      [{ symbol: "" }, "symbol"],
      [{ csv: "" }, "csv"],
    ] as const) {
      const res = await call(p.url, "POST", "/datasets", { ...body, ...over });
      expect(res.status, JSON.stringify(over)).toBe(400);
      expect(res.body.error.details.field, JSON.stringify(over)).toBe(field);
    }
    for (const name of ["btc-copy", "sample-btc-usd-1d"]) {
      const res = await call(p.url, "POST", "/datasets", { ...body, name });
      expect(res.status, name).toBe(409);
      expect(res.body.error).toMatchObject({ code: "dataset_exists", details: { field: "name" } });
    }
  });

  it("refuses a CSV over SVC_DATASET_MAX_BYTES, and a body over the gateway's limit, with 413", async () => {
    const big = SAMPLE + SAMPLE.split("\n").slice(1).join("\n").repeat(1).replace(/2022/g, "2025");
    expect(Buffer.byteLength(big)).toBeGreaterThan(LIMIT);
    const res = await call(p.url, "POST", "/datasets", {
      name: "too-big",
      symbol: "BTC-USD",
      timeframe: "1d",
      csv: big,
    });
    expect(res.status).toBe(413);
    expect(res.body.error).toMatchObject({
      code: "dataset_too_large",
      details: { limit_bytes: LIMIT, field: "csv" },
    });
    const huge = await call(p.url, "POST", "/datasets", {
      name: "huge",
      symbol: "BTC-USD",
      timeframe: "1d",
      csv: "x".repeat(2 * 1024 * 1024),
    });
    expect(huge.status).toBe(413);
  });

  it("takes the CSV raw as text/csv, its other fields in the query", async () => {
    const csv = { "content-type": "text/csv" };
    const up = await call(
      p.url,
      "POST",
      "/datasets?name=raw-btc&symbol=BTC-USD&timeframe=1d",
      SAMPLE,
      csv,
    );
    expect(up.status, JSON.stringify(up.body)).toBe(201);
    expect(up.body).toMatchObject({ name: "raw-btc", bar_count: "1000", symbol: "BTC-USD" });
    const bad = await call(
      p.url,
      "POST",
      "/datasets?name=raw-bad&symbol=BTC-USD&timeframe=1d",
      SAMPLE.split("\n").slice(0, 6).join("\n") + "\n2022-01-06,1,2,3\n",
      csv,
    );
    expect(bad.status).toBe(400);
    expect(bad.body.error.details).toMatchObject({ field: "csv", line: 7 });
    const noName = await call(p.url, "POST", "/datasets?symbol=BTC-USD&timeframe=1d", SAMPLE, csv);
    expect(noName.status).toBe(400);
    expect(noName.body.error.details.field).toBe("name");
    // Over SVC_DATASET_MAX_BYTES the gateway stops it before reading it whole.
    const big = await call(
      p.url,
      "POST",
      "/datasets?name=raw-big&symbol=BTC-USD&timeframe=1d",
      SAMPLE.repeat(3),
      csv,
    );
    expect(big.status).toBe(413);
    expect(big.body.error.details.limit_bytes).toBe(LIMIT);
    // A route without a csv field takes no CSV.
    const elsewhere = await call(p.url, "POST", "/bots", SAMPLE, csv);
    expect(elsewhere.status).toBe(415);
    expect(elsewhere.body.error.message).toMatch(/takes no text\/csv body/);
  });

  it("refuses an unknown data set and one whose timeframe is not the bot's, naming both", async () => {
    await call(p.url, "POST", "/bots", bot("hourly", "1h"));
    const unknown = await call(p.url, "POST", "/bots/hourly/backtest", {
      data_source: "csv:nope",
    });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error.details.field).toBe("data_source");
    expect(unknown.body.error.message).toMatch(/no dataset named nope.*GET \/datasets/);
    const mismatch = await call(p.url, "POST", "/bots/hourly/backtest", {
      data_source: "csv:btc-copy",
    });
    expect(mismatch.status).toBe(400);
    expect(mismatch.body.error).toMatchObject({
      code: "timeframe_mismatch",
      details: { field: "data_source" },
    });
    expect(mismatch.body.error.message).toMatch(/1d bars.*timeframe is 1h/);
  });

  it("gives a one-minute synthetic bot one-minute bars, bounded as before", async () => {
    await call(p.url, "POST", "/bots", bot("minutes", "1m", ["ETH-USD"]));
    const done = await backtest("minutes", { data_source: "synthetic:5" });
    expect(done.status).toBe("success");
    expect(done.result_summary.bars).toBe(730);
    const r = (await call(p.url, "GET", `/bots/minutes/deployments/${done.id}/results`)).body;
    const times = r.equity.map((x: { time: string }) => Date.parse(x.time));
    expect(times[1] - times[0]).toBe(60_000);
    expect(times.at(-1) - times[0]).toBe(729 * 60_000);
    const t = await trades("minutes", done.id);
    expect(t.items[0].symbol).toBe("ETH-USD");
    // Unnamed, the data of a minute bot is synthetic at its own timeframe, not the daily file.
    const unnamed = await backtest("minutes", {});
    expect(unnamed.result_summary).toMatchObject({ data_source: "synthetic:1", bars: 730 });
    const tooLong = await call(p.url, "POST", "/bots/minutes/backtest", {
      data_source: "synthetic:5",
      start: "2022-01-01T00:00:00Z",
      end: "2022-12-31T00:00:00Z",
    });
    expect(tooLong.status).toBe(400);
    expect(tooLong.body.error.details.field).toBe("end");
    expect(tooLong.body.error.message).toMatch(/at most 100,000 bars.*\(1m\)/);
  });
});
