// The strategy check worker's entry when the platform runs from its TypeScript sources (tsx,
// vitest): Node 20 does not apply a loader given by `--import` in a worker's execArgv to the
// worker's own entry, so the thread registers tsx itself before it loads the worker.
import { register } from "tsx/esm/api";

register();
await import("./strategy-check-worker.ts");
