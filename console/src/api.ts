import { session, stepUpFrom, type StepUp } from "./session.js";

/** An answer that is not 2xx, in the platform's one error shape. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details: Record<string, unknown> = {},
    readonly stepUp?: StepUp,
  ) {
    super(message);
  }
}

/** How long one call may take before the console says so (the gateway's own deadline is 30 s). */
const DEADLINE_MS = 20_000;

/**
 * One call to the platform, same origin, JSON in and out. The token (OIDC) or the act-as user
 * (local auth) goes with every call; an error body becomes an ApiError naming its code.
 */
export async function api<T>(method: string, path: string, body?: unknown): Promise<T> {
  // X-Svc-Request: the gateway refuses a write without it or a JSON body under local auth, since
  // a page on another origin can send neither without a preflight (docs/api-guide.md).
  const headers: Record<string, string> = {
    accept: "application/json",
    "x-svc-request": "console",
  };
  const token = session.token();
  if (token) headers.authorization = `Bearer ${token}`;
  const actAs = session.actAs();
  if (actAs && !token) headers["x-svc-local-user"] = actAs;
  if (body !== undefined) headers["content-type"] = "application/json";
  let res: Response;
  try {
    res = await fetch(path, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(DEADLINE_MS),
    });
  } catch (err) {
    const timedOut = (err as Error).name === "TimeoutError";
    throw new ApiError(
      0,
      timedOut ? "timeout" : "unreachable",
      timedOut
        ? `${method} ${path} did not answer within ${DEADLINE_MS / 1000} s`
        : `the platform did not answer ${method} ${path}: ${(err as Error).message}`,
    );
  }
  const text = await res.text();
  let json: unknown;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    json = undefined;
  }
  if (res.ok) return json as T;
  const error = (json as { error?: { code?: string; message?: string; details?: object } })?.error;
  throw new ApiError(
    res.status,
    error?.code ?? `http_${res.status}`,
    error?.message ?? (text.slice(0, 200) || res.statusText),
    (error?.details as Record<string, unknown>) ?? {},
    res.status === 401 ? stepUpFrom(res.headers.get("www-authenticate")) : undefined,
  );
}

/** A path segment, escaped. */
export const seg = (s: string) => encodeURIComponent(s);
