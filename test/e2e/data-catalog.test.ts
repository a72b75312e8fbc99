import { mkdtempSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningPlatform } from "@svc/all-in-one";
import { arrowOf, csvOf, parquetOf, sampleRows } from "../../services/bots/src/data/test-files.js";
import { svcIn } from "../../cli/src/testing.js";
import { call, PLATFORM_START_TIMEOUT_MS, startTestPlatform } from "../support/test-platform.js";
import { eventually } from "../support/until.js";

const BODY_LIMIT = 65_536;
// 3,000 one-minute bars of each of two symbols, interleaved: 50 hours.
const ROWS = sampleRows(["BTC-USD", "ETH-USD"], 3000);
const bad = ROWS.map((r, i) => (i === 2500 ? { ...r, close: -1 } : r));
const FILES: Record<string, Uint8Array | string> = {
  "ok/bars.parquet": new Uint8Array(parquetOf(ROWS, 1000)),
  "ok/bars.arrow": arrowOf(ROWS, 700),
  "ok/bars.csv": csvOf(ROWS),
  "ok/bad.parquet": new Uint8Array(parquetOf(bad, 1000)),
  "elsewhere/bars.csv": csvOf(ROWS),
};

describe("the data catalog on real Postgres: import, show, resample, delete", () => {
  let p: RunningPlatform;
  let files: Server;
  let base = "";
  beforeAll(async () => {
    files = createServer((req, res) => {
      const body = FILES[(req.url ?? "").slice(1)];
      if (body === undefined) res.writeHead(404).end();
      else res.writeHead(200, { "content-length": Buffer.byteLength(body) }).end(body);
    });
    await new Promise<void>((ok) => files.listen(0, "127.0.0.1", ok));
    base = `http://127.0.0.1:${(files.address() as AddressInfo).port}`;
    p = await startTestPlatform("postgres", {
      SVC_BODY_LIMIT_BYTES: String(BODY_LIMIT),
      SVC_DATASET_IMPORT_URL_PREFIXES: `${base}/ok/`,
    });
  }, PLATFORM_START_TIMEOUT_MS);
  afterAll(async () => {
    await p?.close();
    files?.close();
  });

  const load = (name: string, file: string) =>
    call(p.url, "POST", "/datasets", { name, timeframe: "1m", url: `${base}/${file}` });

  it("streams Parquet, Arrow and CSV files larger than a request body from a URL, multi-symbol, with one digest", async () => {
    for (const f of ["ok/bars.parquet", "ok/bars.arrow", "ok/bars.csv"])
      expect(Buffer.byteLength(FILES[f]!)).toBeGreaterThan(BODY_LIMIT);
    const pq = await load("bars-pq", "ok/bars.parquet");
    expect(pq.status, JSON.stringify(pq.body)).toBe(201);
    expect(pq.body).toMatchObject({
      name: "bars-pq",
      data_source: "csv:bars-pq",
      symbol: "BTC-USD",
      symbols: ["BTC-USD", "ETH-USD"],
      timeframe: "1m",
      first_bar_time: "2024-01-01T00:00:00Z",
      last_bar_time: "2024-01-03T01:59:00Z",
      bar_count: "6000",
      gaps: "0",
      format: "parquet",
      origin: "url",
      size_bytes: String(FILES["ok/bars.parquet"]!.length),
    });
    expect(pq.body.digest).toMatch(/^[0-9a-f]{64}$/);
    const arrow = await load("bars-arrow", "ok/bars.arrow");
    const csv = await load("bars-csv", "ok/bars.csv");
    expect([arrow.status, csv.status]).toEqual([201, 201]);
    // The same bars from three formats: one digest.
    expect(arrow.body.digest).toBe(pq.body.digest);
    expect(csv.body.digest).toBe(pq.body.digest);

    const shown = await call(p.url, "GET", "/datasets/bars-pq");
    expect(shown.status).toBe(200);
    expect(shown.body).toEqual(pq.body);
    const listed = (await call(p.url, "GET", "/datasets")).body.items.map(
      (d: { name: string }) => d.name,
    );
    expect(listed).toEqual(["sample-btc-usd-1d", "bars-arrow", "bars-csv", "bars-pq"]);
    expect((await call(p.url, "GET", "/datasets/nope")).body.error.code).toBe("dataset_not_found");
  });

  it("refuses a bad row naming its row group and row, and keeps nothing of the file", async () => {
    const res = await load("bad-pq", "ok/bad.parquet");
    expect(res.status).toBe(400);
    // Row 2,500 of the file is row 500 of its third row group.
    expect(res.body.error).toMatchObject({
      code: "malformed_data",
      details: { field: "url", row_group: 2, row: 500 },
    });
    expect(res.body.error.message).toMatch(/^row group 2, row 500: prices must be positive/);
    expect((await call(p.url, "GET", "/datasets/bad-pq")).status).toBe(404);
  });

  it("imports from no URL outside SVC_DATASET_IMPORT_URL_PREFIXES, and asks for one file", async () => {
    const outside = await load("outside", "elsewhere/bars.csv");
    expect(outside.status).toBe(403);
    expect(outside.body.error).toMatchObject({ code: "import_url_not_allowed" });
    const both = await call(p.url, "POST", "/datasets", {
      name: "both",
      timeframe: "1m",
      csv: "timestamp,open,high,low,close,volume\n",
      url: `${base}/ok/bars.csv`,
    });
    expect(both.status).toBe(400);
    expect(both.body.error.message).toMatch(/exactly one of csv.*got csv and url/);
  });

  it(
    "runs an hourly bot over one-minute bars resampled on read, its own symbol of several",
    {
      timeout: 90_000,
    },
    async () => {
      const bot = await call(p.url, "POST", "/bots", {
        name: "hourly eth",
        slug: "hourly-eth",
        kind: "trading",
        universe: { symbols: ["ETH-USD"], timeframe: "1h" },
        strategy: { family: "ma_crossover", parameters: { fast: 3, slow: 8 } },
      });
      expect(bot.status, JSON.stringify(bot.body)).toBe(201);
      const started = await call(p.url, "POST", "/bots/hourly-eth/backtest", {
        data_source: "csv:bars-pq",
      });
      expect(started.status, JSON.stringify(started.body)).toBe(202);
      const done = await eventually(
        "the backtest ends",
        async () =>
          (await call(p.url, "GET", "/bots/hourly-eth/deployments")).body.items.find(
            (d: { id: string }) => d.id === started.body.id,
          ),
        (d) => d?.status === "success" || d?.status === "failed",
        60_000,
      );
      expect(done.status, JSON.stringify(done)).toBe("success");
      const results = await call(
        p.url,
        "GET",
        `/bots/hourly-eth/deployments/${started.body.id}/results`,
      );
      const times = results.body.equity.map((e: { time: string }) => Date.parse(e.time));
      expect(times).toHaveLength(50);
      expect(new Set(times.slice(1).map((t: number, i: number) => t - times[i]))).toEqual(
        new Set([3_600_000]),
      );
      const trades = await call(
        p.url,
        "GET",
        `/bots/hourly-eth/deployments/${started.body.id}/trades?page_size=10`,
      );
      for (const t of trades.body.items) expect(t.symbol).toBe("ETH-USD");

      // A bot whose symbol the data set does not hold is told which it holds.
      await call(p.url, "POST", "/bots", {
        name: "sol",
        slug: "hourly-sol",
        kind: "trading",
        universe: { symbols: ["SOL-USD"], timeframe: "1h" },
        strategy: { family: "ma_crossover", parameters: { fast: 3, slow: 8 } },
      });
      const sol = await call(p.url, "POST", "/bots/hourly-sol/backtest", {
        data_source: "csv:bars-pq",
      });
      expect(sol.status).toBe(400);
      expect(sol.body.error.message).toMatch(/holds BTC-USD, ETH-USD/);
    },
  );

  it("deletes a data set no run cites; one a backtest cites is evidence (409), as is the bundled one", async () => {
    const cited = await call(p.url, "DELETE", "/datasets/bars-pq");
    expect(cited.status).toBe(409);
    expect(cited.body.error).toMatchObject({
      code: "evidence_retained",
      details: { deployments: 1 },
    });
    expect((await call(p.url, "GET", "/datasets/bars-pq")).status).toBe(200);
    const gone = await call(p.url, "DELETE", "/datasets/bars-arrow");
    expect(gone.status, JSON.stringify(gone.body)).toBe(200);
    expect(gone.body).toEqual({ name: "bars-arrow", bar_count: "6000" });
    expect((await call(p.url, "GET", "/datasets/bars-arrow")).status).toBe(404);
    expect((await call(p.url, "DELETE", "/datasets/bars-arrow")).status).toBe(404);
    expect((await call(p.url, "DELETE", "/datasets/sample-btc-usd-1d")).status).toBe(409);
  });

  it("svc datasets import sends a local Parquet file; show and delete name it", async () => {
    const path = join(mkdtempSync(join(tmpdir(), "cli-import-")), "small.parquet");
    writeFileSync(path, new Uint8Array(parquetOf(sampleRows(["BTC-USD", "SOL-USD"], 200), 64)));
    const svc = (args: string[]) => svcIn(p.url, args);
    const imported = await svc([
      "datasets",
      "import",
      path,
      "--name",
      "small",
      "--timeframe",
      "1m",
    ]);
    expect(imported.code, imported.stderr).toBe(0);
    expect(imported.stdout).toMatch(/^symbols +BTC-USD, SOL-USD$/m);
    expect(imported.stdout).toMatch(/^bars +400$/m);
    const shown = await svc(["datasets", "show", "small"]);
    expect(shown.stdout).toMatch(/^origin +upload$/m);
    const deleted = await svc(["datasets", "delete", "small"]);
    expect(deleted.code, deleted.stderr).toBe(0);
    expect(deleted.stdout).toBe("deleted small (400 bars)\n");
    const again = await svc(["datasets", "show", "small"]);
    expect(again.code).not.toBe(0);
    expect(again.stderr).toMatch(/dataset_not_found/);
  });
});
