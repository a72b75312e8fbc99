import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MA_CROSSOVER_EXAMPLE } from "@svc/strategy-sdk/check";
import type { RunningPlatform } from "@svc/all-in-one";
import { call, PLATFORM_START_TIMEOUT_MS, startTestPlatform } from "../support/test-platform.js";
import { createCodeBot } from "../support/strategy-code.js";
import { eventually } from "../support/until.js";

const files = (content = MA_CROSSOVER_EXAMPLE) => [{ path: "strategy.ts", content }];

/** A write that waits out the checker's thread start (429 strategy_check_busy, nothing written). */
const send = (url: string, method: string, path: string, body: unknown) =>
  eventually(
    `${method} ${path} is checked`,
    () => call(url, method, path, body),
    (r) => r.status !== 429,
    60_000,
  );

/**
 * A version's parameters are held to its code's declarations (the SDK example: fast an int from
 * 2 to 200, slow an int from 3 to 1000, weight a number from 0 to 1) when the version is made.
 */
describe("strategy code parameters are checked when a version is made (real Postgres)", () => {
  let p: RunningPlatform;
  beforeAll(async () => {
    p = await startTestPlatform("postgres");
    // The platform's first check starts its checker's thread (seconds on a loaded machine): set-up.
    await createCodeBot(p.url, "Warm Checker");
  }, PLATFORM_START_TIMEOUT_MS + 60_000);
  afterAll(async () => p?.close());

  const create = (name: string, parameters: unknown, content?: string) =>
    send(p.url, "POST", "/bots", {
      name,
      kind: "trading",
      strategy: { code: { files: files(content) }, parameters },
    });

  it("refuses a value outside its declared range with a 400 naming the parameter and the range, and makes no bot", async () => {
    const res = await create("Out Of Range", { fast: 1 });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({
      code: "invalid_parameter",
      details: { field: "strategy.parameters.fast", parameter: "fast", min: 2, max: 200 },
    });
    expect(res.body.error.message).toContain("from 2 to 200");
    expect((await call(p.url, "GET", "/bots/out-of-range")).status).toBe(404);
  });

  it("refuses hostile values: a NaN-like string, a huge number, null, a fraction for an int, an object", async () => {
    const cases: [Record<string, unknown>, string, RegExp][] = [
      [
        { fast: "NaN" },
        "strategy.parameters.fast",
        /"NaN": it is declared an integer from 2 to 200/,
      ],
      [{ slow: 1e300 }, "strategy.parameters.slow", /from 3 to 1000/],
      [{ fast: null }, "strategy.parameters.fast", /null: it is declared an integer/],
      [{ fast: 10.5 }, "strategy.parameters.fast", /10\.5: it is declared an integer/],
      [{ weight: { valueOf: 1 } }, "strategy.parameters.weight", /a number from 0 to 1/],
      [{ weight: "1" }, "strategy.parameters.weight", /"1": it is declared a number/],
    ];
    for (const [parameters, field, message] of cases) {
      const res = await create("Hostile Value", parameters);
      expect(res.status, JSON.stringify(parameters)).toBe(400);
      expect(res.body.error.details.field).toBe(field);
      expect(res.body.error.message).toMatch(message);
    }
    expect((await call(p.url, "GET", "/bots/hostile-value")).status).toBe(404);
  });

  it("refuses a name the code does not declare, and a NUL byte in a name before any check", async () => {
    const res = await create("Odd Name", { fsat: 10 });
    expect(res.status).toBe(400);
    expect(res.body.error.details).toMatchObject({
      field: "strategy.parameters.fsat",
      declared: ["fast", "slow", "weight"],
    });
    expect(res.body.error.message).toContain('"fsat" is not a parameter of this strategy');
    for (const name of ["constructor", "toString", "fast\u200b"]) {
      const odd = await create("Odd Name", { [name]: 1 });
      expect(odd.status, name).toBe(400);
      expect(odd.body.error.message).toContain("is not a parameter of this strategy");
    }
    // The API refuses a NUL anywhere in a request's strings, names of parameters included.
    const nul = await create("Odd Name", { "fa\u0000st": 10 });
    expect(nul.status).toBe(400);
    expect(nul.body.error.details.field).toMatch(/^strategy\.parameters/);
    expect((await call(p.url, "GET", "/bots/odd-name")).status).toBe(404);
  });

  it("refuses code whose own default is outside its declared range", async () => {
    const res = await create(
      "Bad Default",
      {},
      MA_CROSSOVER_EXAMPLE.replace("default: 10, min: 2", "default: 1, min: 2"),
    );
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({
      code: "invalid_parameter",
      details: { field: "strategy.code" },
    });
    expect(res.body.error.message).toMatch(/fast: 1 \(its default\) is below its minimum 2/);
  });

  it("takes values inside the ranges, and a PUT with a bad value makes no new version", async () => {
    const ok = await create("Good Values", { fast: 2, slow: 1000, weight: 0.5 });
    expect(ok.status).toBe(201);
    expect(ok.body.current_version).toBe(1);
    const bot = await createCodeBot(p.url, "Put Params");
    const put = await send(p.url, "PUT", "/bots/put-params", {
      spec: { ...bot.spec, strategy: { ...bot.spec.strategy, parameters: { slow: 1001 } } },
    });
    expect(put.status).toBe(400);
    expect(put.body.error.details).toMatchObject({
      field: "strategy.parameters.slow",
      min: 3,
      max: 1000,
    });
    const versions = await call(p.url, "GET", "/bots/put-params/versions");
    expect(versions.body.items).toHaveLength(1);
    const good = await send(p.url, "PUT", "/bots/put-params", {
      spec: { ...bot.spec, strategy: { ...bot.spec.strategy, parameters: { slow: 40 } } },
    });
    expect(good.status).toBe(200);
    expect(good.body.current_version).toBe(2);
  });

  it("makes the version when the declarations cannot be read (init throws without data); the run then fails invalid_params", async () => {
    // An init that needs a symbol the probe does not have: the declarations stay unknown.
    const picky = MA_CROSSOVER_EXAMPLE.replace(
      "  lookback: 1000,",
      '  lookback: 1000,\n  init(ctx) {\n    if (ctx.symbols[0] !== "BTC-USD") throw new Error("BTC-USD only");\n  },',
    );
    const res = await create("Picky Init", { fast: 1 }, picky);
    expect(res.status, res.text).toBe(201);
    const run = await call(p.url, "POST", "/bots/picky-init/backtest", {
      data_source: "csv:sample-btc-usd-1d",
    });
    expect(run.status).toBe(202);
    const done = await eventually(
      "the backtest ends",
      async () => (await call(p.url, "GET", "/bots/picky-init/deployments")).body.items[0],
      (d) => d?.status === "success" || d?.status === "failed",
      60_000,
    );
    expect(done.status).toBe("failed");
    expect(done.result_summary.error).toMatch(/^invalid_params: .*fast: 1 is below its minimum 2/);
  });

  it("refuses a parameter named __proto__ with a 400 naming it, whether written as a key or computed, rather than dropping it", async () => {
    for (const [name, key] of [
      ["Proto Key", "__proto__"],
      ["Proto Computed", '["__proto__"]'],
    ] as const) {
      const content = MA_CROSSOVER_EXAMPLE.replace(
        "  params: {\n",
        `  params: {\n    ${key}: param.int({ default: 1, min: 0, max: 5 }),\n`,
      );
      expect(content).not.toBe(MA_CROSSOVER_EXAMPLE);
      const res = await create(name, {}, content);
      expect(res.status, `${name}: ${JSON.stringify(res.body)}`).toBe(400);
      expect(res.body.error.code).toBe("invalid_parameter");
      expect(res.body.error.message).toContain("__proto__: a parameter may not be named __proto__");
    }
    expect((await call(p.url, "GET", "/bots/proto-key")).status).toBe(404);
  });
});
