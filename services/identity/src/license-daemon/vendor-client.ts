/** What the vendor's API answered, reduced to what the daemon decides on. */
export type VendorAnswer<T> =
  | { ok: true; value: T }
  | { ok: false; unreachable: true; why: string }
  | { ok: false; unreachable: false; status: number; code: string; message: string };

const DEADLINE_MS = 10_000;

/**
 * The two calls a holder makes to the vendor: fetch the public keys and renew the lease. A
 * network failure, a deadline or a 5xx is "unreachable" (retried with backoff); a 4xx is an answer.
 */
export function createVendorClient(baseUrl: string) {
  const base = baseUrl.replace(/\/+$/, "");
  async function send<T>(path: string, init: RequestInit = {}): Promise<VendorAnswer<T>> {
    let res: Response;
    try {
      res = await fetch(`${base}${path}`, { ...init, signal: AbortSignal.timeout(DEADLINE_MS) });
    } catch (err) {
      const cause = (err as { cause?: { code?: string } }).cause?.code;
      return { ok: false, unreachable: true, why: cause ?? (err as Error).message };
    }
    const text = await res.text();
    if (res.status >= 500 && res.status !== 501)
      return { ok: false, unreachable: true, why: `HTTP ${res.status}: ${text.slice(0, 200)}` };
    let body: { error?: { code?: string; message?: string } } & Record<string, unknown> = {};
    try {
      body = JSON.parse(text);
    } catch {
      // A proxy's HTML page: reported as it came.
    }
    if (!res.ok)
      return {
        ok: false,
        unreachable: false,
        status: res.status,
        code: body.error?.code ?? `http_${res.status}`,
        message: body.error?.message ?? text.slice(0, 200),
      };
    return { ok: true, value: body as T };
  }
  return {
    publicKeys: () =>
      send<{ keys?: Array<{ public_key_id: string; public_key: string }> }>(
        "/auth/license/public-key",
      ),
    renew: (body: { deployment_id: string; renew_lease_id: string; device_credential: string }) =>
      send<{ lease: string }>("/auth/license/leases", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(body),
      }),
  };
}
export type VendorClient = ReturnType<typeof createVendorClient>;
