import { table, when } from "./output.js";

/** A value at a dotted path of an answer: `spec.scope` of a kill switch. */
export function at(value: unknown, path: string): unknown {
  let v: unknown = value;
  for (const key of path.split(".")) v = (v as Record<string, unknown> | null | undefined)?.[key];
  return v;
}

/** One cell: times as UTC, lists joined, objects as compact JSON, absent as empty. */
export function cell(v: unknown): string {
  if (v === undefined || v === null) return "";
  if (typeof v === "string") return /^\d{4}-\d\d-\d\dT/.test(v) ? when(v) : v;
  if (typeof v === "number" || typeof v === "boolean") return String(v);
  if (Array.isArray(v) && v.every((x) => typeof x !== "object")) return v.join(",");
  return JSON.stringify(v);
}

/** The scalar keys of a row: the columns of a table nobody chose columns for. */
function scalarKeys(row: unknown): string[] {
  return Object.entries((row ?? {}) as Record<string, unknown>)
    .filter(([, v]) => v === null || typeof v !== "object" || Array.isArray(v))
    .map(([k]) => k);
}

/** Rows as a table: the columns named (dotted paths allowed), else the first row's scalars. */
export function rowsTable(rows: unknown[], columns?: string[]): string {
  if (rows.length === 0) return "(none)\n";
  const cols = columns ?? scalarKeys(rows[0]);
  return table(
    cols.map((c) => (c.split(".").pop() ?? c).toUpperCase()),
    rows.map((r) => cols.map((c) => cell(at(r, c)))),
  );
}

/** An object as aligned `key  value` lines, nested objects as compact JSON. */
export function objectFields(value: unknown, keys?: string[]): string {
  const obj = (value ?? {}) as Record<string, unknown>;
  const shown = (keys ?? Object.keys(obj))
    .map((k) => [k, cell(at(obj, k))] as const)
    .filter(([, v]) => v !== "");
  const width = Math.max(0, ...shown.map(([k]) => k.length));
  return shown.map(([k, v]) => `${k.padEnd(width)}  ${v}`).join("\n") + "\n";
}

/**
 * An answer for people: a list route's items as a table (or the one list of objects an answer
 * holds, as `tools` of GET /mcp/data/tools), anything else as fields.
 */
export function human(answer: unknown, columns?: string[], keys?: string[]): string {
  const obj = (answer ?? {}) as Record<string, unknown>;
  if (Array.isArray(obj.items)) return rowsTable(obj.items, columns);
  const lists = Object.values(obj).filter(
    (v) => Array.isArray(v) && v.every((x) => typeof x === "object" && x !== null),
  );
  if (!keys && lists.length === 1 && Object.keys(obj).length <= 2)
    return rowsTable(lists[0] as unknown[], columns);
  return objectFields(answer, keys);
}
