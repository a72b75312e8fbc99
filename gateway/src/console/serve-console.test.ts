import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Fastify, { type FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createLogger } from "@svc/lib/telemetry";
import { registerConsole } from "./serve-console.js";

const log = createLogger({ name: "test", level: "silent" });

async function serve(dir: string): Promise<FastifyInstance> {
  const app = Fastify();
  // What the gateway registers beside the console: an API route must never be shadowed.
  app.get("/bots", async () => ({ items: [] }));
  await registerConsole(app, { dir, log });
  await app.ready();
  return app;
}

describe("the console's static files", () => {
  const dir = mkdtempSync(join(tmpdir(), "console-dist-"));
  let app: FastifyInstance;
  const js = `console.log(${JSON.stringify("x".repeat(4000))});`;
  beforeAll(async () => {
    mkdirSync(join(dir, "assets"));
    writeFileSync(join(dir, "index.html"), "<!doctype html><title>svc console</title>");
    writeFileSync(join(dir, "assets", "index-abc123.js"), js);
    writeFileSync(join(dir, "assets", "index-abc123.css"), "body{color:#111}");
    app = await serve(dir);
  });
  afterAll(async () => {
    await app.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("serves index.html at / and for client routes, never cached stale", async () => {
    for (const url of ["/", "/console", "/console/bots/alpha", "/console/approvals"]) {
      const res = await app.inject({ url });
      expect(res.statusCode, url).toBe(200);
      expect(res.headers["content-type"]).toBe("text/html; charset=utf-8");
      expect(res.headers["cache-control"]).toBe("no-cache");
      expect(res.headers["content-security-policy"]).toContain("default-src 'self'");
      expect(res.body).toContain("svc console");
    }
  });

  it("serves hashed assets immutable, with their type, gzipped when asked, 304 on a match", async () => {
    const res = await app.inject({ url: "/console/assets/index-abc123.js" });
    expect(res.headers["content-type"]).toBe("text/javascript; charset=utf-8");
    expect(res.headers["cache-control"]).toBe("public, max-age=31536000, immutable");
    expect(res.body).toBe(js);
    const gz = await app.inject({
      url: "/console/assets/index-abc123.js",
      headers: { "accept-encoding": "gzip, br" },
    });
    expect(gz.headers["content-encoding"]).toBe("gzip");
    expect(gz.rawPayload.length).toBeLessThan(js.length / 10);
    const again = await app.inject({
      url: "/console/assets/index-abc123.js",
      headers: { "if-none-match": String(res.headers.etag) },
    });
    expect(again.statusCode).toBe(304);
    const css = await app.inject({ url: "/console/assets/index-abc123.css" });
    expect(css.headers["content-type"]).toBe("text/css; charset=utf-8");
  });

  it("answers a missing asset 404 in the API's error shape, not with the page", async () => {
    const res = await app.inject({ url: "/console/assets/index-old.js" });
    expect(res.statusCode).toBe(404);
    expect(res.json().error.code).toBe("route_not_found");
  });

  it("leaves API routes alone", async () => {
    const res = await app.inject({ url: "/bots" });
    expect(res.json()).toEqual({ items: [] });
  });
});

describe("a console that was not built", () => {
  it("answers 501 with a page saying how to build it", async () => {
    const app = await serve(join(tmpdir(), "no-such-console-dist"));
    const res = await app.inject({ url: "/" });
    expect(res.statusCode).toBe(501);
    expect(res.headers["content-type"]).toBe("text/html; charset=utf-8");
    expect(res.body).toContain("npm run build -w console");
    expect((await app.inject({ url: "/console/bots/x" })).statusCode).toBe(501);
    await app.close();
  });
});
