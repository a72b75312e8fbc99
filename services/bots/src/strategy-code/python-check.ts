import { execFile } from "node:child_process";
import {
  sha256,
  STRATEGY_LIMITS,
  strategyDigest,
  type StrategyCheck,
  type StrategyFile,
} from "@svc/strategy-sdk/check";
import { SYSTEM_PYTHON } from "../sandbox/python/isolation.js";

/** The Python SDK's version (sdk/strategy-python/svc_strategy/__init__.py's SDK_VERSION). */
export const PYTHON_SDK_VERSION = "python-0.1.0";

/** One entry file, a plain relative path ending in .py. */
const PYTHON_PATH = /^[A-Za-z0-9_][A-Za-z0-9._-]*(\/[A-Za-z0-9_][A-Za-z0-9._-]*)*\.py$/;
const CHECK_TIMEOUT_MS = 5_000;

/**
 * Compiles the source on stdin (compile() parses and builds bytecode; nothing of the file runs)
 * and prints its first syntax error as JSON, or null.
 */
const COMPILE = `
import json, sys
source = sys.stdin.buffer.read().decode("utf-8")
try:
    compile(source, "strategy.py", "exec", dont_inherit=True)
    print("null")
except SyntaxError as e:
    print(json.dumps({"line": e.lineno or 1, "column": e.offset or 1, "message": f"SyntaxError: {e.msg}"}))
except (ValueError, MemoryError, RecursionError) as e:
    print(json.dumps({"line": 1, "column": 1, "message": f"{type(e).__name__}: {e}"}))
`;

/**
 * A Python strategy's check at upload: one file, within the bounds of a TypeScript file, that
 * compiles. It is stored as sent: its source is also what the sandbox runs (the "bundle"), so the
 * bundle digest is the source file's own SHA-256.
 */
export async function checkPythonStrategy(files: readonly StrategyFile[]): Promise<StrategyCheck> {
  const input = inputProblem(files);
  if (input) return { ok: false, input, diagnostics: [] };
  const entry = files[0]!;
  const error = await compileError(entry.content);
  if (error) return { ok: false, diagnostics: [{ file: entry.path, ...error }] };
  const canonical = [{ path: entry.path, content: entry.content }];
  return {
    ok: true,
    files: canonical,
    digest: strategyDigest(canonical),
    bundle: entry.content,
    bundleDigest: sha256(entry.content),
    sdkVersion: PYTHON_SDK_VERSION,
  };
}

function inputProblem(
  files: readonly StrategyFile[],
): { field: string; message: string } | undefined {
  if (files.length !== 1)
    return {
      field: "strategy.code.files",
      message: `a Python strategy is one file; strategy.code.files has ${files.length}`,
    };
  const f = files[0]!;
  const field = "strategy.code.files[0]";
  if (typeof f.path !== "string" || typeof f.content !== "string")
    return { field, message: `${field} needs a path and a content, both strings` };
  if (f.path.length > STRATEGY_LIMITS.maxPathChars || !PYTHON_PATH.test(f.path))
    return {
      field: `${field}.path`,
      message: `${field}.path=${JSON.stringify(f.path.slice(0, 80))} is not a relative .py path of plain segments (letters, digits, . _ -; no "..", no leading "/")`,
    };
  if (f.content.includes("\u0000"))
    return {
      field: `${field}.content`,
      message: `${field}.content (${f.path}) contains the NUL character (U+0000); remove it`,
    };
  if (f.content.length > STRATEGY_LIMITS.maxFileChars)
    return {
      field: `${field}.content`,
      message: `${field}.content (${f.path}) has ${f.content.length} characters; at most ${STRATEGY_LIMITS.maxFileChars} are allowed`,
    };
  return undefined;
}

async function compileError(
  source: string,
): Promise<{ line: number; column: number; message: string } | undefined> {
  const stdout = await new Promise<string>((resolve, reject) => {
    const child = execFile(
      SYSTEM_PYTHON,
      ["-I", "-S", "-B", "-c", COMPILE],
      { timeout: CHECK_TIMEOUT_MS, killSignal: "SIGKILL", maxBuffer: 64 * 1024, env: {} },
      (error, out) => {
        if (error?.killed)
          resolve(
            JSON.stringify({
              line: 1,
              column: 1,
              message: `the syntax check ran past ${CHECK_TIMEOUT_MS} ms: simplify the file`,
            }),
          );
        else if (error)
          reject(
            new Error(
              `the Python syntax check did not run (${SYSTEM_PYTHON}; install Debian's python3): ${error.message.split("\n")[0]}`,
            ),
          );
        else resolve(out);
      },
    );
    child.stdin!.on("error", () => undefined);
    child.stdin!.end(source, "utf8");
  });
  return (
    (JSON.parse(stdout) as { line: number; column: number; message: string } | null) ?? undefined
  );
}
