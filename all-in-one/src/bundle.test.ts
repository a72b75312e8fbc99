import { spawn } from "node:child_process";
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
// @ts-expect-error: a plain ES module script of the build, without type declarations.
import { buildBundle } from "../scripts/bundle.mjs";
// @ts-expect-error: the console's build script, without type declarations.
import { ensureBuilt } from "../../console/scripts/ensure-build.mjs";
import { MA_CROSSOVER_EXAMPLE } from "@svc/strategy-sdk/check";
import { eventually } from "../../test/support/until.js";

const allInOne = fileURLToPath(new URL("../", import.meta.url));
// Inside the repository, as all-in-one/dist is: the bundle finds its packages in node_modules.
const outdir = join(allInOne, `dist-test-${process.pid}`);
// A build, then a start (a new PGlite template the first time): minutes on a loaded machine.
const SLOW = 300_000;

describe("the bundle npm start runs", () => {
  beforeAll(async () => {
    (ensureBuilt as (o: { quiet: boolean }) => boolean)({ quiet: true });
    await (buildBundle as (o: { outdir: string }) => Promise<void>)({ outdir });
  }, SLOW);
  afterAll(() => rmSync(outdir, { recursive: true, force: true }));

  it("still finds every file its sources find beside themselves (console, data, report schema)", () => {
    const found: string[] = [];
    for (const file of readdirSync(outdir).filter((f) => f.endsWith(".js"))) {
      const text = readFileSync(join(outdir, file), "utf8");
      for (const m of text.matchAll(/new URL\("([^"]+)", import\.meta\.url\)\.href/g)) {
        const source = fileURLToPath(new URL(m[1]!, pathToFileURL(join(outdir, file))));
        expect(existsSync(source), `${file} points at ${source}`).toBe(true);
        found.push(source);
      }
    }
    expect(found.some((f) => f.endsWith("serve-console.ts"))).toBe(true);
  });

  it(
    "starts, prints the ready lines, and serves the API and the console",
    async () => {
      const child = spawn(process.execPath, [join(outdir, "main.js")], {
        cwd: join(allInOne, ".."),
        env: {
          ...process.env,
          SVC_PORT: "0",
          SVC_DATA_DIR: "memory://",
          SVC_LOG_LEVEL: "warn",
          SVC_LOG_FORMAT: "json",
        },
        stdio: ["ignore", "pipe", "pipe"],
      });
      let out = "";
      let err = "";
      child.stderr.on("data", (d: Buffer) => (err += d.toString()));
      try {
        const url = await new Promise<string>((resolve, reject) => {
          child.stdout.on("data", (d: Buffer) => {
            out += d.toString();
            const m = /svc platform ready in \d+ ms at (\S+)\n[^]*storage: .*\n/.exec(out);
            if (m) resolve(m[1]!);
          });
          child.on("exit", (code) => reject(new Error(`exited ${code}: ${err}`)));
        });
        expect(out).toContain(`  console:   ${url}/\n`);
        expect(out).toContain(`  try:       curl -s ${url}/bots\n`);
        const bots = await fetch(`${url}/bots`);
        expect(bots.status).toBe(200);
        expect(await bots.json()).toMatchObject({ items: [] });
        const page = await fetch(`${url}/`);
        // The built console (its script under /assets/), not the page saying how to build it.
        expect(await page.text()).toMatch(/<script[^>]+src="[^"]*\/assets\//);
        // What the bundle loads at its first use, not at start: the report's schema validator
        // (ajv, CommonJS, whose named exports a bundle's chunk does not carry) and the MCP SDK.
        const report = await fetch(`${url}/risk/validation-report?year=2026`);
        expect(report.status, await report.clone().text()).toBe(200);
        expect(report.headers.get("x-report-sha256")).toMatch(/^[0-9a-f]{64}$/);
        const tools = await fetch(`${url}/mcp`, {
          method: "POST",
          headers: {
            "content-type": "application/json",
            accept: "application/json, text/event-stream",
          },
          body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: {} }),
        });
        expect(tools.status).toBe(200);
        expect(await tools.json()).toMatchObject({
          result: {
            tools: expect.arrayContaining([expect.objectContaining({ name: "bots.list" })]),
          },
        });
        // A backtest runs on a worker thread, whose entry is a file of the bundle of its own.
        const json = { "content-type": "application/json", "x-svc-request": "test" };
        const bot = await fetch(`${url}/bots`, {
          method: "POST",
          headers: json,
          body: JSON.stringify({
            slug: "bundled-ma",
            name: "MA on sample",
            kind: "trading",
            strategy: { family: "ma_crossover", parameters: { fast: 10, slow: 40 } },
          }),
        });
        expect(bot.status, await bot.clone().text()).toBe(201);
        const run = await fetch(`${url}/bots/bundled-ma/backtest`, {
          method: "POST",
          headers: json,
          body: JSON.stringify({ data_source: "csv:sample-btc-usd-1d" }),
        });
        expect(run.status, await run.clone().text()).toBe(202);
        const finished = await eventually(
          "the bundle's backtest finishes",
          async () =>
            (
              (await (await fetch(`${url}/bots/bundled-ma/deployments`)).json()) as {
                items: Array<{ status: string; error?: string; result_summary?: { bars: number } }>;
              }
            ).items[0],
          (d) => d?.status === "success" || d?.status === "failed",
          60_000,
        );
        expect(finished).toMatchObject({ status: "success", result_summary: { bars: 1000 } });
        // Strategy code is checked on a worker thread of its own, with the compiler's ES lib
        // files read from node_modules beside the bundle.
        const code = await eventually(
          "the bundle's strategy checker starts its thread and checks the example",
          () =>
            fetch(`${url}/bots`, {
              method: "POST",
              headers: json,
              body: JSON.stringify({
                name: "Code on bundle",
                kind: "trading",
                strategy: {
                  code: { files: [{ path: "strategy.ts", content: MA_CROSSOVER_EXAMPLE }] },
                },
              }),
            }),
          (r) => r.status !== 429,
          60_000,
        );
        expect(code.status, await code.clone().text()).toBe(201);
      } finally {
        child.kill("SIGINT");
        await new Promise((r) => child.once("exit", r));
      }
    },
    SLOW,
  );

  it("names a data folder it cannot make, and exits 2 without a stack trace", async () => {
    const blocker = join(outdir, "a-file");
    writeFileSync(blocker, "not a folder");
    const child = spawn(process.execPath, [join(outdir, "main.js")], {
      cwd: join(allInOne, ".."),
      env: { ...process.env, SVC_PORT: "0", SVC_DATA_DIR: join(blocker, "data") },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let err = "";
    child.stderr.on("data", (d: Buffer) => (err += d.toString()));
    const code = await new Promise((r) => child.once("exit", r));
    expect(code).toBe(2);
    expect(err).toContain(`the data folder ${join(blocker, "data")} (SVC_DATA_DIR) cannot be used`);
    expect(err).not.toContain("    at ");
  });
});
