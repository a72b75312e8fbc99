import { createHash } from "node:crypto";

/**
 * Canonical JSON in the spirit of RFC 8785 (JCS): object keys sorted by code unit, no
 * whitespace, numbers as ECMAScript prints them. Two specs that mean the same serialize the same,
 * whatever key order a client sent.
 */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== "object") return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(",")}}`;
}

/** SHA-256 over the canonical JSON, hex: the hash that locks a bot version. */
export function specHash(spec: unknown): string {
  return createHash("sha256").update(canonicalJson(spec)).digest("hex");
}
