import { Code } from "@connectrpc/connect";
import type { ErrorCode } from "@svc/lib/errors";

/**
 * The one table from RPC codes to HTTP statuses (as grpc-gateway does it), so every service's
 * errors look the same at the edge.
 */
export const HTTP_STATUS_OF_CODE: Record<Code, number> = {
  [Code.Canceled]: 499,
  [Code.Unknown]: 500,
  [Code.InvalidArgument]: 400,
  [Code.DeadlineExceeded]: 504,
  [Code.NotFound]: 404,
  [Code.AlreadyExists]: 409,
  [Code.PermissionDenied]: 403,
  [Code.ResourceExhausted]: 429,
  [Code.FailedPrecondition]: 412,
  [Code.Aborted]: 409,
  [Code.OutOfRange]: 400,
  [Code.Unimplemented]: 501,
  [Code.Internal]: 500,
  [Code.Unavailable]: 503,
  [Code.DataLoss]: 500,
  [Code.Unauthenticated]: 401,
};

/**
 * Machine codes whose HTTP status the spec fixes differently from their RPC code's default:
 * a state conflict is 409 rather than 412, an expired promotion request is 410 Gone.
 */
export const HTTP_STATUS_OF_MACHINE_CODE: Partial<Record<ErrorCode, number>> = {
  invalid_transition: 409,
  evidence_retained: 409,
  results_unavailable: 409,
  dataset_too_large: 413,
  model_too_large: 413,
  request_expired: 410,
  // An organization invite revoked or past its date is gone; one already used is a conflict.
  invite_revoked: 410,
  invite_expired: 410,
  // A research chat with a trading bot (or a research tool on one): the bot's kind conflicts.
  bot_not_research: 409,
};

export function httpStatusFor(code: Code, machineCode: string): number {
  return HTTP_STATUS_OF_MACHINE_CODE[machineCode as ErrorCode] ?? HTTP_STATUS_OF_CODE[code] ?? 500;
}
