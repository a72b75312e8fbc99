/** The routes that, called together, act as the platform-scope kill switch (the spec's fan-out). */
export const FAN_OUT_ROUTES = [
  "/agents/halt",
  "/quant-agents/halt",
  "/paper/stop-all",
  "/bots/halt-all",
  "/rl/halt-all",
  "/workflows/halt",
] as const;

export interface RouteResult {
  route: string;
  /** 0 when the route gave no answer. */
  status: number;
  summary: string;
  /** The route's JSON answer, as served (absent when it gave none). */
  body?: unknown;
}

/**
 * Calls every halt route in parallel, as the operator console does, and reports each answer;
 * one failing route never stops the others, and none waits past `timeoutMs`.
 */
export async function haltAll(
  base: string,
  headers: Record<string, string>,
  reason: string,
  timeoutMs = 30_000,
): Promise<RouteResult[]> {
  return Promise.all(
    FAN_OUT_ROUTES.map(async (route) => {
      try {
        const res = await fetch(`${base}${route}`, {
          method: "POST",
          headers: { ...headers, "content-type": "application/json" },
          body: JSON.stringify({ reason }),
          signal: AbortSignal.timeout(timeoutMs),
        });
        const body = (await res.json().catch(() => ({}))) as Record<string, unknown> & {
          error?: { code: string; message: string };
        };
        const summary = res.ok
          ? `halted ${body.halted ?? 0} (${body.scope ?? body.work_class ?? ""})`
          : `${body.error?.code ?? "error"}: ${body.error?.message ?? res.statusText}`;
        return { route, status: res.status, summary, body };
      } catch (err) {
        const e = err as Error & { cause?: { code?: string } };
        const why =
          e.name === "TimeoutError"
            ? `no answer within ${timeoutMs / 1000} s`
            : (e.cause?.code ?? e.message);
        return { route, status: 0, summary: `unreachable: ${base} (${why})` };
      }
    }),
  );
}
