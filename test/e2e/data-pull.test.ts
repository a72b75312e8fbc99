import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningPlatform } from "@svc/all-in-one";
import { seededWalk, startDevVenue, type DevVenue } from "@svc/dev-venue";
import { svcIn } from "../../cli/src/testing.js";
import { call, PLATFORM_START_TIMEOUT_MS, startTestPlatform } from "../support/test-platform.js";

const T0 = Date.UTC(2024, 0, 1);
const MINUTE = 60_000;
const CLOSES = seededWalk(11, 30_000, 2_500);

/** The bars the venue's history serves (klines.ts), as a CSV the catalog imports. */
function historyCsv(): string {
  const lines = CLOSES.map((close, i) => {
    const open = i === 0 ? close : CLOSES[i - 1]!;
    const high = Math.max(open, close) * 1.001;
    const low = Math.min(open, close) * 0.999;
    return `${T0 + i * MINUTE},${open},${high},${low},${close},1`;
  });
  return `timestamp,open,high,low,close,volume\n${lines.join("\n")}\n`;
}

// `svc data pull` and POST /datasets/{name}/pull: real ccxt (its binance class) against the dev
// venue's Binance facade, into the catalog on real Postgres.
describe("pulling OHLCV from a venue through ccxt", () => {
  let venue: DevVenue;
  let p: RunningPlatform;
  let klineCalls = 0;
  let failAfter = Infinity;
  beforeAll(async () => {
    venue = await startDevVenue({
      username: "puller",
      password: "pw",
      symbols: ["BTC-USD"],
      binance: {
        apiKey: "k",
        apiSecret: "s",
        history: [{ symbol: "BTC-USD", startMs: T0, intervalMs: MINUTE, closes: CLOSES }],
        onKlines: () => {
          if (++klineCalls > failAfter) throw new Error("the venue fell over");
        },
      },
    });
    p = await startTestPlatform("postgres", {
      SVC_DATA_PULL_EXCHANGES: `kraken,binance=${venue.binanceUrl}`,
    });
  }, PLATFORM_START_TIMEOUT_MS);
  afterAll(async () => {
    await p?.close();
    await venue?.close();
  });

  const pull = (name: string, extra: Record<string, unknown> = {}) =>
    call(p.url, "POST", `/datasets/${name}/pull`, {
      exchange: "binance",
      market: "BTC/USD",
      timeframe: "1m",
      since: new Date(T0).toISOString(),
      until: new Date(T0 + CLOSES.length * MINUTE).toISOString(),
      ...extra,
    });

  it("pulls page by page; cut short, it continues after the last bar written, none twice", async () => {
    const first = await pull("btc-pull", { max_pages: 2 });
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    expect(first.body).toMatchObject({ pages: 2, complete: false });
    const afterTwo = Number(first.body.bars_written);
    expect(afterTwo).toBeGreaterThan(0);
    expect(first.body.dataset).toMatchObject({
      symbol: "BTC/USD",
      origin: "pull:binance:BTC/USD",
      bar_count: String(afterTwo),
      first_bar_time: "2024-01-01T00:00:00Z",
    });

    // The venue fails on the next page but one: what came before it stays written.
    failAfter = klineCalls + 1;
    const broken = await pull("btc-pull");
    expect(broken.status).toBe(503);
    expect(broken.body.error).toMatchObject({ code: "exchange_unavailable" });
    const afterBreak = Number(broken.body.error.details.bars_written);
    expect(afterBreak).toBeGreaterThan(0);
    failAfter = Infinity;

    // Two pulls at once, from the same last bar: each page is written once.
    const [a, b] = await Promise.all([pull("btc-pull"), pull("btc-pull")]);
    expect([a.status, b.status]).toEqual([200, 200]);
    const done = (await call(p.url, "GET", "/datasets/btc-pull")).body;
    expect(afterTwo + afterBreak + Number(a.body.bars_written) + Number(b.body.bars_written)).toBe(
      CLOSES.length,
    );
    expect(done).toMatchObject({
      bar_count: String(CLOSES.length),
      first_bar_time: "2024-01-01T00:00:00Z",
      last_bar_time: new Date(T0 + (CLOSES.length - 1) * MINUTE).toISOString().replace(".000", ""),
      gaps: "0",
    });
    // The digest is that of the same bars imported from a file: nothing missing, nothing twice.
    const imported = await call(p.url, "POST", "/datasets", {
      name: "btc-file",
      symbol: "BTC/USD",
      timeframe: "1m",
      csv: historyCsv(),
    });
    expect(imported.status, JSON.stringify(imported.body)).toBe(201);
    expect(done.digest).toBe(imported.body.digest);

    const again = await pull("btc-pull");
    expect(again.body).toMatchObject({ bars_written: "0", complete: true });
  });

  it("svc data pull asks until the data set is complete", async () => {
    const r = await svcIn(p.url, [
      "data",
      "pull",
      "btc-cli",
      "--exchange",
      "binance",
      "--market",
      "BTC/USD",
      "--timeframe",
      "1m",
      "--since",
      new Date(T0).toISOString(),
      "--until",
      new Date(T0 + CLOSES.length * MINUTE).toISOString(),
      "--pages",
      "2",
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^bars +2500 \(2500 written now\)$/m);
    expect(r.stdout).toMatch(/^gaps +0$/m);
    expect(r.stderr).toMatch(/btc-cli: \d+ bars, up to/);
  });

  it("refuses an exchange not allowed, a market the venue does not list, and another data set's name", async () => {
    const notAllowed = await pull("x", { exchange: "bitmex" });
    expect(notAllowed.status).toBe(403);
    expect(notAllowed.body.error).toMatchObject({ code: "exchange_not_allowed" });
    const unknown = await pull("eth-pull", { market: "ETH/USD" });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error.message).toMatch(
      /binance lists no market ETH\/USD; it lists BTC\/USD/,
    );
    expect((await call(p.url, "GET", "/datasets/eth-pull")).status).toBe(404);
    const other = await pull("btc-file");
    expect(other.status).toBe(409);
    expect(other.body.error.code).toBe("dataset_exists");
  });
});
