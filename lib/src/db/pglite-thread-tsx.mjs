// The embedded database thread's entry when the platform runs from its TypeScript sources (tsx,
// vitest): Node 20 does not apply a loader given by `--import` in a worker's execArgv to the
// worker's own entry, so the thread registers tsx itself before it loads the thread's code.
import { register } from "tsx/esm/api";

register();
await import("./pglite-thread.ts");
