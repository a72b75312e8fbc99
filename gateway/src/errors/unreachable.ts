import { Code, ConnectError } from "@connectrpc/connect";
import { ErrorDetailSchema } from "@svc/gen/svc/api/v1/errors_pb.js";

/** Node's codes for a peer that refused, dropped or never answered a connection. */
const CONNECTION_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "EPIPE",
  "ETIMEDOUT",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "EAI_AGAIN",
]);

/**
 * Whether an error is the transport's, not the service's: the service never answered (it is
 * down, restarting, or died mid-request). Connect maps a reset connection to Aborted and a
 * refused one to Unavailable, and a process that dies with the call's HTTP/2 stream open closes
 * it with CANCEL, which Connect reports as Canceled although nobody cancelled; in every case the
 * service sent no error detail of its own. Such an answer is a 503 with Retry-After at the edge,
 * never a 409, 499 or 500 that would tell a client the request itself was at fault. (A caller
 * that really went away never reads the 503.)
 */
export function isBackendUnreachable(err: ConnectError): boolean {
  if (err.findDetails(ErrorDetailSchema).length > 0) return false;
  if (err.code === Code.Unavailable || err.code === Code.Canceled) return true;
  if (/http\/2 stream closed with error code/.test(err.rawMessage)) return true;
  const cause = err.cause as { code?: unknown } | undefined;
  if (typeof cause?.code === "string")
    return CONNECTION_CODES.has(cause.code) || cause.code.startsWith("ERR_HTTP2_");
  return /\b(ECONNRESET|ECONNREFUSED|EPIPE)\b/.test(err.rawMessage);
}
