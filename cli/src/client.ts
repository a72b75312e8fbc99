/** The platform's answer to a call it refused: its status and the error body's code and message. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details: unknown = undefined,
  ) {
    super(message);
  }
}

/** No answer at all: the URL is named, since a wrong --url is the usual cause. */
export class Unreachable extends Error {
  constructor(
    readonly url: string,
    why: string,
  ) {
    super(`cannot reach the platform at ${url}: ${why}`);
  }
}

export interface ClientOptions {
  url: string;
  /** A bearer token (OIDC mode). */
  token?: string;
  /** Acts as this local user (local auth's x-svc-local-user). */
  as?: string;
  /** Deadline of each call, in milliseconds. */
  timeoutMs: number;
}

/** A JSON client of the public API: one deadline per call, the error body turned into ApiError. */
export class Api {
  readonly base: string;
  readonly headers: Record<string, string>;
  constructor(readonly options: ClientOptions) {
    this.base = options.url.replace(/\/+$/, "");
    this.headers = {
      // Under local auth the gateway refuses a write that is neither JSON nor marked as a
      // script's (a web page's cross-site form or fetch can be neither): the CLI marks every call.
      "x-svc-request": "cli",
      ...(options.token ? { authorization: `Bearer ${options.token}` } : {}),
      ...(options.as ? { "x-svc-local-user": options.as } : {}),
    };
  }

  get<T>(path: string): Promise<T> {
    return this.call<T>("GET", path);
  }

  /**
   * Every page of a list route, following next_page_token (1,000 a page): the items of all of
   * them in one answer shaped as the route's own, with next_page_token empty and a flag that any
   * page raised (key_store_unreachable) kept raised.
   *
   * @example
   *   const { items } = await api.all<Items<BotSummary>>("/bots?status=draft");
   */
  async all<T extends { items: unknown[]; next_page_token?: string }>(path: string): Promise<T> {
    const join = path.includes("?") ? "&" : "?";
    let merged: T | undefined;
    let token = "";
    do {
      const q = new URLSearchParams({ limit: "1000", ...(token ? { page_token: token } : {}) });
      const page = await this.get<T>(`${path}${join}${q.toString()}`);
      if (!merged) merged = page;
      else {
        merged.items.push(...page.items);
        for (const [k, v] of Object.entries(page as Record<string, unknown>))
          if (v === true) (merged as Record<string, unknown>)[k] = true;
      }
      token = page.next_page_token ?? "";
    } while (token);
    merged.next_page_token = "";
    return merged;
  }

  post<T>(path: string, body: unknown = {}): Promise<T> {
    return this.call<T>("POST", path, body);
  }

  put<T>(path: string, body: unknown): Promise<T> {
    return this.call<T>("PUT", path, body);
  }

  delete<T>(path: string): Promise<T> {
    return this.call<T>("DELETE", path);
  }

  async call<T>(method: string, path: string, body?: unknown): Promise<T> {
    const url = `${this.base}${path}`;
    let res: Response;
    let text: string;
    try {
      res = await fetch(url, {
        method,
        headers: {
          ...this.headers,
          ...(body === undefined ? {} : { "content-type": "application/json" }),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(this.options.timeoutMs),
      });
      text = await res.text();
    } catch (err) {
      throw new Unreachable(this.base, whyUnreachable(err, this.options.timeoutMs));
    }
    const parsed = parseJson(text);
    if (res.ok) return parsed as T;
    const error = (parsed as { error?: { code?: string; message?: string; details?: unknown } })
      ?.error;
    if (error?.code) throw new ApiError(res.status, error.code, error.message ?? "", error.details);
    // Not the platform's error body (a proxy's page, another server on that port).
    throw new ApiError(
      res.status,
      `http_${res.status}`,
      text.trim().slice(0, 300) || res.statusText,
    );
  }
}

function parseJson(text: string): unknown {
  if (!text) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function whyUnreachable(err: unknown, timeoutMs: number): string {
  const e = err as Error & { cause?: { code?: string; message?: string } };
  if (e.name === "TimeoutError" || e.name === "AbortError")
    return `no answer within ${timeoutMs / 1000} s (--timeout)`;
  return e.cause?.code ?? e.cause?.message ?? e.message;
}
