import { isIPv4, isIPv6 } from "node:net";
import type { FastifyInstance } from "fastify";
import { errorBody, type HttpError } from "../errors/error-body.js";

/** The header a script (and the console and CLI) sends so a bodiless write is not a simple request. */
export const REQUEST_HEADER = "x-svc-request";

export interface RequestGuardOptions {
  /** SVC_AUTH_PROVIDER: local auth trusts whoever reaches the port, so every rule applies. */
  provider: "local" | "oidc";
  /** SVC_PUBLIC_URL: under OIDC, its host is the only Host served (unset: no Host rule). */
  publicUrl?: string;
}

/** What the guard sees of a request: no body (it runs before one is read). */
export interface GuardedRequest {
  method: string;
  /** The request target as sent (origin-form `/x`, or absolute-form `http://host/x`). */
  url: string;
  headers: Record<string, string | string[] | undefined>;
  /** The port the request came in on; undefined for an in-process inject (no socket). */
  localPort: number | undefined;
}

// Probes (a kubelet sends the pod's IP as Host) read nothing a rebinding page could use.
const PROBES = new Set(["/healthz", "/readyz"]);
const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);
// The Fetch standard's CORS-safelisted content types: a page sends these cross-origin without a
// preflight, so they prove nothing about who sent the request.
const SIMPLE_CONTENT_TYPES = new Set([
  "application/x-www-form-urlencoded",
  "multipart/form-data",
  "text/plain",
]);

/**
 * Why this request is refused at the edge, or undefined to serve it.
 *
 * Under local auth anyone who reaches the port acts as local|default with every scope and fresh
 * MFA, and a browser is such a someone on behalf of any page it shows. So: a Host that is not a
 * loopback name with the platform's port is refused (DNS rebinding: a page of evil.example whose
 * name now points at 127.0.0.1 sends its own Host); a write whose Origin (or, without one,
 * Sec-Fetch-Site) is another origin is refused; and a write a page could send without a
 * preflight (no content type or a form's, no custom header) is refused, for browsers that send
 * neither Origin nor Sec-Fetch-Site. Under OIDC a bearer token is not ambient; only the Host rule
 * applies, and only when SVC_PUBLIC_URL names the one host.
 */
export function refusalOf(req: GuardedRequest, opts: RequestGuardOptions): HttpError | undefined {
  const path = pathOf(req.url);
  const hostAllowed = (host: string) =>
    opts.provider === "local"
      ? isLoopbackHost(host, req.localPort)
      : opts.publicUrl === undefined || sameHost(host, new URL(opts.publicUrl).host);
  const local = opts.provider === "local";
  if (local || opts.publicUrl !== undefined) {
    if (!PROBES.has(path) || req.method !== "GET") {
      const host = single(req.headers.host) ?? "";
      if (!hostAllowed(host))
        return refused(
          "host_not_allowed",
          local
            ? `Host ${JSON.stringify(host)} is not this platform: under local auth it answers only to a loopback name or address (localhost, 127.0.0.1, [::1]) with its own port`
            : `Host ${JSON.stringify(host)} is not this platform's (SVC_PUBLIC_URL)`,
          { host },
        );
      const authority = absoluteFormAuthority(req.url);
      if (authority !== undefined && !hostAllowed(authority))
        return refused(
          "host_not_allowed",
          `the request target names host ${JSON.stringify(authority)}, which is not this platform`,
          { host: authority },
        );
    }
  }
  if (!local || SAFE_METHODS.has(req.method.toUpperCase())) return undefined;

  const origin = single(req.headers.origin);
  if (origin !== undefined) {
    if (!isOwnOrigin(origin, req.localPort))
      return refused(
        "origin_not_allowed",
        `a ${req.method} from origin ${JSON.stringify(origin)} is refused: under local auth only the platform's own pages (its console) may change state from a browser`,
        { origin },
      );
  } else {
    const site = single(req.headers["sec-fetch-site"])?.toLowerCase();
    if (site !== undefined && site !== "same-origin" && site !== "none")
      return refused(
        "origin_not_allowed",
        `a ${req.method} sent from another site (Sec-Fetch-Site: ${site}) is refused: under local auth only the platform's own pages may change state from a browser`,
        { sec_fetch_site: site },
      );
  }

  if (single(req.headers[REQUEST_HEADER]) === undefined && isSimpleContentType(req.headers))
    return refused(
      "request_header_required",
      `a ${req.method} must be sent as Content-Type: application/json or carry the header X-Svc-Request (any value), which a web page on another origin cannot send without the platform's consent`,
      { header: "X-Svc-Request" },
    );
  return undefined;
}

/** Refuses, before any body is read, what refusalOf says no to. */
export function registerRequestGuard(app: FastifyInstance, opts: RequestGuardOptions): void {
  if (opts.publicUrl !== undefined) new URL(opts.publicUrl); // a bad URL fails the start, not each request
  app.addHook("onRequest", async (req, reply) => {
    const refusal = refusalOf(
      {
        method: req.method,
        url: req.raw.url ?? "/",
        headers: req.headers,
        localPort: req.raw.socket?.localPort,
      },
      opts,
    );
    if (refusal) return reply.code(refusal.status).type("application/json").send(refusal.body);
  });
}

function refused(code: string, message: string, details: Record<string, string>): HttpError {
  return { status: 403, body: errorBody(code, message, details), headers: {} };
}

/** A header sent twice is not trusted as either value: it counts as a foreign one. */
const SENT_TWICE = "(sent more than once)";
function single(value: string | string[] | undefined): string | undefined {
  if (Array.isArray(value)) return value.length === 1 ? value[0] : SENT_TWICE;
  return value;
}

function pathOf(url: string): string {
  const authority = absoluteFormAuthority(url);
  const rest = authority === undefined ? url : url.replace(/^[a-z][a-z0-9+.-]*:\/\/[^/?#]*/i, "");
  return rest.split("?")[0] || "/";
}

/** The authority of an absolute-form request target (`POST http://evil.example/x HTTP/1.1`). */
function absoluteFormAuthority(url: string): string | undefined {
  if (url.startsWith("/") || url === "*") return undefined;
  const match = /^[a-z][a-z0-9+.-]*:\/\/([^/?#]*)/i.exec(url);
  // Anything else is neither origin- nor absolute-form: no authority to compare, refuse it.
  return match ? match[1] : "";
}

function isOwnOrigin(origin: string, port: number | undefined): boolean {
  // "null" (a sandboxed frame, a file: page, a redirect's opaque origin) is no one's origin.
  const match = /^http:\/\/([^/?#@]+)$/i.exec(origin);
  return !!match && isLoopbackHost(match[1]!, port);
}

/**
 * localhost (any case, with or without its trailing dot), 127.0.0.0/8 or ::1, followed by this
 * platform's port. A Host without a port means port 80. When the port is unknown (an in-process
 * inject, which no browser reaches), any port is taken.
 */
export function isLoopbackHost(host: string, port: number | undefined): boolean {
  const parsed = splitHost(host);
  if (!parsed) return false;
  if (port !== undefined && parsed.port !== port) return false;
  const name = parsed.name.toLowerCase();
  if (name === "localhost" || name === "localhost.") return true;
  if (name.startsWith("[") && name.endsWith("]")) {
    const ip = name.slice(1, -1);
    return isIPv6(ip) && isIPv6Loopback(ip);
  }
  return isIPv4(name) && name.startsWith("127.");
}

function isIPv6Loopback(ip: string): boolean {
  // ::1 in any of its spellings (0:0:0:0:0:0:0:1, 0::1); an IPv4-mapped 127.x is not taken.
  const halves = ip.split("::");
  if (halves.length > 2) return false;
  const groups = (s: string) => (s === "" ? [] : s.split(":"));
  const head = groups(halves[0]!);
  const tail = halves.length === 2 ? groups(halves[1]!) : [];
  const all =
    halves.length === 2
      ? [...head, ...Array(8 - head.length - tail.length).fill("0"), ...tail]
      : head;
  return (
    all.length === 8 &&
    all.every((g: string) => /^[0-9a-f]{1,4}$/.test(g)) &&
    all.slice(0, 7).every((g: string) => parseInt(g, 16) === 0) &&
    parseInt(all[7]!, 16) === 1
  );
}

function splitHost(host: string): { name: string; port: number } | undefined {
  const match = /^(\[[0-9a-f:.]+\]|[^:[\]]+)(?::(\d{1,5}))?$/i.exec(
    host.trim() === host ? host : "",
  );
  if (!match) return undefined;
  const port = match[2] === undefined ? 80 : Number(match[2]);
  if (port < 1 || port > 65_535) return undefined;
  return { name: match[1]!, port };
}

function sameHost(host: string, allowed: string): boolean {
  const norm = (h: string) => h.toLowerCase().replace(/\.(?=(:\d+)?$)/, "");
  return host !== "" && norm(host) === norm(allowed);
}

function isSimpleContentType(headers: GuardedRequest["headers"]): boolean {
  const type = single(headers["content-type"]);
  if (type === undefined) return true;
  const essence = type.split(";")[0]!.trim().toLowerCase();
  return essence === "" || SIMPLE_CONTENT_TYPES.has(essence);
}
