#!/usr/bin/env node
// Builds the console (vite build) when console/dist is missing or older than its sources, so
// `npm start` on a fresh clone serves it; a fresh build costs nothing (one stat per source file).
// Run by npm start (all-in-one/scripts/start.mjs) and by the console's browser tests; `--force` always builds.
import { spawnSync } from "node:child_process";
import { readdirSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { createRequire } from "node:module";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const SOURCES = ["src", "index.html", "vite.config.ts", "package.json"];

function newest(path) {
  const s = statSync(path, { throwIfNoEntry: false });
  if (!s) return 0;
  if (!s.isDirectory()) return s.mtimeMs;
  return Math.max(0, ...readdirSync(path).map((e) => newest(join(path, e))));
}

/** Why the console needs a build, or undefined when console/dist is up to date. */
export function staleReason() {
  const built = statSync(join(root, "dist", "index.html"), { throwIfNoEntry: false });
  if (!built) return "console/dist is missing";
  const src = Math.max(...SOURCES.map((s) => newest(join(root, s))));
  return src > built.mtimeMs ? "its sources changed since the last build" : undefined;
}

/** Builds when stale (or always with force); throws with vite's output when the build fails. */
export function ensureBuilt({ force = false, quiet = false } = {}) {
  const why = force ? "asked to" : staleReason();
  if (!why) return false;
  if (!quiet) process.stderr.write(`building the operator console (${why})...\n`);
  const pkg = createRequire(join(root, "package.json")).resolve("vite/package.json");
  const vite = join(dirname(pkg), "bin", "vite.js");
  const r = spawnSync(process.execPath, [vite, "build", "--logLevel", "warn"], {
    cwd: root,
    encoding: "utf8",
    timeout: 120_000,
  });
  if (r.status !== 0)
    throw new Error(`vite build failed (${r.status ?? r.signal}):\n${r.stdout}${r.stderr}`);
  return true;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  try {
    ensureBuilt({ force: process.argv.includes("--force") });
  } catch (err) {
    // The platform still starts and serves a page saying how to build; the API does not need it.
    process.stderr.write(`${err.message}\nthe platform starts without the console\n`);
  }
}
