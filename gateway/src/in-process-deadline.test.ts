import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Code, ConnectError, type ServiceImpl } from "@connectrpc/connect";
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BotsService } from "@svc/gen/svc/bots/v1/bots_pb.js";
import { createInProcessTransport } from "@svc/lib/server";
import { createLoggingInterceptor, createLogger } from "@svc/lib/telemetry";
import { createGateway } from "./create-gateway.js";

const log = createLogger({ name: "test", level: "silent" });

// The gateway's deadline of one backend call reaches a handler called in-process: the caller is
// answered at the deadline, and the handler's signal says it may stop.
describe("a deadline from the edge, through the in-process hop", () => {
  const dir = mkdtempSync(join(tmpdir(), "no-console-"));
  let app: FastifyInstance;
  let handlerSignal: AbortSignal | undefined;

  beforeAll(async () => {
    const getBot: ServiceImpl<typeof BotsService>["getBot"] = (_req, ctx) => {
      handlerSignal = ctx.signal;
      return new Promise(() => {}); // a store that never answers
    };
    const transport = createInProcessTransport(
      (router) => router.service(BotsService, { getBot }),
      { interceptors: [createLoggingInterceptor(log)], messages: "share" },
    );
    app = await createGateway({
      backends: [{ service: BotsService, transport }],
      bodyLimitBytes: 1 << 20,
      log,
      timeoutMs: 50,
      consoleDir: dir,
    });
    await app.ready();
  });
  afterAll(async () => {
    await app?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("answers 504 deadline_exceeded and aborts the handler's signal with DeadlineExceeded", async () => {
    const res = await app.inject({ url: "/bots/slow", headers: { "x-request-id": "slow-1" } });
    expect(res.statusCode).toBe(504);
    expect(res.json().error.code).toBe("deadline_exceeded");
    expect(res.headers["x-request-id"]).toBe("slow-1");
    expect(handlerSignal?.aborted).toBe(true);
    expect(ConnectError.from(handlerSignal?.reason).code).toBe(Code.DeadlineExceeded);
  });
});
