import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";

const run = promisify(execFile);

const ROOT = fileURLToPath(new URL("../../../../../", import.meta.url));
/** The contract a strategy service implements; the Python stubs are generated from it. */
export const STRATEGY_PROTO = path.join(ROOT, "proto", "svc", "strategy", "v1", "strategy.proto");
/** The Python side of the SDK: the runtime that serves a strategy file over gRPC. */
export const PYTHON_SDK = path.join(ROOT, "sdk", "strategy-python", "svc_strategy");

let generated: Promise<string> | undefined;

/**
 * The Python stubs of proto/svc/strategy/v1 (strategy_pb2, strategy_pb2_grpc), generated with
 * Debian's python3-grpc-tools into a folder named by the proto's hash, once per process. They are
 * generated rather than committed: the proto stays the one source, so the stubs cannot drift from
 * it, and the generator is the one of the gRPC release the runtime runs (a fraction of a second).
 * Resolves to the folder to put on sys.path.
 */
export function pythonStubs(python: string): Promise<string> {
  generated ??= generate(python).catch((error: unknown) => {
    generated = undefined;
    throw error;
  });
  return generated;
}

async function generate(python: string): Promise<string> {
  const proto = fs.readFileSync(STRATEGY_PROTO);
  const digest = createHash("sha256").update(proto).digest("hex").slice(0, 16);
  const shared = path.join(os.tmpdir(), `svc-strategy-py-${digest}`);
  if (fs.existsSync(path.join(shared, "svc", "strategy", "v1", "strategy_pb2_grpc.py"))) {
    if (ours(shared)) return shared;
  }
  // A folder of that name someone else made (the temporary folder is shared) is not trusted: the
  // stubs run beside every strategy; this process then generates its own.
  const out = fs.existsSync(shared) ? fs.mkdtempSync(`${shared}.own-`) : shared;
  const scratch = fs.mkdtempSync(`${shared}.tmp-`);
  try {
    const { stdout } = await run(
      python,
      [
        "-c",
        "import grpc_tools, os; print(os.path.join(os.path.dirname(grpc_tools.__file__), '_proto'))",
      ],
      { timeout: 10_000 },
    );
    await run(
      python,
      [
        "-m",
        "grpc_tools.protoc",
        `-I${path.join(ROOT, "proto")}`,
        `-I${stdout.trim()}`,
        `--python_out=${scratch}`,
        `--grpc_python_out=${scratch}`,
        "svc/strategy/v1/strategy.proto",
      ],
      { timeout: 30_000 },
    );
    // Two processes generating at once: the first rename wins, the second finds the folder there.
    try {
      if (out !== shared) fs.rmSync(out, { recursive: true, force: true });
      fs.renameSync(scratch, out);
    } catch {
      fs.rmSync(scratch, { recursive: true, force: true });
    }
    if (!ours(out)) throw new Error(`${out} is not this user's own folder`);
    return out;
  } catch (error) {
    fs.rmSync(scratch, { recursive: true, force: true });
    throw new Error(
      `the Python strategy stubs could not be generated (install Debian's python3-grpc-tools): ${(error as Error).message}`,
    );
  }
}

/** The folder is this process's user's, and no one else may write to it. */
function ours(dir: string): boolean {
  const stat = fs.lstatSync(dir);
  return stat.isDirectory() && stat.uid === process.getuid?.() && (stat.mode & 0o022) === 0;
}
