import { Code, svcError } from "../errors/index.js";

/** What a list returns when the caller leaves `limit` at 0. */
export const DEFAULT_PAGE_SIZE = 100;
/** The most rows one page carries. */
export const MAX_PAGE_SIZE = 1000;

/**
 * The page size a request asks for: 0 means the default, and anything outside 1..1000 is a 400
 * naming `limit` (the proto's rules refuse it first at the edge; this guards in-process callers).
 */
export function pageSize(limit: number): number {
  if (limit === 0) return DEFAULT_PAGE_SIZE;
  if (!Number.isInteger(limit) || limit < 0 || limit > MAX_PAGE_SIZE)
    throw svcError(
      Code.InvalidArgument,
      "invalid_parameter",
      `limit must be 1 to ${MAX_PAGE_SIZE} (0 means ${DEFAULT_PAGE_SIZE}); got ${limit}`,
      { field: "limit" },
    );
  return limit;
}
