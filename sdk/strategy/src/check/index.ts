/**
 * The strategy checker, shared by the platform (when a version is made) and the `svc` command
 * (before a push): the same files give the same verdict, the same digest and the same bundle.
 */
import { bundleStrategy, STRATEGY_BUNDLE_FORMAT } from "./bundle.js";
import { canonicalFiles, sha256, strategyDigest } from "./digest.js";
import type { StrategyDiagnostic } from "./diagnostic.js";
import { strategyInputProblem, type StrategyFile } from "./limits.js";
import { SDK_VERSION } from "./sdk-source.js";
import { typeCheckStrategy } from "./type-check.js";

export { formatDiagnostic, MAX_DIAGNOSTICS, type StrategyDiagnostic } from "./diagnostic.js";
export { canonicalFiles, sha256, strategyDigest } from "./digest.js";
export {
  STRATEGY_LIMITS,
  STRATEGY_PATH,
  strategyInputProblem,
  type StrategyFile,
} from "./limits.js";
export { SDK_MODULE, SDK_VERSION } from "./sdk-source.js";
export { MA_CROSSOVER_EXAMPLE } from "./example.js";
export { bundleStrategy, STRATEGY_BUNDLE_FORMAT, typeCheckStrategy };

/** A strategy that checked: its canonical files, their digest, its bundle and the bundle's. */
export interface CheckedStrategy {
  ok: true;
  files: StrategyFile[];
  digest: string;
  bundle: string;
  bundleDigest: string;
  /** The bundle's source map (v3 JSON, no sources' content): its stack lines to the files'. */
  sourceMap?: string;
  sdkVersion: string;
}

export type StrategyCheck =
  | CheckedStrategy
  | { ok: false; input?: { field: string; message: string }; diagnostics: StrategyDiagnostic[] };

/**
 * Input bounds, then imports, syntax and types, then the bundle. `input` is set when the files
 * are not acceptable as input at all (too many, too big, a bad path, a NUL), before any compiler.
 *
 * @example const r = await checkStrategy([{ path: "strategy.ts", content }]); if (r.ok) r.digest;
 */
export async function checkStrategy(files: readonly StrategyFile[]): Promise<StrategyCheck> {
  const input = strategyInputProblem(files);
  if (input) return { ok: false, input, diagnostics: [] };
  const canonical = canonicalFiles(files);
  const diagnostics = typeCheckStrategy(canonical);
  if (diagnostics.length > 0) return { ok: false, diagnostics };
  const bundled = await bundleStrategy(canonical);
  if ("diagnostics" in bundled) return { ok: false, diagnostics: bundled.diagnostics };
  return {
    ok: true,
    files: canonical,
    digest: strategyDigest(canonical),
    bundle: bundled.bundle,
    bundleDigest: sha256(bundled.bundle),
    sourceMap: bundled.sourceMap,
    sdkVersion: SDK_VERSION,
  };
}
