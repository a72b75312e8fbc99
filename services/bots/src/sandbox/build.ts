import { fileURLToPath } from "node:url";
import { STRATEGY_BUNDLE_FORMAT } from "@svc/strategy-sdk/check";
import { build } from "esbuild";

const here = (file: string) => fileURLToPath(new URL(file, import.meta.url));

export interface ChildSources {
  /** The child's main script (runs in node's own realm inside the sandbox). */
  bootstrap: string;
  /** The runtime (runs in the strategy realm, before the strategy). */
  runtime: string;
}

let sources: Promise<ChildSources> | undefined;

async function bundle(entry: string, platform: "node" | "neutral"): Promise<string> {
  const out = await build({
    entryPoints: [entry],
    bundle: true,
    write: false,
    format: "cjs",
    platform,
    target: "es2022",
    logLevel: "silent",
  });
  return out.outputFiles[0]!.text;
}

/**
 * The child's two scripts, bundled from their TypeScript once per process (esbuild, ~20 ms): the
 * platform has no build step, and the child's node runs plain JavaScript.
 */
export function childSources(): Promise<ChildSources> {
  sources ??= Promise.all([
    bundle(here("./child/bootstrap.ts"), "node"),
    bundle(here("./child/realm.ts"), "neutral"),
  ]).then(([bootstrap, runtime]) => ({ bootstrap, runtime }));
  return sources;
}

/**
 * Bundles a strategy file and what it imports (the SDK, its indicators) into the one CommonJS
 * script the sandbox takes. For tests and benches; versions' bundles come from the strategy-code
 * checker, in this same shape (STRATEGY_BUNDLE_FORMAT, the default export the definition).
 */
export async function bundleStrategyFile(entry: string): Promise<string> {
  const out = await build({
    entryPoints: [entry],
    bundle: true,
    write: false,
    ...STRATEGY_BUNDLE_FORMAT,
    mainFields: ["module", "main"],
    logLevel: "silent",
  });
  return out.outputFiles[0]!.text;
}
