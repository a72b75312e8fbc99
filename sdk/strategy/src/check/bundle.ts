import { posix } from "node:path";
import { build, type Plugin } from "esbuild";
import type { StrategyDiagnostic } from "./diagnostic.js";
import type { StrategyFile } from "./limits.js";
import { SDK_DEPENDENCY, SDK_MODULE, sdkDependencyDir, sdkSource } from "./sdk-source.js";

const NAMESPACE = "strategy";

/**
 * The one shape of a strategy bundle, stored by version and loaded by the platform's sandbox: a
 * CommonJS script (the sandbox evaluates it as a function body with its own `module`), no
 * platform built-ins, the default export the definition. The sandbox's own builds use this too.
 */
export const STRATEGY_BUNDLE_FORMAT = Object.freeze({
  format: "cjs",
  platform: "neutral",
  target: "es2022",
} as const);
const SDK_PATH = "/@svc/strategy-sdk/index.ts";

/**
 * Bundles checked files into one script of STRATEGY_BUNDLE_FORMAT: the SDK inlined, no import
 * or require left, its default export the strategy. Only the given files, the SDK and the SDK's own dependency are
 * reachable; the same files give the same bytes.
 */
export async function bundleStrategy(
  files: readonly StrategyFile[],
): Promise<{ bundle: string; sourceMap: string } | { diagnostics: StrategyDiagnostic[] }> {
  const sources = new Map(files.map((f) => [`/${f.path}`, f.content]));
  sources.set(SDK_PATH, sdkSource());
  const onlyOwnFiles: Plugin = {
    name: "strategy-files",
    setup(b) {
      b.onResolve({ filter: /.*/ }, (args) => {
        if (args.kind === "entry-point") return { path: args.path, namespace: NAMESPACE };
        if (args.path === SDK_MODULE) return { path: SDK_PATH, namespace: NAMESPACE };
        // The SDK's own dependency, from disk, and its files' imports of each other; a strategy's
        // files live in their own namespace and never get here.
        if (args.importer === SDK_PATH && args.path === SDK_DEPENDENCY)
          return { path: `${sdkDependencyDir()}/index.js` };
        if (args.namespace === "file" && args.importer.startsWith(`${sdkDependencyDir()}/`))
          return undefined;
        if (args.path.startsWith("./") || args.path.startsWith("../")) {
          const joined = posix.normalize(posix.join(posix.dirname(args.importer), args.path));
          const candidate = `${joined.replace(/\.(ts|js)$/, "")}.ts`;
          if (sources.has(candidate) && candidate !== SDK_PATH)
            return { path: candidate, namespace: NAMESPACE };
        }
        return { errors: [{ text: `cannot import "${args.path}"` }] };
      });
      b.onLoad({ filter: /.*/, namespace: NAMESPACE }, (args) => ({
        contents: sources.get(args.path) ?? "",
        loader: "ts",
        resolveDir: posix.dirname(args.path),
      }));
    },
  };
  const result = await build({
    entryPoints: [`/${files[0]!.path}`],
    bundle: true,
    write: false,
    ...STRATEGY_BUNDLE_FORMAT,
    charset: "utf8",
    legalComments: "none",
    logLevel: "silent",
    plugins: [onlyOwnFiles],
    // The map beside the bundle, not in it (no sourceMappingURL comment either): the bundle's
    // bytes, and so its digest, are what they were without one. The sources are stored anyway.
    sourcemap: "external",
    sourcesContent: false,
    outfile: `/${BUNDLE_FILE}`,
  }).catch((err: { errors?: EsbuildMessage[] }) => ({ errors: err.errors ?? [], outputFiles: [] }));
  const bundle = result.outputFiles?.find((f) => f.path.endsWith(".js"));
  const map = result.outputFiles?.find((f) => f.path.endsWith(".js.map"));
  if (result.errors.length > 0 || !bundle || !map)
    return { diagnostics: result.errors.map(bundleDiagnostic) };
  return { bundle: bundle.text, sourceMap: map.text };
}

/** The bundle's name in its source map (the sandbox names the script strategy.js too). */
const BUNDLE_FILE = "strategy.js";

interface EsbuildMessage {
  text: string;
  location?: { file: string; line: number; column: number } | null;
}

function bundleDiagnostic(m: EsbuildMessage): StrategyDiagnostic {
  const loc = m.location;
  return {
    file: loc ? loc.file.replace(/^strategy:\//, "") : "(bundle)",
    line: loc?.line ?? 1,
    column: (loc?.column ?? 0) + 1,
    message: m.text,
  };
}
