#!/usr/bin/env node
// Bundles all-in-one/src/main.ts and the workspace TypeScript it imports into dist/main.js, so
// `npm start` runs plain JavaScript: compiling about 400 files on the fly through tsx's loader
// cost about 1.8 s of CPU at every start. Packages are bundled too, except the few of
// LOADED_FROM_NODE_MODULES; one of those that a workspace gets from its own node_modules (another
// version than the root's) is bundled anyway, so it stays the version that workspace asked for.
// `node all-in-one/scripts/bundle.mjs [--force]`; start.mjs calls it when the bundle is stale.
import { existsSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const allInOne = join(here, "..");
const root = join(allInOne, "..");
export const BUNDLE = join(allInOne, "dist", "main.js");
const META = join(allInOne, "dist", "main.meta.json");

/** Why the bundle must be built, or undefined when every file it was built from is older. */
export function bundleStaleReason() {
  if (!existsSync(BUNDLE) || !existsSync(META)) return "all-in-one/dist/main.js is missing";
  const { startedAt, inputs } = JSON.parse(readFileSync(META, "utf8"));
  // Compared with when the build began: a file saved while it ran counts as changed.
  for (const file of [...inputs.map((f) => join(root, f)), fileURLToPath(import.meta.url)]) {
    const s = statSync(file, { throwIfNoEntry: false });
    if (!s) return `${relative(root, file)} is gone`;
    if (s.mtimeMs > startedAt) return `${relative(root, file)} changed`;
  }
  return undefined;
}

/** The package a bare specifier names (`@scope/name` or `name`), without its subpath. */
function packageName(specifier) {
  const parts = specifier.split("/");
  return specifier.startsWith("@") ? parts.slice(0, 2).join("/") : parts[0];
}

/** The node_modules folder Node would take `name` from, looking up from `dir`. */
function packageDir(name, dir) {
  for (let d = dir; ; d = dirname(d)) {
    const candidate = join(d, "node_modules", name);
    if (existsSync(candidate)) return candidate;
    if (dirname(d) === d) return undefined;
  }
}

/**
 * Packages Node loads from node_modules rather than the bundle: they find files of their own
 * beside their code at run time (PGlite's WebAssembly and data, pino's transport workers, the
 * Swagger UI's assets, oidc-provider's views), or are loaded only when a setting asks for them.
 * Every other package is bundled: resolving and compiling about a thousand files of node_modules
 * one by one cost several hundred milliseconds of every start.
 */
const LOADED_FROM_NODE_MODULES = new Set([
  "@electric-sql/pglite",
  "kysely-pglite-dialect",
  "pino",
  "pino-pretty",
  "thread-stream",
  "@fastify/swagger-ui",
  "@fastify/static",
  "oidc-provider",
  "esbuild",
  "pg",
  "pg-native",
  "nats",
  "redis",
  "ioredis",
  "@kubernetes/client-node",
  "openai",
  "tsx",
  // The strategy checker's compiler reads its ES lib files from beside its own code.
  "typescript",
  // The FIX engine reads its FIX dictionaries from beside its own code (a runner at a venue);
  // its dependency injection needs the Reflect polyfill loaded before it, as an import of its own.
  "jspurefix",
  "reflect-metadata",
]);

/**
 * Worker threads' entries, built beside main.js: the code that starts one names it as
 * `new URL("./<name>.ts", import.meta.url)`, which the bundle points at `./<name>.js`.
 */
const WORKER_ENTRIES = {
  "pglite-thread": join(root, "lib", "src", "db", "pglite-thread.ts"),
  "backtest-worker": join(root, "services", "bots", "src", "runtime", "backtest-worker.ts"),
  "strategy-check-worker": join(
    root,
    "services",
    "bots",
    "src",
    "strategy-code",
    "strategy-check-worker.ts",
  ),
};
const WORKER_URL = /new URL\("\.\/([\w-]+)\.ts", import\.meta\.url\)/g;
const BUNDLE_URL = "__svcBundleModuleUrl__";

const workspaceCode = (outdir) => ({
  name: "workspace-code",
  setup(build) {
    build.onResolve({ filter: /^[^./]/ }, (args) => {
      if (args.path.startsWith("@svc/") || args.path.startsWith("node:")) return undefined;
      const name = packageName(args.path);
      if (!LOADED_FROM_NODE_MODULES.has(name) && !name.startsWith("@opentelemetry/"))
        return undefined;
      const fromImporter = packageDir(name, args.resolveDir);
      // Only what the bundle's own folder resolves to the same package may stay external.
      if (fromImporter && fromImporter !== packageDir(name, outdir)) return undefined;
      return { path: args.path, external: true };
    });
    // A source file that finds files beside itself keeps finding them from the bundle.
    build.onLoad({ filter: /\.(ts|js|mjs)$/ }, (args) => {
      if (args.path.includes("/node_modules/")) return undefined;
      const text = readFileSync(args.path, "utf8");
      const unsupported = /import\.meta\.(dirname|filename|resolve)/.exec(text);
      if (unsupported)
        return {
          errors: [
            { text: `${unsupported[0]} is not rewritten by the bundler: use import.meta.url` },
          ],
        };
      if (!text.includes("import.meta.url")) return undefined;
      const fromBundle = relative(outdir, args.path);
      // A worker's entry is a file of the bundle's own folder, so that URL stays the chunk's own.
      const workersPointed = text.replaceAll(WORKER_URL, (whole, name) =>
        WORKER_ENTRIES[name] ? `new URL("./${name}.js", ${BUNDLE_URL})` : whole,
      );
      return {
        contents: workersPointed
          .replaceAll(
            "import.meta.url",
            `new URL(${JSON.stringify(fromBundle)}, import.meta.url).href`,
          )
          .replaceAll(BUNDLE_URL, "import.meta.url"),
        loader: args.path.endsWith(".ts") ? "ts" : "js",
      };
    });
  },
});

/**
 * Builds the bundle (with its source map and the list of files it came from) into `outdir`,
 * all-in-one/dist unless a test asks for another folder (inside the repository: the bundle
 * finds its packages in node_modules above it).
 */
export async function buildBundle({ outdir = dirname(BUNDLE) } = {}) {
  const { build, stop } = await import("esbuild");
  const { rmSync } = await import("node:fs");
  rmSync(outdir, { recursive: true, force: true });
  const startedAt = Date.now();
  const result = await build({
    absWorkingDir: root,
    entryPoints: { main: join(allInOne, "src", "main.ts"), ...WORKER_ENTRIES },
    outdir,
    entryNames: "[name]",
    // Chunks sit beside main.js: import.meta.url is rewritten relative to that folder.
    chunkNames: "[name]-[hash]",
    // What the code imports on demand (the Postgres and Redis clients, the OpenTelemetry SDK)
    // stays in chunks of its own, loaded only when used.
    splitting: true,
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    // ES module builds first: a UMD build (jsonc-parser's) requires its files by runtime paths.
    mainFields: ["module", "main"],
    sourcemap: true,
    metafile: true,
    logLevel: "silent",
    // A CommonJS package bundled into ESM may require() Node's own modules.
    banner: {
      js: 'import { createRequire as __svcCreateRequire } from "node:module"; const require = __svcCreateRequire(import.meta.url);',
    },
    plugins: [workspaceCode(outdir)],
  }).finally(
    // The build service is a child process: it must not outlive the build beside the platform.
    () => stop(),
  );
  const { writeFileSync } = await import("node:fs");
  writeFileSync(
    join(outdir, "main.meta.json"),
    JSON.stringify({ startedAt, inputs: Object.keys(result.metafile.inputs) }),
  );
}

/** Builds when stale (or always with force); why it built, or false. */
export async function ensureBundle({ force = false } = {}) {
  const why = force ? "asked to" : bundleStaleReason();
  if (!why) return false;
  await buildBundle();
  return why;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const why = await ensureBundle({ force: process.argv.includes("--force") });
  process.stderr.write(why ? `bundled all-in-one (${why})\n` : "all-in-one bundle is up to date\n");
}
