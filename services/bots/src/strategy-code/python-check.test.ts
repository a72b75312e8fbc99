import { describe, expect, it } from "vitest";
import { checkPythonStrategy } from "./python-check.js";

const GOOD = `from svc_strategy import param\n\nparams = {"n": param.int(default=3)}\n\ndef on_bar(ctx):\n    ctx.target(ctx.symbols[0], weight=1)\n`;

describe("checkPythonStrategy: a Python strategy's check at upload", () => {
  it("takes a file that compiles: digest of the source, the source itself as what runs", async () => {
    const result = await checkPythonStrategy([{ path: "strategy.py", content: GOOD }]);
    expect(result).toMatchObject({
      ok: true,
      files: [{ path: "strategy.py", content: GOOD }],
      bundle: GOOD,
      digest: expect.stringMatching(/^sha256:[0-9a-f]{64}$/),
    });
    const again = await checkPythonStrategy([{ path: "strategy.py", content: GOOD }]);
    expect(again.ok && result.ok && again.digest === result.digest).toBe(true);
    const other = await checkPythonStrategy([{ path: "strategy.py", content: `${GOOD}\n` }]);
    expect(other.ok && result.ok && other.digest !== result.digest).toBe(true);
    // Compiled, not run: a file that would end the checker's process checks like any other.
    const exits = await checkPythonStrategy([
      { path: "strategy.py", content: "import os\nos._exit(9)\n" },
    ]);
    expect(exits.ok).toBe(true);
  });

  it("answers a syntax error with its file, line and column", async () => {
    const content = `import os\nos._exit(9)\n\ndef on_bar(ctx):\n    if True\n        pass\n`;
    const result = await checkPythonStrategy([{ path: "strategy.py", content }]);
    expect(result).toEqual({
      ok: false,
      diagnostics: [
        {
          file: "strategy.py",
          line: 5,
          column: expect.any(Number),
          message: expect.stringMatching(/^SyntaxError: /),
        },
      ],
    });
  });

  it("refuses what is not one plain .py file before any compiler sees it", async () => {
    const cases: [{ path: string; content: string }[], string][] = [
      [[], "strategy.code.files"],
      [
        [
          { path: "a.py", content: "" },
          { path: "b.py", content: "" },
        ],
        "strategy.code.files",
      ],
      [[{ path: "strategy.ts", content: GOOD }], "strategy.code.files[0].path"],
      [[{ path: "../strategy.py", content: GOOD }], "strategy.code.files[0].path"],
      [[{ path: "strategy.py", content: "x = 1\u0000" }], "strategy.code.files[0].content"],
      [[{ path: "strategy.py", content: "#".repeat(262_145) }], "strategy.code.files[0].content"],
    ];
    for (const [files, field] of cases) {
      const result = await checkPythonStrategy(files);
      expect(result.ok ? "ok" : result.input?.field).toBe(field);
    }
  });

  it("answers nesting past the parser's limit as the file's error, not the platform's", async () => {
    const result = await checkPythonStrategy([
      { path: "strategy.py", content: `x = ${"(".repeat(10_000)}${")".repeat(10_000)}\n` },
    ]);
    expect(result).toMatchObject({ ok: false, diagnostics: [{ file: "strategy.py", line: 1 }] });
  });
});
