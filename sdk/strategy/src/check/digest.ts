import { createHash } from "node:crypto";
import type { StrategyFile } from "./limits.js";

/**
 * The files in their canonical order: the entry first (its place says which file is the
 * strategy), then the others by path, so the order a client listed them in does not matter.
 */
export function canonicalFiles(files: readonly StrategyFile[]): StrategyFile[] {
  const [entry, ...rest] = files;
  const sorted = [...rest].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  return [entry!, ...sorted].map((f) => ({ path: f.path, content: f.content }));
}

/**
 * "sha256:<hex>" over the canonical source: a JSON array of [path, content] pairs in canonical
 * order. Content is hashed as sent (no line-ending or whitespace rewriting), so what is served
 * back hashes to the same digest.
 */
export function strategyDigest(files: readonly StrategyFile[]): string {
  const canonical = JSON.stringify(canonicalFiles(files).map((f) => [f.path, f.content]));
  return sha256(canonical);
}

export function sha256(text: string): string {
  return `sha256:${createHash("sha256").update(text, "utf8").digest("hex")}`;
}
