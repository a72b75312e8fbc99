import { Code, type ConnectError, svcError } from "../errors/index.js";
import { kubernetesClient } from "./library.js";

/** The HTTP status and Status message of an API server refusal, or undefined for anything else. */
export function refusalOf(err: unknown): { status: number; message: string } | undefined {
  if (!(err instanceof kubernetesClient().ApiException)) return undefined;
  let body: unknown = err.body;
  if (typeof body === "string") {
    try {
      body = JSON.parse(body);
    } catch {
      // a proxy's HTML or plain-text answer: shown as it is
    }
  }
  const message =
    typeof body === "object" && body && "message" in body
      ? String((body as { message: unknown }).message)
      : typeof body === "string" && body
        ? body.slice(0, 300)
        : "no message";
  return { status: err.code, message };
}

/**
 * What a failed call to the API server means to a caller: a refusal (401, 403, 404, 409, 422...)
 * is `kubernetes_refused` (412) with the API server's own message and status; no answer within
 * the deadline, or no connection, is `kubernetes_unreachable` (503, Retry-After 5).
 */
export function kubeError(
  err: unknown,
  what: string,
  apiUrl: string,
  timeoutMs: number,
): ConnectError {
  const refused = refusalOf(err);
  if (refused)
    return svcError(
      Code.FailedPrecondition,
      "kubernetes_refused",
      `the Kubernetes API server refused ${what} (${refused.status}): ${refused.message}`,
      { status: refused.status },
      { cause: err },
    );
  return svcError(
    Code.Unavailable,
    "kubernetes_unreachable",
    `the Kubernetes API server at ${apiUrl} did not answer ${what} within ${timeoutMs} ms or cannot be reached`,
    {},
    { cause: err, headers: { "retry-after": "5" } },
  );
}
