import { createHash } from "node:crypto";
import type { Pair } from "yaml";
import type { ValidationReport } from "../domain/report-types.js";

/**
 * Keys in code-point order with runs of digits compared as numbers (article_6 before
 * article_10): readable, and the same under every locale and runtime.
 */
export function naturalCompare(a: string, b: string): number {
  const pa = a.match(/\d+|\D+/g) ?? [];
  const pb = b.match(/\d+|\D+/g) ?? [];
  for (let i = 0; i < Math.min(pa.length, pb.length); i++) {
    const x = pa[i]!;
    const y = pb[i]!;
    if (x === y) continue;
    const nx = /^\d/.test(x) && /^\d/.test(y) ? Number(x) - Number(y) : 0;
    if (nx !== 0) return nx;
    return x < y ? -1 : 1;
  }
  return pa.length - pb.length;
}

const byKey = (a: Pair, b: Pair) => naturalCompare(String(a.key), String(b.key));

/**
 * The report as YAML and the SHA-256 of its bytes. Keys are sorted at every level, lines are never
 * folded and nothing is aliased, so the bytes depend on the report's content alone: a report
 * regenerated from the same records hashes the same, and a signed copy can be checked against it.
 * Written for YAML 1.1 readers too: strings such as timestamps or "yes" are quoted, so every
 * reader (1.1 or 1.2) reads back the same strings.
 */
export async function writeReport(
  report: ValidationReport,
): Promise<{ yaml: string; sha256: string }> {
  // Loaded with the first report, not at every start of the platform (20-30 ms of it). yaml is
  // CommonJS to Node: its module.exports is the default export both to Node and in the
  // platform's bundle, where the named exports are not.
  const { stringify } = (await import("yaml")).default;
  const yaml = stringify(report, {
    version: "1.1",
    sortMapEntries: byKey,
    lineWidth: 0,
    aliasDuplicateObjects: false,
  });
  return { yaml, sha256: createHash("sha256").update(yaml, "utf8").digest("hex") };
}
