import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import {
  checkStrategy,
  formatDiagnostic,
  MA_CROSSOVER_EXAMPLE,
  SDK_VERSION,
  strategyDigest,
  strategyInputProblem,
  typeCheckStrategy,
} from "./index.js";

const entry = (content: string) => [{ path: "strategy.ts", content }];
const errorsOf = (content: string) => typeCheckStrategy(entry(content)).map(formatDiagnostic);

describe("the strategy checker", () => {
  it("passes the example, bundles it into one CommonJS script with the SDK inlined and no import", async () => {
    const r = await checkStrategy(entry(MA_CROSSOVER_EXAMPLE));
    if (!r.ok) throw new Error(JSON.stringify(r.diagnostics));
    expect(r.bundle).not.toMatch(/^\s*import\s/m);
    expect(r.bundle).toContain("function defineStrategy(");
    expect(r.bundle).not.toMatch(/\brequire\(|^\s*export\s/m);
    expect(r.bundle).toContain("module.exports");
    expect(r.sdkVersion).toBe(SDK_VERSION);
    // The same files give the same bytes, so the same bundle digest.
    const again = await checkStrategy(entry(MA_CROSSOVER_EXAMPLE));
    expect(again.ok && again.bundleDigest).toBe(r.bundleDigest);
  });

  it("is checked against the SDK version its package declares", () => {
    const pkg = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8"));
    expect(SDK_VERSION).toBe(pkg.version);
  });

  it("places a type error at its file, line and column", () => {
    const src = MA_CROSSOVER_EXAMPLE.replace(
      "ctx.target(symbol, { weight: long ? weight : 0 });",
      'ctx.target(symbol, { weight: "all" });',
    );
    const line = src.split("\n").findIndex((l) => l.includes('"all"')) + 1;
    expect(errorsOf(src)).toEqual([
      expect.stringMatching(
        new RegExp(`^strategy\\.ts:${line}:\\d+ Type 'string' is not assignable to type 'number'`),
      ),
    ]);
  });

  it("gives a strategy ES2023 only: no Node, no DOM, no timers", () => {
    for (const name of ["process", "require", "setTimeout", "fetch", "document"])
      expect(
        errorsOf(
          `${MA_CROSSOVER_EXAMPLE}\nexport const x = typeof ${name} === "undefined" ? 0 : ${name};\n`,
        ).join("\n"),
      ).toContain(`Cannot find name '${name}'`);
  });

  it("refuses every way past the SDK: imports, import(), references, ambient modules, import types", () => {
    const cases: [string, string][] = [
      [`import * as fs from "node:fs";`, `cannot import "node:fs"`],
      [`export { x } from "lodash";`, `cannot import "lodash"`],
      [`import os = require("os");`, `cannot import "os"`],
      [`export const m = import("./strategy");`, "import() is not allowed"],
      [`/// <reference lib="dom" />`, "/// <reference> directive is not allowed"],
      [`declare module "fs" { export const x: number; }`, `declare module "fs" is not allowed`],
      [`export type T = import("./other").T;`, `import("...") types are not allowed`],
      [`import { x } from "./missing";`, `cannot import "./missing"`],
    ];
    for (const [line, message] of cases) {
      const errors = errorsOf(`${line}\n${MA_CROSSOVER_EXAMPLE}`).join("\n");
      expect(errors, line).toContain("strategy.ts:1:");
      expect(errors, line).toContain(message);
    }
  });

  it("wants the entry's default export to be a strategy", () => {
    expect(errorsOf("export const x = 1;\n")).toEqual([
      "strategy.ts:1:1 strategy.ts has no default export: the entry file must end with export default defineStrategy({...})",
    ]);
    expect(errorsOf("const x = 1;\nexport default { onBar: 3 };\n")[0]).toMatch(
      /^strategy\.ts:2:1 the default export is not a strategy/,
    );
  });

  it("resolves the strategy's own files, and only those", async () => {
    const files = [
      {
        path: "main.ts",
        content: `import { defineStrategy } from "@svc/strategy-sdk";\nimport { k } from "./lib/k.js";\nexport default defineStrategy({ params: {}, onBar(ctx) { ctx.log.info(String(k)); } });\n`,
      },
      {
        path: "lib/k.ts",
        content: `import { two } from "../two";\nexport const k: number = two * 2;\n`,
      },
      { path: "two.ts", content: "export const two = 2;\n" },
    ];
    const r = await checkStrategy(files);
    expect(r.ok ? [] : r.diagnostics).toEqual([]);
    expect(r.ok && r.bundle).toContain("two * 2");
  });

  it("type-checks and inlines the SDK's indicators, which a strategy may not import from their library", async () => {
    const content = [
      `import { defineStrategy, SMA } from "@svc/strategy-sdk";`,
      `const sma = new SMA(3);`,
      `export default defineStrategy({ params: {}, onBar(ctx) {`,
      `  sma.add(ctx.bars(ctx.symbols[0]!).latest.close);`,
      `  const v: number | null = sma.getResult();`,
      `  if (v !== null && ctx.bars(ctx.symbols[0]!).latest.close > v) ctx.target(ctx.symbols[0]!, { weight: 1 });`,
      `} });`,
    ].join("\n");
    const r = await checkStrategy([{ path: "strategy.ts", content }]);
    expect(r.ok ? [] : r.diagnostics).toEqual([]);
    // One module, nothing left to load: the sandbox loads no module.
    expect(r.ok && r.bundle).not.toMatch(/\bimport\b|\brequire\(/);
    expect(r.ok && r.bundle).toContain("getResult");
    const misuse = content.replace("sma.getResult()", 'sma.getResult("x")');
    expect(errorsOf(misuse)[0]).toMatch(/^strategy\.ts:5:\d+ Expected 0 arguments/);
    expect(errorsOf(`import { SMA } from "trading-signals";\n${content}`)[0]).toMatch(
      /^strategy\.ts:1:\d+ cannot import "trading-signals"/,
    );
  });

  it("hashes the canonical source: the entry first, the rest by path, content as sent", () => {
    const a = { path: "a.ts", content: "export const a = 1;\n" };
    const b = { path: "b.ts", content: "export const b = 1;\n" };
    const e = { path: "strategy.ts", content: MA_CROSSOVER_EXAMPLE };
    expect(strategyDigest([e, a, b])).toBe(strategyDigest([e, b, a]));
    expect(strategyDigest([e, a, b])).not.toBe(strategyDigest([a, e, b]));
    expect(strategyDigest([e])).not.toBe(
      strategyDigest([{ ...e, content: e.content.replaceAll("\n", "\r\n") }]),
    );
    expect(strategyDigest([e])).toMatch(/^sha256:[0-9a-f]{64}$/);
  });

  it("refuses input it will not compile: NUL, size, count, paths", () => {
    const ok = { path: "strategy.ts", content: "x" };
    expect(strategyInputProblem([{ ...ok, content: "a\u0000b" }])?.field).toBe(
      "strategy.code.files[0].content",
    );
    expect(strategyInputProblem([{ ...ok, content: "x".repeat(262_145) }])?.message).toContain(
      "at most 262144",
    );
    expect(
      strategyInputProblem(
        Array.from({ length: 5 }, (_, i) => ({ path: `f${i}.ts`, content: "x".repeat(250_000) })),
      )?.message,
    ).toContain("at most 1048576");
    expect(
      strategyInputProblem(
        Array.from({ length: 65 }, (_, i) => ({ path: `f${i}.ts`, content: "" })),
      )?.message,
    ).toContain("at most 64");
    for (const path of [
      "../x.ts",
      "a/../x.ts",
      "/x.ts",
      "./x.ts",
      "x.js",
      "a//b.ts",
      "a\\b.ts",
      "ｘ.ts",
    ])
      expect(strategyInputProblem([{ ...ok, path }])?.field, path).toBe(
        "strategy.code.files[0].path",
      );
    expect(strategyInputProblem([ok, { ...ok, path: "Strategy.ts" }])?.message).toContain(
      'repeats "strategy.ts"',
    );
    expect(strategyInputProblem([])?.field).toBe("strategy.code.files");
    expect(strategyInputProblem([ok])).toBeUndefined();
  });
});
