import { DeadlineExceeded } from "../deadline/index.js";

// SQLSTATEs of a database that could not do the work now, though the request was fine: a
// statement or lock wait past its deadline, a deadlock or serialization loss (the other side
// won), a server shutting down or refusing connections, a connection that failed or was lost.
// Not the whole of class 08: 08P01 (protocol violation) is our bug, such as more bind
// parameters than the protocol carries, and must stay a 500 rather than "retry" for ever.
const OUTAGE_SQLSTATES = new Set([
  "57014",
  "55P03",
  "40P01",
  "40001",
  "57P01",
  "57P02",
  "57P03",
  "53300",
  "08000",
  "08001",
  "08003",
  "08004",
  "08006",
]);
// What node-postgres and its pool throw, with no SQLSTATE, when the server does not answer.
const PG_CLIENT_OUTAGES = [
  "timeout exceeded when trying to connect",
  "Query read timeout",
  "Connection terminated",
  "Client has encountered a connection error",
];
// What node-redis throws when Redis is down, hung or the connection was lost (matched by class
// name, so this module does not load the client where no Redis is configured).
const REDIS_CLIENT_OUTAGES = new Set([
  "ClientOfflineError",
  "ClientClosedError",
  "ConnectionTimeoutError",
  "SocketTimeoutError",
  "SocketClosedUnexpectedlyError",
  "TimeoutError",
]);
const SOCKET_OUTAGES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ETIMEDOUT",
  "EPIPE",
  "EHOSTUNREACH",
]);

/**
 * Whether an error says a store (the database, the key-value store, the bus) did not answer in
 * time or could not serve now: the caller should try again, so it is a 503, never a 500.
 *
 * @example isStoreOutage(new Error("Query read timeout")) // true
 */
export function isStoreOutage(err: unknown): boolean {
  if (err instanceof DeadlineExceeded) return true;
  const e = err as { code?: unknown; message?: unknown; cause?: unknown } | null;
  if (!e || typeof e !== "object") return false;
  const code = typeof e.code === "string" ? e.code : undefined;
  if (code && (OUTAGE_SQLSTATES.has(code) || SOCKET_OUTAGES.has(code))) return true;
  if (REDIS_CLIENT_OUTAGES.has(err!.constructor.name)) return true;
  const message = typeof e.message === "string" ? e.message : "";
  if (PG_CLIENT_OUTAGES.some((m) => message.startsWith(m))) return true;
  return e.cause !== undefined && e.cause !== err && isStoreOutage(e.cause);
}
