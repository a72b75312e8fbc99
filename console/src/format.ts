/** Enum values arrive as their proto names (BOT_STATUS_ACTIVE): show the last word, lower-case. */
export function enumWord(v: unknown, prefix?: string): string {
  if (typeof v !== "string" || v === "") return "—";
  const s = prefix && v.startsWith(prefix) ? v.slice(prefix.length) : v;
  return s.toLowerCase().replace(/_/g, " ");
}

export function num(v: unknown, digits = 2): string {
  const n = typeof v === "string" ? Number(v) : v;
  if (typeof n !== "number" || !Number.isFinite(n)) return "—";
  return n.toLocaleString("en", { maximumFractionDigits: digits });
}

export function pct(v: unknown, digits = 2): string {
  return typeof v === "number" && Number.isFinite(v) ? `${(v * 100).toFixed(digits)} %` : "—";
}

export function when(v: unknown): string {
  if (typeof v !== "string" && typeof v !== "number") return "—";
  const d = new Date(v);
  return Number.isNaN(d.getTime()) ? "—" : d.toISOString().replace("T", " ").slice(0, 19) + "Z";
}

export function ms(v: unknown): string {
  return typeof v === "number" && Number.isFinite(v)
    ? `${Math.round(v).toLocaleString("en")} ms`
    : "—";
}
