import { randomUUID } from "node:crypto";
import { createContextKey } from "@connectrpc/connect";

/** The request id of the call being served, set by the logging interceptor. */
export const requestIdKey = createContextKey<string>("", { description: "request id" });

/** Header that carries the request id from the edge to every service it calls. */
export const REQUEST_ID_HEADER = "x-request-id";

/**
 * What a caller's id may look like to be kept: short, and nothing that could break out of a log
 * field or a header (quotes, spaces, control characters).
 */
const SAFE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * Keeps a caller's id when it is safe, otherwise makes one (a UUID); ids end up in logs and
 * headers. A repeated header (an array) is not one id, and gets a fresh one too.
 *
 * @example requestIdFrom(req.headers["x-request-id"]) // "client-7" or a new UUID
 */
export function requestIdFrom(value: string | string[] | null | undefined): string {
  return typeof value === "string" && SAFE_REQUEST_ID.test(value) ? value : randomUUID();
}
