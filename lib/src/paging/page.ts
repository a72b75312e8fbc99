import { encodePageToken, type PagedList } from "./page-token.js";

/** One page of rows and the token that resumes after its last row ("" on the last page). */
export interface Page<T> {
  items: T[];
  nextPageToken: string;
}

/**
 * Cuts the `size + 1` rows a keyset query fetched into a page: the extra row only says that
 * another page exists, so the last page never costs a request that comes back empty.
 *
 * @example
 *   const rows = await listBots(db, { limit: size + 1, after });
 *   const { items, nextPageToken } = pageOf(rows, size, BOTS_LIST, (r) => [r.created_key, r.id]);
 */
export function pageOf<T>(
  rows: T[],
  size: number,
  page: PagedList,
  keysOf: (row: T) => readonly string[],
): Page<T> {
  if (rows.length <= size) return { items: rows, nextPageToken: "" };
  const items = rows.slice(0, size);
  return { items, nextPageToken: encodePageToken(page, keysOf(items.at(-1)!)) };
}
