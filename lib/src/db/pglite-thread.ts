// The embedded database's own thread: PGlite runs PostgreSQL as WebAssembly on the thread that
// calls it, so on the process's event loop a large statement (a finished backtest's results)
// stopped every request and health check for its whole length. Here it stops only this thread;
// the process talks to it through messages (pglite-on-thread.ts).
import { readFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { parentPort, workerData } from "node:worker_threads";
import { PGlite } from "@electric-sql/pglite";
import type {
  FromPgliteThread,
  PgliteErrorFields,
  PgliteThreadInit,
  ToPgliteThread,
} from "./pglite-thread-messages.js";

const port = parentPort!;
const post = (m: FromPgliteThread) => port.postMessage(m);
const init = workerData as PgliteThreadInit;

function fieldsOf(err: unknown): PgliteErrorFields {
  if (!(err instanceof Error)) return { message: String(err) };
  const fields: PgliteErrorFields = { message: err.message, name: err.name };
  for (const [k, v] of Object.entries(err))
    if (v === undefined || ["string", "number", "boolean"].includes(typeof v)) fields[k] = v;
  return fields;
}

/** PostgreSQL compiled from the installed PGlite's own file (PGlite would read and compile it too). */
async function compiledWasm(): Promise<WebAssembly.Module | undefined> {
  try {
    const entry = createRequire(import.meta.url).resolve("@electric-sql/pglite");
    const bytes = await readFile(join(dirname(entry), "pglite.wasm"));
    return await (
      globalThis as unknown as {
        WebAssembly: { compile(b: Uint8Array): Promise<WebAssembly.Module> };
      }
    ).WebAssembly.compile(bytes);
  } catch {
    return undefined;
  }
}

async function open(): Promise<PGlite> {
  const t0 = performance.now();
  const wasm = await compiledWasm();
  const compiledMs = wasm ? Math.round(performance.now() - t0) : undefined;
  const options = {
    ...(init.startParams ? { startParams: init.startParams } : {}),
    ...(wasm ? { pgliteWasmModule: wasm } : {}),
  };
  const pglite = init.dataDir
    ? new PGlite(init.dataDir, options)
    : new PGlite({
        ...options,
        ...(init.tarball ? { loadDataDir: new Blob([readFileSync(init.tarball)]) } : {}),
      });
  await pglite.waitReady;
  post({
    ready: true,
    ...(compiledMs === undefined ? {} : { compiledMs }),
    readyMs: Math.round(performance.now() - t0),
  });
  return pglite;
}

try {
  const pglite = await open();
  port.on("message", (m: ToPgliteThread) => {
    if ("close" in m) {
      void pglite.close().finally(() => {
        post({ id: m.id, closed: true });
        port.close();
      });
      return;
    }
    pglite.query(m.sql, m.params).then(
      (r) =>
        post({
          id: m.id,
          rows: r.rows,
          ...(r.affectedRows === undefined ? {} : { affectedRows: r.affectedRows }),
        }),
      (err: unknown) => post({ id: m.id, error: fieldsOf(err) }),
    );
  });
} catch (err) {
  post({ opening: fieldsOf(err) });
  port.close();
}
