import type { JsonObject } from "@bufbuild/protobuf";
import { Code, ConnectError } from "@connectrpc/connect";
import { errorDetailOf } from "@svc/lib/errors";
import { httpStatusFor } from "./http-status.js";
import { isBackendUnreachable } from "./unreachable.js";

/** The one error body of the API: `{"error": {"code", "message", "details"}}`. */
export interface ErrorBody {
  error: { code: string; message: string; details: JsonObject };
}

/** Response headers an error may carry from a service to the caller, as the spec names them. */
const PASSED_THROUGH = ["www-authenticate", "x-service-license-status", "retry-after"];

export interface HttpError {
  status: number;
  body: ErrorBody;
  headers: Record<string, string>;
}

export function errorBody(code: string, message: string, details: JsonObject = {}): ErrorBody {
  return { error: { code, message, details } };
}

/**
 * How long a caller is told to wait when a service is down or unreachable and said nothing
 * itself: about what a supervisor or Kubernetes takes to start it again.
 */
export const UNAVAILABLE_RETRY_AFTER_S = "1";

/**
 * Maps a ConnectError from a service onto the HTTP answer; internals never pass. A service that
 * is unreachable (connection refused or reset, the transport's Unavailable) or says it is
 * unavailable is a 503 with Retry-After, so a client retries instead of giving up on a 5xx.
 */
export function httpErrorFromConnect(err: ConnectError): HttpError {
  if (isBackendUnreachable(err))
    return {
      status: 503,
      body: errorBody(
        "service_unavailable",
        "the service behind this route did not answer (it is down or restarting); retry in a moment. A write cut off this way was made whole or not at all: read it back, or send it again with the same request id where the route takes one",
      ),
      headers: { "retry-after": UNAVAILABLE_RETRY_AFTER_S },
    };
  const { code, details } = errorDetailOf(err);
  const status = httpStatusFor(err.code, code);
  const headers: Record<string, string> = {};
  for (const name of PASSED_THROUGH) {
    const value = err.metadata.get(name);
    if (value) headers[name] = value;
  }
  if (err.code === Code.Unavailable && !headers["retry-after"])
    headers["retry-after"] = UNAVAILABLE_RETRY_AFTER_S;
  const hidden =
    err.code === Code.Internal || err.code === Code.Unknown || err.code === Code.DataLoss;
  const message = hidden
    ? "internal error; the request id in the x-request-id header finds it in the logs"
    : err.rawMessage;
  return { status, body: errorBody(code, message, hidden ? {} : details), headers };
}
