import fs from "node:fs";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningPlatform } from "@svc/all-in-one";
import { call, PLATFORM_START_TIMEOUT_MS, startTestPlatform } from "../support/test-platform.js";
import { eventually } from "../support/until.js";

const fixture = (name: string) =>
  fs.readFileSync(
    fileURLToPath(new URL(`../../services/bots/src/sandbox/fixtures/${name}`, import.meta.url)),
    "utf8",
  );
const PYTHON = fixture("ma_family.py");
const TYPESCRIPT = fixture("ma-family.strategy.ts");
const PARAMS = { fast: 5, slow: 20, allow_short: true };

describe("a version carrying a Python strategy (real Postgres)", () => {
  let p: RunningPlatform;
  const saved = { ...process.env };
  beforeAll(async () => {
    // The sandbox's limits come from SVC_STRATEGY_* at each run: a spinning call ends in 1.5 s.
    process.env.SVC_STRATEGY_CALL_TIMEOUT_MS = "1500";
    p = await startTestPlatform("postgres", { SVC_BACKTEST_WORKERS: "2" });
  }, PLATFORM_START_TIMEOUT_MS);
  afterAll(async () => {
    await p?.close();
    process.env = saved;
  });

  const createBot = (name: string, code: object, parameters: object = PARAMS) =>
    eventually(
      `the checker takes ${name}`,
      () =>
        call(p.url, "POST", "/bots", {
          name,
          kind: "trading",
          strategy: { code, parameters },
        }),
      (r) => r.status !== 429,
      60_000,
    );

  const backtest = async (slug: string) => {
    const res = await call(p.url, "POST", `/bots/${slug}/backtest`, {
      data_source: "csv:sample-btc-usd-1d",
    });
    expect(res.status).toBe(202);
    return eventually(
      `backtest of ${slug} ends`,
      async () =>
        (await call(p.url, "GET", `/bots/${slug}/deployments`)).body.items.find(
          (x: { task_id: string }) => x.task_id === res.body.task_id,
        ),
      (d) => d?.status === "success" || d?.status === "failed",
      60_000,
    );
  };

  it("is stored with its language and digest, served back, and backtests to its TypeScript twin's result", async () => {
    const py = await createBot("Py Twin", {
      language: "python",
      files: [{ path: "strategy.py", content: PYTHON }],
    });
    expect(py.status).toBe(201);
    expect(py.body.spec.strategy.code).toMatchObject({
      language: "python",
      digest: expect.stringMatching(/^sha256:[0-9a-f]{64}$/),
      files: [{ path: "strategy.py" }],
    });
    const source = await call(p.url, "GET", "/bots/py-twin/versions/1/strategy");
    expect(source.status).toBe(200);
    expect(source.body.code.files).toEqual([{ path: "strategy.py", content: PYTHON }]);

    const ts = await createBot("Ts Twin", {
      files: [{ path: "strategy.ts", content: TYPESCRIPT }],
    });
    expect(ts.status).toBe(201);
    const [viaPython, viaTypeScript] = await Promise.all([
      backtest("py-twin"),
      backtest("ts-twin"),
    ]);
    expect(viaPython.result_summary.error).toBeUndefined();
    expect(viaPython.status).toBe("success");
    expect(viaTypeScript.status).toBe("success");
    expect(viaPython.result_summary.trades).toBeGreaterThan(0);
    const { strategy: _p, ...pythonMetrics } = viaPython.result_summary;
    const { strategy: _t, ...typeScriptMetrics } = viaTypeScript.result_summary;
    expect(pythonMetrics).toEqual(typeScriptMetrics);
    // Two checks (the TypeScript checker's thread starts on the first) and two sandboxed runs.
  }, 90_000);

  it("ends a Python strategy that hangs failed with strategy_timeout, and one that dies with strategy_error", async () => {
    const hang = await createBot(
      "Py Hang",
      {
        language: "python",
        files: [
          { path: "strategy.py", content: "def on_bar(ctx):\n    while True:\n        pass\n" },
        ],
      },
      {},
    );
    expect(hang.status).toBe(201);
    const dies = await createBot(
      "Py Dies",
      {
        language: "python",
        files: [
          { path: "strategy.py", content: "import os\n\ndef on_bar(ctx):\n    os._exit(7)\n" },
        ],
      },
      {},
    );
    expect(dies.status).toBe(201);
    const [hung, died] = await Promise.all([backtest("py-hang"), backtest("py-dies")]);
    expect(hung.status).toBe("failed");
    expect(hung.result_summary.error).toMatch(/^strategy_timeout: .*1500 ms/);
    expect(died.status).toBe("failed");
    expect(died.result_summary.error).toMatch(/^strategy_error: .*exit code 7/);
  });

  it("refuses a file that does not compile with 400 naming the line, and makes no version", async () => {
    const broken = await createBot("Py Broken", {
      language: "python",
      files: [
        { path: "strategy.py", content: "def on_bar(ctx):\n    x = (1,\n\ndef init(ctx): pass\n" },
      ],
    });
    expect(broken.status).toBe(400);
    expect(broken.body.error.code).toBe("strategy_code_invalid");
    expect(broken.body.error.details.errors).toEqual([
      expect.stringMatching(/^strategy\.py:2:\d+ SyntaxError: /),
    ]);
    expect((await call(p.url, "GET", "/bots/py-broken")).status).toBe(404);
  });

  it("refuses a Python strategy of two files or a .ts path with 400 naming the field", async () => {
    const two = await createBot("Py Two", {
      language: "python",
      files: [
        { path: "strategy.py", content: PYTHON },
        { path: "lib.py", content: "" },
      ],
    });
    expect(two.status).toBe(400);
    expect(two.text).toContain("strategy.code.files");
    const wrong = await createBot("Py Ts", {
      language: "python",
      files: [{ path: "strategy.ts", content: PYTHON }],
    });
    expect(wrong.status).toBe(400);
    expect(wrong.text).toContain("strategy.code.files[0].path");
  });
});
