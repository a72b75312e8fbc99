/** Compact text for people: aligned columns, short numbers, durations. Scripts use --json. */

/** Columns padded to their widest cell, two spaces apart; the last column is not padded. */
export function table(headers: string[], rows: Array<Array<string | number | undefined>>): string {
  const cells = [headers, ...rows.map((r) => r.map((c) => (c === undefined ? "" : String(c))))];
  const widths = headers.map((_, i) => Math.max(...cells.map((r) => (r[i] ?? "").length)));
  return cells
    .map((r) =>
      r
        .map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i] ?? 0)))
        .join("  ")
        .trimEnd(),
    )
    .join("\n")
    .concat("\n");
}

/** `label  value` lines with the labels aligned; empty values are left out. */
export function fields(pairs: Array<[string, string | number | undefined | null]>): string {
  const shown = pairs.filter(([, v]) => v !== undefined && v !== null && v !== "");
  const width = Math.max(0, ...shown.map(([k]) => k.length));
  return shown.map(([k, v]) => `${k.padEnd(width)}  ${v}`).join("\n") + "\n";
}

export const percent = (fraction: unknown): string =>
  typeof fraction === "number" ? `${(fraction * 100).toFixed(2)}%` : "";

export const number = (n: unknown, digits = 2): string =>
  typeof n === "number"
    ? n.toLocaleString("en-US", { maximumFractionDigits: digits, minimumFractionDigits: 0 })
    : "";

/** 75 -> "1m15s"; under a minute, seconds only. */
export function duration(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m${String(s % 60).padStart(2, "0")}s`;
  return `${Math.floor(m / 60)}h${String(m % 60).padStart(2, "0")}m`;
}

/** An API timestamp as `2026-11-25 04:02:44` (UTC), shorter than ISO and still sortable. */
export const when = (iso: unknown): string =>
  typeof iso === "string" && iso ? iso.replace("T", " ").replace(/\.\d+Z$|Z$/, "") : "";

export const json = (value: unknown): string => `${JSON.stringify(value, null, 2)}\n`;
