import { Worker } from "node:worker_threads";
import type { PgliteLike } from "./prioritised-pglite-dialect.js";
import type {
  FromPgliteThread,
  PgliteErrorFields,
  PgliteThreadInit,
} from "./pglite-thread-messages.js";

/**
 * The thread's entry. From the TypeScript sources (tsx, vitest) it is the .ts file, loaded
 * through tsx; the all-in-one bundle builds it as an entry of its own and points this very
 * expression at the built pglite-thread.js beside main.js.
 */
const THREAD_URL = new URL("./pglite-thread.ts", import.meta.url);

/** A PostgreSQL error from the thread, with the fields callers test (code, constraint...). */
function errorOf(fields: PgliteErrorFields): Error {
  const { message, name, ...rest } = fields;
  const err = Object.assign(new Error(message), rest);
  if (typeof name === "string") err.name = name;
  return err;
}

interface Pending {
  resolve(value: unknown): void;
  reject(err: Error): void;
}

/** An embedded PGlite database running on a thread of its own, queried through messages. */
export interface PgliteOnThread extends PgliteLike {
  /** How long the thread took to compile PostgreSQL and to be ready, ms from its start. */
  readonly openedIn: { compiled?: number; ready: number };
}

export async function openPgliteOnThread(init: PgliteThreadInit): Promise<PgliteOnThread> {
  const fromSources = THREAD_URL.pathname.endsWith(".ts");
  const worker = new Worker(
    fromSources ? new URL("./pglite-thread-tsx.mjs", THREAD_URL) : THREAD_URL,
    { workerData: init },
  );
  const pending = new Map<number, Pending>();
  let nextId = 1;
  let ended: Error | undefined;
  const end = (err: Error) => {
    ended ??= err;
    for (const p of pending.values()) p.reject(ended);
    pending.clear();
  };

  const openedIn = await new Promise<PgliteOnThread["openedIn"]>((resolve, reject) => {
    const onExit = (code: number) =>
      reject(new Error(`the embedded database's thread ended (exit code ${code}) while it opened`));
    worker.once("error", reject);
    worker.once("exit", onExit);
    worker.once("message", (m: FromPgliteThread) => {
      worker.off("error", reject);
      worker.off("exit", onExit);
      if ("opening" in m) return reject(errorOf(m.opening));
      if ("ready" in m)
        return resolve({
          ...(m.compiledMs === undefined ? {} : { compiled: m.compiledMs }),
          ready: m.readyMs,
        });
      reject(new Error("the embedded database's thread answered before it was ready"));
    });
  });

  worker.on("message", (m: FromPgliteThread) => {
    if (!("id" in m)) return;
    const p = pending.get(m.id);
    if (!p) return;
    pending.delete(m.id);
    if ("error" in m) p.reject(errorOf(m.error));
    else p.resolve("rows" in m ? { rows: m.rows, affectedRows: m.affectedRows } : undefined);
  });
  worker.on("error", (err) => end(err));
  worker.on("exit", (code) =>
    end(new Error(`the embedded database's thread ended (exit code ${code})`)),
  );

  const ask = <T>(message: { sql: string; params: unknown[] } | { close: true }) =>
    new Promise<T>((resolve, reject) => {
      if (ended) return reject(ended);
      const id = nextId++;
      pending.set(id, { resolve: resolve as (v: unknown) => void, reject });
      worker.postMessage({ id, ...message });
    });

  let closing: Promise<void> | undefined;
  return {
    openedIn,
    query: <R>(sql: string, params: unknown[] = []) =>
      ask<{ rows: R[]; affectedRows?: number }>({ sql, params }),
    close: () =>
      (closing ??= ask<void>({ close: true })
        .catch(() => undefined)
        .then(() => worker.terminate())
        .then(() => undefined)),
  };
}
