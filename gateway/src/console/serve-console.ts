import { fileURLToPath } from "node:url";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { Logger } from "@svc/lib/telemetry";
import { errorBody } from "../errors/error-body.js";
import { loadConsoleFiles, type ConsoleFile } from "./console-files.js";

/** Where `npm run build -w console` writes, from this file's place in the repository. */
export const DEFAULT_CONSOLE_DIR = fileURLToPath(new URL("../../../console/dist", import.meta.url));

/** The console's own URL space: its files and its client-side routes, never an API route. */
const PREFIX = "/console/";

// Everything the page loads is same-origin; styles may be inline because uPlot writes its own.
const CSP =
  "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; " +
  "frame-ancestors 'none'; base-uri 'none'; form-action 'self'";

/**
 * Serves the operator console, a folder of static files built by Vite: index.html at / and for
 * every client route under /console/ (no-cache, so a new build is picked up at once), the
 * hashed assets under /console/assets/ immutable for a year. API routes, /docs and
 * /openapi.json are never shadowed: the console only answers / and /console/*. The folder is
 * read once at start; without it those paths answer 501 with a page saying how to build it.
 */
export async function registerConsole(
  app: FastifyInstance,
  opts: { dir: string; log: Logger },
): Promise<void> {
  const files = await loadConsoleFiles(opts.dir);
  if (!files) {
    opts.log.warn(
      { console_dir: opts.dir },
      "the operator console is not built: / answers 501 until `npm run build -w console` writes it",
    );
    const notBuilt = (_req: FastifyRequest, reply: FastifyReply) =>
      reply
        .code(501)
        .header("cache-control", "no-cache")
        .type("text/html; charset=utf-8")
        .send(notBuiltPage(opts.dir));
    app.get("/", notBuilt);
    app.get("/console", notBuilt);
    app.get(`${PREFIX}*`, notBuilt);
    return;
  }
  const index = files.get("index.html")!;
  app.get("/", (req, reply) => send(req, reply, index));
  app.get("/console", (req, reply) => send(req, reply, index));
  app.get(`${PREFIX}*`, (req, reply) => {
    const path = decodeURIComponent(req.url.split("?")[0]!.slice(PREFIX.length));
    const file = files.get(path);
    if (file) return send(req, reply, file);
    // A missing asset is a 404 (a stale page asking for last build's file), never the HTML
    // page, which the browser would try to run as a script.
    if (path.startsWith("assets/") || /\.[a-z0-9]+$/i.test(path))
      return reply
        .code(404)
        .type("application/json")
        .send(errorBody("route_not_found", `the console has no file ${PREFIX}${path}`));
    return send(req, reply, index);
  });
}

function send(req: FastifyRequest, reply: FastifyReply, file: ConsoleFile) {
  reply
    .header("cache-control", file.immutable ? "public, max-age=31536000, immutable" : "no-cache")
    .header("etag", file.etag)
    .header("x-content-type-options", "nosniff")
    .header("vary", "accept-encoding")
    .type(file.type);
  if (file.type.startsWith("text/html")) reply.header("content-security-policy", CSP);
  if (req.headers["if-none-match"] === file.etag) return reply.code(304).send();
  const gzip = file.gzip && /\bgzip\b/.test(String(req.headers["accept-encoding"] ?? ""));
  if (gzip) reply.header("content-encoding", "gzip");
  return reply.send(gzip ? file.gzip : file.body);
}

function notBuiltPage(dir: string): string {
  const esc = (s: string) => s.replace(/[&<>"]/g, (c) => `&#${c.charCodeAt(0)};`);
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Console not built</title></head>
<body style="font: 16px/1.5 system-ui, sans-serif; margin: 2rem; max-width: 40rem">
<h1>The operator console is not built</h1>
<p>This platform serves the console from <code>${esc(dir)}</code>, which holds no build.
Build it once with</p>
<pre>npm run build -w console</pre>
<p>and restart the platform (<code>npm start</code> builds it by itself when it is missing).
The API is up: see <a href="/docs">/docs</a> and <a href="/openapi.json">/openapi.json</a>.</p>
</body></html>
`;
}
