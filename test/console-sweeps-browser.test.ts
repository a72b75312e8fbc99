import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import { chromium, type Browser, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningPlatform } from "@svc/all-in-one";
import { call, PLATFORM_START_TIMEOUT_MS, startTestPlatform } from "./support/test-platform.js";
import { eventually } from "./support/until.js";

/**
 * The bot page's latest sweep in a real browser (Debian's chromium) against a platform on real
 * Postgres: the results table sorted by the header chosen, and the heatmap of two parameters.
 */
const CHROMIUM = [process.env.SVC_TEST_CHROMIUM, "/usr/bin/chromium", "/usr/bin/chromium-browser"]
  .filter((p): p is string => !!p)
  .find((p) => existsSync(p));
const SHOTS = fileURLToPath(new URL("../test-results/console/", import.meta.url));
const AXE = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");

describe.skipIf(!CHROMIUM)("a sweep on the console's bot page", () => {
  let p: RunningPlatform;
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    const built = spawnSync(process.execPath, ["console/scripts/ensure-build.mjs"], {
      cwd: fileURLToPath(new URL("..", import.meta.url)),
      encoding: "utf8",
    });
    expect(built.status, built.stderr).toBe(0);
    mkdirSync(SHOTS, { recursive: true });
    [p, browser] = await Promise.all([
      startTestPlatform("postgres"),
      chromium.launch({ executablePath: CHROMIUM, args: ["--no-sandbox", "--disable-gpu"] }),
    ]);
    page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    page.setDefaultTimeout(20_000);
  }, PLATFORM_START_TIMEOUT_MS);
  afterAll(async () => {
    await browser?.close();
    await p?.close();
  }, 60_000);

  it("shows the table best first, sorts by another header, and draws the heatmap", async () => {
    expect(
      (
        await call(p.url, "POST", "/bots", {
          name: "Sweep View",
          kind: "trading",
          strategy: { family: "ma_crossover", parameters: { fast: 10, slow: 40 } },
        })
      ).status,
    ).toBe(201);
    const sweep = await call(p.url, "POST", "/bots/sweep-view/sweeps", {
      request_key: "view",
      parameters: [
        { name: "fast", values: [5, 10, 15] },
        { name: "slow", values: [30, 60] },
      ],
      data_source: "synthetic:4",
      start: "2002-01-01T00:00:00Z",
      end: "2003-06-01T00:00:00Z",
    });
    expect(sweep.status).toBe(202);
    await eventually(
      "the sweep ends",
      async () => (await call(p.url, "GET", `/bots/sweep-view/sweeps/${sweep.body.id}`)).body,
      (s) => s.status === "done",
      120_000,
    );

    await page.goto(`${p.url}/console/bots/sweep-view`);
    await page.getByRole("heading", { level: 2, name: "Latest sweep" }).waitFor();
    await page.getByText("Done: 6 of 6 runs done").waitFor();
    const rows = page.locator("table.sweep-results tbody tr");
    await expect.poll(() => rows.count(), { timeout: 20_000 }).toBe(6);
    const column = async (n: number) =>
      (await rows.locator(`td:nth-child(${n})`).allTextContents()).map(Number);
    const sharpe = await column(4);
    expect(sharpe).toEqual([...sharpe].sort((a, b) => b - a));

    // The heatmap: fast across, slow down, one cell per pair with the figure of that run.
    const cells = page.locator("table.heatmap td.heat");
    expect(await cells.count()).toBe(6);
    const api = (await call(p.url, "GET", `/bots/sweep-view/sweeps/${sweep.body.id}`)).body;
    const best = api.results[0];
    const cell = page.locator(
      `table.heatmap td[title^="fast=${best.parameters.fast} slow=${best.parameters.slow}:"]`,
    );
    expect(Number(await cell.getAttribute("data-value"))).toBeCloseTo(best.metrics.sharpe, 9);

    await page
      .locator("table.sweep-results")
      .getByRole("button", { name: "Trades", exact: true })
      .click();
    await expect
      .poll(async () => {
        const trades = (await rows.locator("td:nth-child(7)").allTextContents()).map((t) =>
          Number(t.replace(/,/g, "")),
        );
        return trades.every((t, i) => i === 0 || t <= trades[i - 1]!);
      })
      .toBe(true);

    await page.evaluate(AXE);
    const violations = (await page.evaluate(
      `axe.run(document, { resultTypes: ["violations"] }).then((r) => r.violations
        .filter((v) => v.impact === "serious" || v.impact === "critical").map((v) => v.id))`,
    )) as string[];
    await page.screenshot({ path: `${SHOTS}sweep.png`, fullPage: true });
    expect(violations).toEqual([]);
  }, 180_000);
});
