import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname } from "node:path";

/** The module name a strategy imports the SDK by, the only module it may import. */
export const SDK_MODULE = "@svc/strategy-sdk";

/** The SDK's version (its package.json's; a test keeps them equal). A version records it. */
export { SDK_VERSION } from "../index.js";

/**
 * The one module the SDK itself imports (its indicators): not a strategy's to import, but the
 * SDK's types need its declarations and its bundle inlines its code, both read from where the
 * platform has it installed (trusted code, as the SDK is).
 */
export const SDK_DEPENDENCY = "trading-signals";

let dependencyDir: string | undefined;

/** The folder of the SDK's dependency's built files (index.js and index.d.ts and theirs). */
export function sdkDependencyDir(): string {
  // Resolved from this file, as the SDK's own import is (the bundle rewrites import.meta.url so).
  dependencyDir ??= dirname(createRequire(import.meta.url).resolve(SDK_DEPENDENCY));
  return dependencyDir;
}

let source: string | undefined;

/** The SDK's own TypeScript: what strategies are checked against and what their bundle inlines. */
export function sdkSource(): string {
  source ??= readFileSync(new URL("../index.ts", import.meta.url), "utf8");
  return source;
}
