import { randomUUID } from "node:crypto";
import { createContextKey } from "@connectrpc/connect";

/** The request id of the call being served, set by the logging interceptor. */
export const requestIdKey = createContextKey<string>("", { description: "request id" });

/** Header that carries the request id from the edge to every service it calls. */
export const REQUEST_ID_HEADER = "x-request-id";

/** Keeps a caller's id when it is sane, otherwise makes one; ids end up in logs and headers. */
export function requestIdFrom(value: string | null | undefined): string {
  return value && /^[A-Za-z0-9._:-]{1,128}$/.test(value) ? value : randomUUID();
}
