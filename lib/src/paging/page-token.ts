import { createHash } from "node:crypto";
import { Code, svcError } from "../errors/index.js";

/**
 * How one sort key of a list is spelled in a token. Timestamps travel as text at the database's
 * own microsecond precision (a JS Date would round them to milliseconds and skip or repeat rows
 * created in the same millisecond); the kind lets a decoded token be checked before any SQL
 * sees it.
 */
export type SortKeyKind = "timestamp" | "uuid" | "int" | "text";

/** One list a token can page: its name, what it was asked with, and the kinds of its sort keys. */
export interface PagedList {
  /** Stable name of the list, e.g. "bots" or "bot_versions". */
  list: string;
  /** The request's filters (and the parent it lists under); a token of other filters is refused. */
  filters: Record<string, string | number | boolean | readonly string[] | undefined>;
  /** The kinds of the sort keys, in ORDER BY order. */
  keys: readonly SortKeyKind[];
}

interface TokenBody {
  l: string;
  f: string;
  k: string[];
}

const CHECKS: Record<SortKeyKind, (key: string) => boolean> = {
  timestamp: (k) =>
    /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/.test(k) && !Number.isNaN(Date.parse(k)),
  uuid: (k) => /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/.test(k),
  int: (k) => /^-?\d{1,18}$/.test(k),
  text: (k) => k.length <= 256 && !k.includes("\0"),
};

/**
 * The opaque token that resumes `list` after the row whose sort keys are `keys`.
 *
 * @example
 *   encodePageToken(BOTS, ["2026-11-25T06:41:20.123456Z", "6f1c...-..."]) // "eyJsIjoi..."
 */
export function encodePageToken(page: PagedList, keys: readonly string[]): string {
  const body: TokenBody = { l: page.list, f: fingerprint(page.filters), k: [...keys] };
  return Buffer.from(JSON.stringify(body), "utf8").toString("base64url");
}

/**
 * The sort keys a token resumes after, or undefined for no token (the first page). A token that
 * is not one of ours, was issued by another list or for other filters is a 400 naming
 * `page_token`, so a client learns to start again rather than silently seeing another list.
 */
export function decodePageToken(page: PagedList, token: string): string[] | undefined {
  if (!token) return undefined;
  const body = parse(token);
  if (!body) throw refused("page_token is malformed: pass next_page_token exactly as it came");
  if (body.l !== page.list)
    throw refused(
      `page_token was issued by another list (${body.l}), not ${page.list}; start again without it`,
    );
  if (body.f !== fingerprint(page.filters))
    throw refused(
      "page_token was issued for other filters; ask with the same filters as the first page, or start again without it",
    );
  if (body.k.length !== page.keys.length || body.k.some((k, i) => !CHECKS[page.keys[i]!](k)))
    throw refused("page_token is malformed: pass next_page_token exactly as it came");
  return body.k;
}

function parse(token: string): TokenBody | undefined {
  if (!/^[A-Za-z0-9_-]+$/.test(token)) return undefined;
  try {
    const v = JSON.parse(Buffer.from(token, "base64url").toString("utf8")) as unknown;
    if (!v || typeof v !== "object") return undefined;
    const { l, f, k } = v as Partial<TokenBody>;
    if (typeof l !== "string" || typeof f !== "string" || !Array.isArray(k)) return undefined;
    if (!k.every((x) => typeof x === "string")) return undefined;
    return { l, f, k };
  } catch {
    return undefined;
  }
}

/** A short hash of the filters in a stable order: equal filters, equal fingerprint. */
function fingerprint(filters: PagedList["filters"]): string {
  const stable = Object.keys(filters)
    .filter((k) => filters[k] !== undefined && filters[k] !== "")
    .sort()
    .map((k) => [k, filters[k]]);
  return createHash("sha256").update(JSON.stringify(stable)).digest("base64url").slice(0, 16);
}

function refused(message: string) {
  return svcError(Code.InvalidArgument, "invalid_parameter", message, { field: "page_token" });
}
