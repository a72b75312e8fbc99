import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MA_CROSSOVER_EXAMPLE, SDK_VERSION } from "@svc/strategy-sdk/check";
import type { RunningPlatform } from "@svc/all-in-one";
import { call, PLATFORM_START_TIMEOUT_MS, startTestPlatform } from "../support/test-platform.js";
import { createCodeBot } from "../support/strategy-code.js";

type Files = { path: string; content: string }[];

const spec = (name: string, files: Files, over: Record<string, unknown> = {}) => ({
  name,
  kind: "trading",
  universe: { symbols: ["BTC-USD"], timeframe: "1d" },
  strategy: { code: { files } },
  ...over,
});

const good: Files = [{ path: "strategy.ts", content: MA_CROSSOVER_EXAMPLE }];

/** The example with one more parameter default: other code, a valid file. */
const variant = (n: number): Files => [
  { path: "strategy.ts", content: MA_CROSSOVER_EXAMPLE.replace("default: 10,", `default: ${n},`) },
];

describe("strategy code on a bot version (real Postgres)", () => {
  let p: RunningPlatform;
  beforeAll(async () => {
    p = await startTestPlatform("postgres");
  }, PLATFORM_START_TIMEOUT_MS);
  afterAll(async () => {
    await p?.close();
  });

  it("checks and stores a good file: the version names its digest and serves the source back", async () => {
    const created = { body: await createCodeBot(p.url, "Code MA") };
    const code = created.body.spec.strategy.code;
    expect(code.digest).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(code.bundle_digest).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(code.sdk_version).toBe(SDK_VERSION);
    // The version's spec names the files; their content is served by the strategy route.
    expect(code.files).toEqual([{ path: "strategy.ts", content: "" }]);

    const versions = await call(p.url, "GET", "/bots/code-ma/versions");
    expect(versions.body.items[0].strategy_digest).toBe(code.digest);

    const source = await call(p.url, "GET", "/bots/code-ma/versions/1/strategy");
    expect(source.status).toBe(200);
    expect(source.body).toMatchObject({
      version: 1,
      code: { digest: code.digest, bundle_digest: code.bundle_digest, files: good },
    });
  });

  it("refuses a type error with file:line:column in the details, and makes no version", async () => {
    const broken: Files = [
      {
        path: "strategy.ts",
        content: MA_CROSSOVER_EXAMPLE.replace(
          "const { fast, slow, weight } = ctx.params;",
          "const { fast, slow, weight } = ctx.params;\n    const oops: string = fast;",
        ),
      },
    ];
    const refused = await call(p.url, "POST", "/bots", spec("Broken MA", broken));
    expect(refused.status).toBe(400);
    expect(refused.body.error.code).toBe("strategy_code_invalid");
    expect(refused.body.error.details.field).toBe("strategy.code");
    const line = broken[0]!.content.split("\n").findIndex((l) => l.includes("const oops")) + 1;
    expect(refused.body.error.details.errors).toEqual([
      `strategy.ts:${line}:11 Type 'number' is not assignable to type 'string'.`,
    ]);
    expect((await call(p.url, "GET", "/bots/broken-ma")).status).toBe(404);

    // On an update too: the bot keeps its version and hash.
    await call(p.url, "POST", "/bots", spec("Kept MA", good));
    const before = await call(p.url, "GET", "/bots/kept-ma");
    const put = await call(p.url, "PUT", "/bots/kept-ma", { spec: spec("Kept MA", broken) });
    expect(put.status).toBe(400);
    const after = await call(p.url, "GET", "/bots/kept-ma");
    expect(after.body.current_version).toBe(1);
    expect(after.body.spec_hash).toBe(before.body.spec_hash);
  });

  it("makes no new version for identical code, however its other files are listed", async () => {
    const helper = {
      path: "lib/mean.ts",
      content:
        "export const mean = (xs: number[]): number => xs.reduce((a, b) => a + b, 0) / xs.length;\n",
    };
    const extra = { path: "lib/extra.ts", content: "export const two = 2;\n" };
    const entry = {
      path: "main.ts",
      content: `import { defineStrategy } from "@svc/strategy-sdk";\nimport { mean } from "./lib/mean";\nimport { two } from "./lib/extra.ts";\nexport default defineStrategy({ params: {}, onBar(ctx) { ctx.log.info(String(mean([two, ctx.time]))); } });\n`,
    };
    const v1 = await call(p.url, "POST", "/bots", spec("Same Code", [entry, helper, extra]));
    expect(v1.status).toBe(201);
    const again = await call(p.url, "PUT", "/bots/same-code", {
      spec: spec("Same Code", [entry, extra, helper]),
    });
    expect(again.status).toBe(200);
    expect(again.body.current_version).toBe(1);
    expect(again.body.spec_hash).toBe(v1.body.spec_hash);
    const changed = await call(p.url, "PUT", "/bots/same-code", {
      spec: spec("Same Code", [entry, helper, { ...extra, content: "export const two = 3;\n" }]),
    });
    expect(changed.body.current_version).toBe(2);
    expect(changed.body.spec.strategy.code.digest).not.toBe(v1.body.spec.strategy.code.digest);
    // A spec read back (contents left out, the digest named) and sent again keeps its code.
    const readBack = (await call(p.url, "GET", "/bots/same-code")).body.spec;
    const renamed = await call(p.url, "PUT", "/bots/same-code", {
      spec: { ...readBack, name: "Same Code Renamed" },
    });
    expect(renamed.status).toBe(200);
    expect(renamed.body.current_version).toBe(3);
    expect(renamed.body.spec.strategy.code.digest).toBe(changed.body.spec.strategy.code.digest);
    const unknown = await call(p.url, "PUT", "/bots/same-code", {
      spec: {
        ...readBack,
        strategy: { code: { ...readBack.strategy.code, digest: `sha256:${"2".repeat(64)}` } },
      },
    });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error.details.field).toBe("strategy.code.digest");
    const served = await call(p.url, "GET", "/bots/same-code/versions/1/strategy");
    expect(served.body.code.files.map((f: { path: string }) => f.path)).toEqual([
      "main.ts",
      "lib/extra.ts",
      "lib/mean.ts",
    ]);
  });

  it("refuses an import of anything but the SDK and the strategy's own files", async () => {
    for (const [content, what] of [
      [
        `import { readFileSync } from "fs";\n${MA_CROSSOVER_EXAMPLE}`,
        `strategy.ts:1:30 cannot import "fs"`,
      ],
      [
        `${MA_CROSSOVER_EXAMPLE}\nexport const later = () => import("./strategy");\n`,
        "import() is not allowed",
      ],
      [
        `/// <reference types="node" />\n${MA_CROSSOVER_EXAMPLE}`,
        "/// <reference> directive is not allowed",
      ],
      [
        MA_CROSSOVER_EXAMPLE.replace("@svc/strategy-sdk", "../strategy-sdk"),
        `cannot import "../strategy-sdk"`,
      ],
    ] as const) {
      const res = await call(
        p.url,
        "POST",
        "/bots",
        spec("Importer", [{ path: "strategy.ts", content }]),
      );
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe("strategy_code_invalid");
      expect(res.body.error.details.errors.join("\n")).toContain(what);
    }
    expect((await call(p.url, "GET", "/bots/importer")).status).toBe(404);
  });

  it("refuses a NUL byte, a 10 MB file, 1,000 files, a path with .., and family with code", async () => {
    const nul = await call(
      p.url,
      "POST",
      "/bots",
      spec("Nul", [{ path: "strategy.ts", content: `${MA_CROSSOVER_EXAMPLE}\u0000` }]),
    );
    expect(nul.status).toBe(400);
    expect(nul.body.error.details.field).toBe("strategy.code.files[0].content");

    const huge = await call(
      p.url,
      "POST",
      "/bots",
      spec("Huge", [{ path: "strategy.ts", content: "x".repeat(10 * 1024 * 1024) }]),
    );
    expect(huge.status).toBe(413);

    const many = Array.from({ length: 1000 }, (_, i) => ({ path: `f${i}.ts`, content: "" }));
    const tooMany = await call(p.url, "POST", "/bots", spec("Many", many));
    expect(tooMany.status).toBe(400);
    expect(tooMany.body.error.details).toMatchObject({
      field: "strategy.code.files",
      max_items: 64,
    });

    for (const path of ["../strategy.ts", "lib/../../x.ts", "/etc/x.ts", "lib/./x.ts", "a\\b.ts"]) {
      const bad = await call(
        p.url,
        "POST",
        "/bots",
        spec("Dots", [{ path, content: MA_CROSSOVER_EXAMPLE }]),
      );
      expect(bad.status, path).toBe(400);
      expect(bad.body.error.details.field).toBe("strategy.code.files[0].path");
    }

    const both = await call(
      p.url,
      "POST",
      "/bots",
      spec("Both", good, { strategy: { family: "ma_crossover", code: { files: good } } }),
    );
    expect(both.status).toBe(400);
    expect(both.body.error.details.field).toBe("strategy.code");
    for (const name of ["nul", "huge", "many", "dots", "both"])
      expect((await call(p.url, "GET", `/bots/${name}`)).status).toBe(404);
  });

  it("two racing PUTs of different code make two whole versions, each serving its own source", async () => {
    await call(p.url, "POST", "/bots", spec("Racing", good));
    const [a, b] = await Promise.all([
      call(p.url, "PUT", "/bots/racing", { spec: spec("Racing", variant(11)) }),
      call(p.url, "PUT", "/bots/racing", { spec: spec("Racing", variant(12)) }),
    ]);
    expect([a.status, b.status]).toEqual([200, 200]);
    const versions = (await call(p.url, "GET", "/bots/racing/versions")).body.items;
    expect(versions.map((v: { version: number }) => v.version)).toEqual([1, 2, 3]);
    const wanted = new Map([
      [a.body.spec.strategy.code.digest, variant(11)],
      [b.body.spec.strategy.code.digest, variant(12)],
    ]);
    for (const v of versions.slice(1)) {
      expect(v.spec.strategy.code.digest).toBe(v.strategy_digest);
      const served = await call(p.url, "GET", `/bots/racing/versions/${v.version}/strategy`);
      expect(served.body.code.files).toEqual(wanted.get(v.strategy_digest));
      wanted.delete(v.strategy_digest);
    }
    expect(wanted.size).toBe(0);
  });

  it("answers 404 for a version without code or no such version", async () => {
    await call(p.url, "POST", "/bots", {
      name: "Family Bot",
      kind: "trading",
      strategy: { family: "ma_crossover", parameters: { fast: 5, slow: 20 } },
    });
    const none = await call(p.url, "GET", "/bots/family-bot/versions/1/strategy");
    expect(none.status).toBe(404);
    expect(none.body.error.code).toBe("strategy_code_not_found");
    expect(none.body.error.message).toContain("ma_crossover");
    const missing = await call(p.url, "GET", "/bots/code-ma/versions/9/strategy");
    expect(missing.status).toBe(404);
    expect(missing.body.error.code).toBe("version_not_found");
  });
});
