import { createRequire } from "node:module";
import Fastify, { type FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { registerDocs } from "./docs-page.js";

const swaggerUiEntry = createRequire(import.meta.url).resolve("@fastify/swagger-ui");
const loaded = () => Object.keys(createRequire(import.meta.url).cache).includes(swaggerUiEntry);
const DOCUMENT = { openapi: "3.1.0", info: { title: "svc", version: "1" }, paths: {} };

describe("the /docs page", () => {
  let app: FastifyInstance;
  let documentAsked = 0;
  beforeAll(async () => {
    app = Fastify();
    app.setNotFoundHandler((_req, reply) => reply.code(404).send({ error: "gateway 404" }));
    registerDocs(app, () => (documentAsked++, DOCUMENT));
    await app.ready();
  });
  afterAll(() => app.close());

  it("loads Swagger UI and builds the document only when a page under /docs is asked for", async () => {
    // A start that never opens /docs does not pay for them.
    expect(loaded()).toBe(false);
    expect(documentAsked).toBe(0);
    const page = await app.inject({ url: "/docs/" });
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain("swagger");
    expect(loaded()).toBe(true);
    await app.inject({ url: "/docs/json" });
    expect(documentAsked).toBe(1);
  });

  it("serves the document, the assets and their redirects as Swagger UI answers them", async () => {
    expect((await app.inject({ url: "/docs/json" })).json()).toEqual(DOCUMENT);
    const css = await app.inject({ url: "/docs/static/swagger-ui.css" });
    expect(css.statusCode).toBe(200);
    expect(css.headers["content-type"]).toBe("text/css; charset=utf-8");
    const again = await app.inject({
      url: "/docs/static/swagger-ui.css",
      headers: { "if-none-match": String(css.headers.etag) },
    });
    expect(again.statusCode).toBe(304);
    const head = await app.inject({ method: "HEAD", url: "/docs/static/swagger-ui.css" });
    expect(head.headers["content-length"]).toBe(css.headers["content-length"]);
    const redirect = await app.inject({ url: "/docs/static/index.html" });
    expect(redirect.statusCode).toBe(302);
    expect(redirect.headers.location).toBe("/docs/");
    expect(redirect.headers["content-type"]).toBeUndefined();
  });

  it("answers an unknown path under /docs with the gateway's own 404", async () => {
    const res = await app.inject({ url: "/docs/static/nope.js" });
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual({ error: "gateway 404" });
  });
});
