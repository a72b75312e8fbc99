import { request } from "node:http";
import type { AddressInfo } from "node:net";
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createLogger } from "@svc/lib/telemetry";
import { createGateway } from "../create-gateway.js";
import { isLoopbackHost, refusalOf, type GuardedRequest } from "./request-guard.js";

const PORT = 8080;
const LOCAL = { provider: "local" } as const;

/** A write as an attacker's page (or a script) would send it to the platform on PORT. */
const req = (over: Partial<GuardedRequest> & { headers?: GuardedRequest["headers"] }) => ({
  method: "POST",
  url: "/bots/halt-all",
  localPort: PORT,
  ...over,
  headers: { host: `127.0.0.1:${PORT}`, ...over.headers },
});
const codeOf = (r: GuardedRequest, opts: Parameters<typeof refusalOf>[1] = LOCAL) =>
  refusalOf(r, opts)?.body.error.code;

describe("under local auth, the Host a request names", () => {
  it.each([
    "localhost:8080",
    "LOCALHOST:8080",
    "localhost.:8080",
    "127.0.0.1:8080",
    "127.8.9.10:8080",
    "[::1]:8080",
    "[0:0:0:0:0:0:0:1]:8080",
  ])("%s is the platform", (host) => {
    expect(isLoopbackHost(host, PORT)).toBe(true);
  });

  it.each([
    ["a rebound name", "evil.example:8080"],
    ["a name ending in localhost", "evil-localhost:8080"],
    ["a subdomain look-alike", "localhost.evil.example:8080"],
    ["a Unicode look-alike", "lοcalhost:8080"],
    ["another port", "127.0.0.1:8081"],
    ["no port (port 80)", "localhost"],
    ["an empty Host", ""],
    ["a LAN address", "192.168.1.5:8080"],
    ["0.0.0.0", "0.0.0.0:8080"],
    ["an IPv4-mapped loopback", "[::ffff:127.0.0.1]:8080"],
    ["a decimal address", "2130706433:8080"],
    ["a NUL byte", "localhost\u0000.evil.example:8080"],
    ["credentials", "evil@localhost:8080"],
    ["a port out of range", "localhost:99999"],
  ])("%s (%s) is refused, on reads too", (_why, host) => {
    expect(codeOf(req({ method: "GET", url: "/bots", headers: { host } }))).toBe(
      "host_not_allowed",
    );
  });

  it("refuses an absolute-form target naming another host, whatever the Host header says", () => {
    expect(
      codeOf(
        req({ url: "http://evil.example:8080/bots/halt-all", headers: { "x-svc-request": "1" } }),
      ),
    ).toBe("host_not_allowed");
    expect(
      codeOf(
        req({ url: "http://127.0.0.1:8080/bots/halt-all", headers: { "x-svc-request": "1" } }),
      ),
    ).toBeUndefined();
  });

  it("refuses a Host header sent twice", () => {
    expect(
      codeOf(req({ headers: { host: ["127.0.0.1:8080", "evil.example"], "x-svc-request": "1" } })),
    ).toBe("host_not_allowed");
  });

  it("lets a probe read /healthz under any Host (a kubelet sends the pod's address)", () => {
    expect(
      codeOf(req({ method: "GET", url: "/healthz", headers: { host: "10.1.2.3:8080" } })),
    ).toBeUndefined();
    expect(codeOf(req({ url: "/healthz", headers: { host: "10.1.2.3:8080" } }))).toBe(
      "host_not_allowed",
    );
  });
});

describe("under local auth, a write from a browser", () => {
  it.each([
    ["another loopback port", "http://127.0.0.1:9999"],
    ["another site", "https://evil.example"],
    ["an opaque origin (sandboxed frame, file:)", "null"],
    ["https on the same port", "https://127.0.0.1:8080"],
    ["a rebound name on the same port", "http://evil.example:8080"],
  ])("from %s is refused even with a JSON body", (_why, origin) => {
    expect(codeOf(req({ headers: { origin, "content-type": "application/json" } }))).toBe(
      "origin_not_allowed",
    );
  });

  it.each(["cross-site", "same-site"])(
    "without Origin but with Sec-Fetch-Site: %s is refused",
    (site) => {
      expect(codeOf(req({ headers: { "sec-fetch-site": site, "x-svc-request": "1" } }))).toBe(
        "origin_not_allowed",
      );
    },
  );

  it("from the platform's own console (its own origin, under any loopback name) is served", () => {
    for (const origin of ["http://127.0.0.1:8080", "http://localhost:8080", "http://[::1]:8080"])
      expect(
        codeOf(
          req({ headers: { origin, "sec-fetch-site": "same-origin", "x-svc-request": "console" } }),
        ),
      ).toBeUndefined();
  });

  it.each([
    ["no content type", {}],
    ["a form's urlencoded body", { "content-type": "application/x-www-form-urlencoded" }],
    ["a form's multipart body", { "content-type": "multipart/form-data; boundary=x" }],
    ["a text/plain body", { "content-type": "TEXT/PLAIN; charset=utf-8" }],
  ])("that a page could send without a preflight (%s) is refused", (_why, headers) => {
    for (const method of ["POST", "PUT", "PATCH", "DELETE"])
      expect(codeOf(req({ method, headers }))).toBe("request_header_required");
  });

  it("is served as JSON, as raw CSV (both need a preflight cross-origin) or with X-Svc-Request", () => {
    for (const headers of [
      { "content-type": "application/json" },
      { "content-type": "application/json; charset=utf-8" },
      { "content-type": "text/csv" },
      { "x-svc-request": "1" },
    ])
      expect(codeOf(req({ headers }))).toBeUndefined();
  });

  it("reads need neither (GET, HEAD, OPTIONS change nothing)", () => {
    for (const method of ["GET", "HEAD", "OPTIONS"])
      expect(
        codeOf(req({ method, url: "/bots", headers: { origin: "https://evil.example" } })),
      ).toBeUndefined();
  });
});

describe("under OIDC", () => {
  const oidc = { provider: "oidc", publicUrl: "https://svc.example.com" } as const;

  it("serves any Host when SVC_PUBLIC_URL is unset, and no Origin rule applies (tokens are not ambient)", () => {
    expect(
      codeOf(req({ headers: { host: "evil.example", origin: "https://evil.example" } }), {
        provider: "oidc",
      }),
    ).toBeUndefined();
  });

  it("serves only SVC_PUBLIC_URL's host when it is set", () => {
    expect(codeOf(req({ headers: { host: "svc.example.com" } }), oidc)).toBeUndefined();
    expect(codeOf(req({ headers: { host: "SVC.example.com." } }), oidc)).toBeUndefined();
    expect(codeOf(req({ headers: { host: "evil.example" } }), oidc)).toBe("host_not_allowed");
    expect(codeOf(req({ headers: { host: "127.0.0.1:8080" } }), oidc)).toBe("host_not_allowed");
  });
});

/** A request with headers fetch would not let a test set (Host), over a real socket. */
function rawRequest(
  port: number,
  method: string,
  path: string,
  headers: Record<string, string>,
): Promise<{ status: number; body: { error?: { code: string } } }> {
  return new Promise((resolve, reject) => {
    const r = request({ host: "127.0.0.1", port, method, path, headers }, (res) => {
      let text = "";
      res.on("data", (c: Buffer) => (text += c.toString()));
      res.on("end", () => resolve({ status: res.statusCode!, body: text ? JSON.parse(text) : {} }));
    });
    r.on("error", reject);
    r.end();
  });
}

describe("the gateway under local auth, over a real socket", () => {
  let app: FastifyInstance;
  let port: number;
  beforeAll(async () => {
    app = await createGateway({
      backends: [],
      bodyLimitBytes: 1 << 20,
      log: createLogger({ name: "guard-test", level: "silent" }),
      requestGuard: LOCAL,
    });
    await app.listen({ host: "127.0.0.1", port: 0 });
    port = (app.server.address() as AddressInfo).port;
  });
  afterAll(async () => app?.close());

  it("answers 403 host_not_allowed to a rebound name and to its own address with another port", async () => {
    for (const host of ["evil.example", `evil.example:${port}`, `127.0.0.1:${port + 1}`]) {
      const res = await rawRequest(port, "GET", "/openapi.json", { host });
      expect(res.status).toBe(403);
      expect(res.body.error?.code).toBe("host_not_allowed");
    }
    expect(
      (await rawRequest(port, "GET", "/openapi.json", { host: `localhost:${port}` })).status,
    ).toBe(200);
  });

  it("answers a bodiless cross-site write 403 before routing, and a marked one reaches the router", async () => {
    const host = `127.0.0.1:${port}`;
    const bare = await rawRequest(port, "POST", "/bots/halt-all", { host });
    expect(bare.status).toBe(403);
    expect(bare.body.error?.code).toBe("request_header_required");
    const marked = await rawRequest(port, "POST", "/bots/halt-all", { host, "x-svc-request": "1" });
    expect(marked.body.error?.code).toBe("route_not_found"); // no backends in this gateway
  });
});

describe("the gateway under OIDC with SVC_PUBLIC_URL, over a real socket", () => {
  let app: FastifyInstance;
  let port: number;
  beforeAll(async () => {
    app = await createGateway({
      backends: [],
      bodyLimitBytes: 1 << 20,
      log: createLogger({ name: "guard-test", level: "silent" }),
      requestGuard: { provider: "oidc", publicUrl: "https://svc.example.com" },
    });
    await app.listen({ host: "127.0.0.1", port: 0 });
    port = (app.server.address() as AddressInfo).port;
  });
  afterAll(async () => app?.close());

  it("serves its public host, refuses a rebound or internal one, and lets a probe through", async () => {
    const read = (host: string, path = "/openapi.json") => rawRequest(port, "GET", path, { host });
    expect((await read("svc.example.com")).status).toBe(200);
    for (const host of ["evil.example", `127.0.0.1:${port}`]) {
      const res = await read(host);
      expect(res.status, host).toBe(403);
      expect(res.body.error?.code).toBe("host_not_allowed");
    }
    expect((await read("10.0.0.7:8080", "/healthz")).status).toBe(200);
  });
});
