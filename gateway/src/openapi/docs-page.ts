import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from "fastify";

/** Headers of the docs app's answer that the gateway's own reply sets for itself. */
const NOT_PASSED_ON = new Set(["content-length", "transfer-encoding", "connection", "date"]);

/**
 * Serves a page at /docs that renders the generated OpenAPI document (Swagger UI, its assets
 * served locally: the page works on an air-gapped install). Swagger UI's plugins and what they
 * load (a static file server, a YAML library) cost about a tenth of the platform's start, for a
 * page few starts ever open: they load on the first request under /docs, into an app of their
 * own that the gateway's /docs routes hand each request to. The document is asked for then too.
 */
export function registerDocs(app: FastifyInstance, document: () => Record<string, unknown>): void {
  let docsApp: Promise<FastifyInstance> | undefined;
  const forward = async (req: FastifyRequest, reply: FastifyReply) => {
    docsApp ??= buildDocsApp(document()).catch((err: unknown) => {
      // A failed load (a file missing from node_modules) is tried again by the next request.
      docsApp = undefined;
      throw err;
    });
    const res = await (
      await docsApp
    ).inject({
      method: req.method as "GET" | "HEAD",
      url: req.url,
      headers: req.headers,
    });
    // Not the docs app's own 404 body: the gateway's, like any other unknown path.
    if (res.statusCode === 404) return reply.callNotFound();
    const head = req.method === "HEAD";
    for (const [name, value] of Object.entries(res.headers))
      if (value !== undefined && (!NOT_PASSED_ON.has(name) || (head && name === "content-length")))
        reply.header(name, value);
    reply.code(res.statusCode);
    // An empty answer (a redirect, a HEAD) stays without a body or a content type of its own.
    return res.rawPayload.length > 0 ? reply.send(res.rawPayload) : reply.send();
  };
  app.route({ method: ["GET", "HEAD"], url: "/docs", handler: forward, exposeHeadRoute: false });
  app.route({ method: ["GET", "HEAD"], url: "/docs/*", handler: forward, exposeHeadRoute: false });
}

async function buildDocsApp(document: Record<string, unknown>): Promise<FastifyInstance> {
  const [{ default: swagger }, { default: swaggerUi }] = await Promise.all([
    import("@fastify/swagger"),
    import("@fastify/swagger-ui"),
  ]);
  const docs = Fastify({ logger: false });
  await docs.register(swagger, { mode: "static", specification: { document: document as never } });
  await docs.register(swaggerUi, { routePrefix: "/docs" });
  await docs.ready();
  return docs;
}
