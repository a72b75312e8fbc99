import { readFileSync } from "node:fs";

/** The module name a strategy imports the SDK by, the only module it may import. */
export const SDK_MODULE = "@svc/strategy-sdk";

/** The SDK's version (its package.json's; a test keeps them equal). A version records it. */
export const SDK_VERSION = "0.2.0";

let source: string | undefined;

/** The SDK's own TypeScript: what strategies are checked against and what their bundle inlines. */
export function sdkSource(): string {
  source ??= readFileSync(new URL("../index.ts", import.meta.url), "utf8");
  return source;
}
