/**
 * Domain errors with a stable machine code. Services throw them; the RPC boundary carries the code
 * in an `ErrorDetail`, and the gateway turns the Connect code into the spec's HTTP status.
 *
 * @example
 *   throw svcError(Code.NotFound, "bot_not_found", `no bot with id or slug "${ref}"`, { bot_ref: ref });
 */
import type { JsonObject } from "@bufbuild/protobuf";
import { Code, ConnectError } from "@connectrpc/connect";
import { ErrorDetailSchema, type ErrorDetail } from "@svc/gen/svc/api/v1/errors_pb.js";
import type { ErrorCode } from "./codes.js";

export { Code, ConnectError };
export { ERROR_CODES, type ErrorCode } from "./codes.js";
export { isStoreOutage } from "./store-outage.js";

export interface SvcErrorOptions {
  /** Extra response headers the spec names (WWW-Authenticate, X-Service-License-Status). */
  headers?: Record<string, string>;
  /** The underlying error, kept for logs and never shown to callers. */
  cause?: unknown;
}

/** Builds a ConnectError carrying `code` (the machine code) and `details` in an ErrorDetail. */
export function svcError(
  connectCode: Code,
  code: ErrorCode,
  message: string,
  details: JsonObject = {},
  options: SvcErrorOptions = {},
): ConnectError {
  const metadata = new Headers(options.headers ?? {});
  return new ConnectError(
    message,
    connectCode,
    metadata,
    [{ desc: ErrorDetailSchema, value: { code, details } }],
    options.cause,
  );
}

/** The machine code and details of an error, or a generic code derived from the Connect code. */
export function errorDetailOf(err: ConnectError): { code: string; details: JsonObject } {
  const found = err.findDetails(ErrorDetailSchema)[0] as ErrorDetail | undefined;
  if (found) return { code: found.code, details: found.details ?? {} };
  return { code: defaultCodeName(err.code), details: {} };
}

function defaultCodeName(code: Code): string {
  const name = Code[code] ?? "unknown";
  return name.replace(/([a-z])([A-Z])/g, "$1_$2").toLowerCase();
}

/** Shorthand for the most common 400: a field is wrong; the message says how to fix it. */
export function invalidField(field: string, message: string, extra: JsonObject = {}): ConnectError {
  return svcError(Code.InvalidArgument, "invalid_argument", message, { field, ...extra });
}
