import type { AddressInfo } from "node:net";
import { createGrpcTransport } from "@connectrpc/connect-node";
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freshMfaClaims, startTestIdp, type TestIdp } from "@svc/lib/auth/testing";
import { healthRoutes, startRpcServer, type RunningServer } from "@svc/lib/server";
import { createGateway } from "@svc/gateway";
import type { RunningPlatform } from "@svc/all-in-one";
import { call, startTestPlatform, PLATFORM_START_TIMEOUT_MS } from "../support/test-platform.js";
import { grantMembership } from "../support/memberships.js";

// All-in-one's gateway calls the services in-process (no encoding); a second gateway in front of
// the very same services over gRPC (the distributed topology's wire) must answer every route
// alike: status, body and headers, errors included.
describe("the in-process hop answers as the wire does", () => {
  let idp: TestIdp;
  let p: RunningPlatform;
  let server: RunningServer;
  let wire: FastifyInstance;
  let wireUrl: string;
  const tokens: Record<string, string> = {};

  beforeAll(async () => {
    idp = await startTestIdp();
    p = await startTestPlatform("pglite", {
      SVC_AUTH_PROVIDER: "oidc",
      SVC_AUTH_OIDC_ISSUER: idp.issuer,
      SVC_AUTH_OIDC_AUDIENCE: idp.audience,
    });
    await grantMembership(p, "user|alice");
    const mfa = freshMfaClaims("user|alice", [
      "read:bots",
      "write:bots",
      "deploy:bots",
      "halt:bots",
    ]);
    tokens.full = await idp.sign(mfa);
    tokens.noMfa = await idp.sign({ ...mfa, amr: ["pwd"] });
    tokens.noRead = await idp.sign(freshMfaClaims("user|alice", ["write:bots"]));

    server = await startRpcServer({
      routes: (router) => {
        for (const m of p.modules) m.routes(router);
        healthRoutes(
          p.modules.flatMap((m) => m.services.map((s) => s.typeName)),
          p.platform.ready,
        )(router);
      },
      interceptors: p.platform.interceptors,
      host: "127.0.0.1",
      port: 0,
      auth: "oidc",
    });
    const transport = createGrpcTransport({ baseUrl: server.url });
    wire = await createGateway({
      backends: p.modules.flatMap((m) => m.services.map((service) => ({ service, transport }))),
      bodyLimitBytes: p.platform.config.bodyLimitBytes,
      textBodyLimitBytes: p.platform.config.datasetMaxBytes,
      log: p.platform.log,
    });
    await wire.listen({ host: "127.0.0.1", port: 0 });
    wireUrl = `http://127.0.0.1:${(wire.server.address() as AddressInfo).port}`;

    const created = await call(
      p.url,
      "POST",
      "/bots",
      { name: "Parity", slug: "parity", kind: "trading" },
      { authorization: `Bearer ${tokens.full}` },
    );
    expect(created.status).toBe(201);
  }, PLATFORM_START_TIMEOUT_MS);

  afterAll(async () => {
    await wire?.close();
    await server?.close();
    await p?.close();
    await idp?.stop();
  });

  const ROUTES: Array<{
    what: string;
    method: string;
    path: string;
    token?: keyof typeof tokens;
    body?: unknown;
    status: number;
    code?: string;
  }> = [
    { what: "whoami", method: "GET", path: "/auth/whoami", token: "full", status: 200 },
    { what: "a bot", method: "GET", path: "/bots/parity", token: "full", status: 200 },
    {
      what: "a field rule of the proto (validation interceptor)",
      method: "POST",
      path: "/bots",
      token: "full",
      body: { name: "x".repeat(201), kind: "trading" },
      status: 400,
      code: "invalid_argument",
    },
    {
      what: "no token",
      method: "GET",
      path: "/bots/parity",
      status: 401,
      code: "unauthenticated",
    },
    {
      what: "a missing scope",
      method: "GET",
      path: "/bots/parity",
      token: "noRead",
      status: 403,
      code: "missing_scope",
    },
    {
      what: "an unknown bot",
      method: "GET",
      path: "/bots/nope",
      token: "full",
      status: 404,
      code: "bot_not_found",
    },
    {
      what: "a route that needs step-up, without MFA",
      method: "POST",
      path: "/bots/parity/halt",
      token: "noMfa",
      body: {},
      status: 401,
      code: "insufficient_user_authentication",
    },
    {
      what: "a capability the install lacks",
      method: "POST",
      path: "/bots/parity/deploy",
      token: "full",
      body: { target: "k8s" },
      status: 412,
      code: "kubernetes_not_configured",
    },
  ];

  // Headers of the HTTP exchange itself, not of the answer.
  const CONNECTION = new Set(["date", "connection", "keep-alive"]);
  const answer = async (base: string, r: (typeof ROUTES)[number], requestId: string) => {
    const res = await call(base, r.method, r.path, r.body, {
      "x-request-id": requestId,
      ...(r.token ? { authorization: `Bearer ${tokens[r.token]}` } : {}),
    });
    const headers = Object.fromEntries([...res.headers].filter(([name]) => !CONNECTION.has(name)));
    return { status: res.status, body: res.body, headers };
  };

  it.each(ROUTES)("$what: $method $path", async (r) => {
    const id = `hop-${r.status}-${r.path.replace(/\W/g, "")}`;
    const inProcess = await answer(p.url, r, id);
    const overWire = await answer(wireUrl, r, id);
    expect(inProcess.status).toBe(r.status);
    if (r.code) expect(inProcess.body.error.code).toBe(r.code);
    expect(inProcess.headers["x-request-id"]).toBe(id);
    expect(inProcess).toEqual(overWire);
  });

  it("the step-up refusal carries its challenge both ways", async () => {
    const r = ROUTES.find((x) => x.status === 401 && x.token === "noMfa")!;
    const inProcess = await answer(p.url, r, "hop-challenge");
    expect(inProcess.headers["www-authenticate"]).toMatch(
      /^Bearer error="insufficient_user_authentication"/,
    );
  });
});
