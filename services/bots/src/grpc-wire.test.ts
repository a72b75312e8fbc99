import { fileURLToPath } from "node:url";
import * as grpc from "@grpc/grpc-js";
import * as protoLoader from "@grpc/proto-loader";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "@svc/lib/config";
import {
  healthRoutes,
  openPlatform,
  startRpcServer,
  type Platform,
  type RunningServer,
} from "@svc/lib/server";
import { createBotsModule } from "./index.js";

const protoRoot = fileURLToPath(new URL("../../../proto", import.meta.url));

/** A service constructor found by its dotted name in a package loaded from .proto files. */
function serviceNamed(
  definition: protoLoader.PackageDefinition,
  name: string,
): grpc.ServiceClientConstructor {
  let node: unknown = grpc.loadPackageDefinition(definition);
  for (const part of name.split(".")) node = (node as grpc.GrpcObject)[part];
  return node as grpc.ServiceClientConstructor;
}

interface WireBot {
  id: string;
  slug: string;
  spec: { name: string };
}

// Proof the wire is standard gRPC: a stock grpc-js client, built from the .proto files alone,
// talks to the bots service as it runs in the distributed topology.
describe("bots service over gRPC with a stock @grpc/grpc-js client", () => {
  let platform: Platform;
  let server: RunningServer;
  let client: grpc.Client &
    Record<
      string,
      (req: object, cb: (err: grpc.ServiceError | null, res: unknown) => void) => void
    >;

  beforeAll(async () => {
    platform = await openPlatform(
      loadConfig({ SVC_DATA_DIR: "memory://", SVC_LOG_LEVEL: "silent" }),
      "bots",
    );
    const bots = await createBotsModule(platform);
    await bots.start();
    const routes = (router: Parameters<typeof bots.routes>[0]) => {
      bots.routes(router);
      healthRoutes(["svc.bots.v1.BotsService"], async () => true)(router);
    };
    server = await startRpcServer({
      routes,
      interceptors: platform.interceptors,
      host: "127.0.0.1",
      port: 0,
    });
    const definition = protoLoader.loadSync("svc/bots/v1/bots.proto", {
      includeDirs: [protoRoot],
      keepCase: true,
      enums: String,
      longs: String,
      defaults: true,
    });
    const BotsService = serviceNamed(definition, "svc.bots.v1.BotsService");
    client = new BotsService(
      `127.0.0.1:${server.port}`,
      grpc.credentials.createInsecure(),
    ) as typeof client;
  });
  afterAll(async () => {
    client?.close();
    await server?.close();
    await platform?.close();
  });

  const unary = <T>(method: string, req: object): Promise<T> =>
    new Promise((resolve, reject) =>
      client[method]!(req, (err, res) => (err ? reject(err) : resolve(res as T))),
    );

  const serverStream = (method: string, req: object): Promise<unknown[]> =>
    new Promise((resolve, reject) => {
      const messages: unknown[] = [];
      const call = (client[method] as unknown as (r: object) => grpc.ClientReadableStream<unknown>)(
        req,
      );
      call.on("data", (m: unknown) => messages.push(m));
      call.on("error", reject);
      call.on("end", () => resolve(messages));
    });

  it("creates and reads a bot", async () => {
    const created = await unary<WireBot>("CreateBot", {
      spec: { name: "Wire bot", kind: "BOT_KIND_RESEARCH" },
    });
    expect(created).toMatchObject({
      slug: "wire-bot",
      kind: "BOT_KIND_RESEARCH",
      status: "BOT_STATUS_DRAFT",
      current_version: 1,
    });
    const read = await unary<WireBot>("GetBot", { bot_ref: "wire-bot" });
    expect(read.id).toBe(created.id);
    expect(read.spec.name).toBe("Wire bot");
  });

  it("returns standard status codes with the message", async () => {
    await expect(unary("GetBot", { bot_ref: "absent" })).rejects.toMatchObject({
      code: grpc.status.NOT_FOUND,
      details: 'no bot with id or slug "absent"',
    });
    await expect(unary("CreateBot", { spec: { kind: "BOT_KIND_TRADING" } })).rejects.toMatchObject({
      code: grpc.status.INVALID_ARGUMENT,
      details: "spec.name is required",
    });
    // A server-streaming RPC refuses with a status as well, before its first message.
    await expect(serverStream("ChatBot", { bot_ref: "wire-bot" })).rejects.toMatchObject({
      code: grpc.status.INVALID_ARGUMENT,
      details: "message is required",
    });
  });

  it("serves the standard gRPC health protocol without a token", async () => {
    const def = protoLoader.loadSync("grpc/health/v1/health.proto", {
      includeDirs: [protoRoot],
      enums: String,
    });
    const Health = serviceNamed(def, "grpc.health.v1.Health");
    const health = new Health(`127.0.0.1:${server.port}`, grpc.credentials.createInsecure());
    const check = (service: string) =>
      new Promise<{ status: string }>((resolve, reject) =>
        health.Check!({ service }, (err: Error | null, res: { status: string }) =>
          err ? reject(err) : resolve(res),
        ),
      );
    expect((await check("svc.bots.v1.BotsService")).status).toBe("SERVING");
    expect((await check("svc.nope.v1.Nope")).status).toBe("SERVICE_UNKNOWN");
    health.close();
  });
});
