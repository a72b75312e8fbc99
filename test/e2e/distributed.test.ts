import type { AddressInfo } from "node:net";
import { createGrpcTransport } from "@connectrpc/connect-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { FastifyInstance } from "fastify";
import { BotsService, ControlPlaneService } from "@svc/gen/svc/bots/v1/bots_pb.js";
import { loadConfig } from "@svc/lib/config";
import {
  healthRoutes,
  openPlatform,
  startRpcServer,
  type Platform,
  type RunningServer,
} from "@svc/lib/server";
import { createLogger } from "@svc/lib/telemetry";
import { createGateway } from "@svc/gateway";
import { createBotsModule } from "@svc/bots";
import { call, testDatabaseUrl, testNatsNamespace, testNatsUrl } from "../support/test-platform.js";
import { deleteTestStream } from "@svc/lib/bus/testing-streams";
import pg from "pg";
import { randomBytes } from "node:crypto";

// The distributed topology: the bots service alone on real Postgres, NATS and Redis, and the
// gateway reaching it over gRPC (HTTP/2) by address, as in a cluster.
describe("distributed topology: gateway -> gRPC -> bots service on Postgres, NATS, Redis", () => {
  const dbName = `svc_dist_${randomBytes(5).toString("hex")}`;
  const namespace = testNatsNamespace();
  let platform: Platform;
  let server: RunningServer;
  let gateway: FastifyInstance;
  let url: string;

  beforeAll(async () => {
    const admin = new pg.Client({ connectionString: testDatabaseUrl() });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${dbName}`);
    await admin.end();
    const dbUrl = new URL(testDatabaseUrl());
    dbUrl.pathname = `/${dbName}`;
    const config = loadConfig({
      SVC_DATABASE_URL: dbUrl.toString(),
      SVC_NATS_URL: testNatsUrl(),
      SVC_NATS_NAMESPACE: namespace,
      SVC_REDIS_URL: process.env.SVC_TEST_REDIS_URL ?? "redis://127.0.0.1:6379",
      SVC_LOG_LEVEL: "silent",
    });
    platform = await openPlatform(config, "bots");
    expect(platform.db.kind).toBe("postgres");
    const bots = await createBotsModule(platform);
    await bots.start();
    server = await startRpcServer({
      routes: (r) => {
        bots.routes(r);
        healthRoutes(["svc.bots.v1.BotsService"], async () => true)(r);
      },
      interceptors: platform.interceptors,
      host: "127.0.0.1",
      port: 0,
    });
    const transport = createGrpcTransport({ baseUrl: server.url });
    gateway = await createGateway({
      backends: [BotsService, ControlPlaneService].map((service) => ({ service, transport })),
      bodyLimitBytes: 1 << 20,
      log: createLogger({ name: "gw", level: "silent" }),
    });
    await gateway.listen({ host: "127.0.0.1", port: 0 });
    url = `http://127.0.0.1:${(gateway.server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await gateway?.close();
    await server?.close();
    await platform?.close();
    await deleteTestStream(testNatsUrl(), `${namespace.toUpperCase()}_EVENTS`);
    const admin = new pg.Client({ connectionString: testDatabaseUrl() });
    await admin.connect();
    await admin.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
    await admin.end();
  });

  it("serves the REST API over gRPC with the same answers and errors", async () => {
    const created = await call(url, "POST", "/bots", { name: "Remote", kind: "research" });
    expect(created.status).toBe(201);
    expect((await call(url, "GET", "/bots/remote")).body.id).toBe(created.body.id);
    const missing = await call(url, "GET", "/bots/absent");
    expect(missing.status).toBe(404);
    expect(missing.body.error.code).toBe("bot_not_found");
    const bad = await call(url, "POST", "/bots", { kind: "research" });
    expect(bad.body.error).toEqual({
      code: "invalid_argument",
      message: "name is required",
      details: { field: "name" },
    });
    expect((await call(url, "GET", "/readyz")).body).toMatchObject({ status: "ready", serving: 1 });
  });
});
