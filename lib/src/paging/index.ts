/**
 * Keyset pagination shared by every list route: an opaque page token (base64url) carrying the
 * list's name, a fingerprint of its filters and the last row's sort keys; the page size rule;
 * and the Kysely pieces a repository needs to resume after those keys.
 *
 * @example
 *   const size = pageSize(req.limit);
 *   const after = decodePageToken(BOTS, req.pageToken);
 *   const rows = await repo.listBots(db, { after, limit: size + 1 });
 *   return pageOf(rows, size, BOTS, (r) => [r.created_key, r.id]);
 */
export {
  decodePageToken,
  encodePageToken,
  type PagedList,
  type SortKeyKind,
} from "./page-token.js";
export { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE, pageSize } from "./page-size.js";
export { pageOf, type Page } from "./page.js";
export { keysetAfter, timestampKey } from "./keyset.js";
export { allPages } from "./all-pages.js";
