#!/usr/bin/env node
// `npm start`: builds what is stale (the console, the platform's bundle), then runs the bundle
// in this same process: no tsx, and no second npm or wrapper process kept alive beside it.
// When the bundle cannot be built, it says why and runs the TypeScript sources through tsx.
import module from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { ensureBuilt } from "../../console/scripts/ensure-build.mjs";
import { BUNDLE, ensureBundle } from "./bundle.mjs";

const allInOne = join(dirname(fileURLToPath(import.meta.url)), "..");
// Until the platform is ready (the bundle's import settles after its ready line) the event loop
// holds a handle: each time it ran out of work, Node waited for every V8 background task before
// going on, and during a start that is a tier-up compile of PGlite's WebAssembly, which held
// the start two times each for 0.1 to 0.5 s (load 9).
const starting = setInterval(() => {}, 1 << 30);
// Node 22 and later keep the bundle's compiled code between starts (Node 20 has no such cache).
module.enableCompileCache?.();
try {
  ensureBuilt();
} catch (err) {
  // The platform still starts and serves a page saying how to build; the API does not need it.
  process.stderr.write(`${err.message}\nthe platform starts without the console\n`);
}
let entry = BUNDLE;
try {
  const why = await ensureBundle();
  if (why) process.stderr.write(`bundled the platform (${why})\n`);
} catch (err) {
  process.stderr.write(
    `could not bundle the platform (${err.message.split("\n")[0]}): starting from the TypeScript sources through tsx, which is slower\n`,
  );
  const { register } = await import("tsx/esm/api");
  register();
  entry = join(allInOne, "src", "main.ts");
}
try {
  await import(pathToFileURL(entry).href);
} finally {
  clearInterval(starting);
}
