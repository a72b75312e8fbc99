import { mkdtempSync, rmSync } from "node:fs";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { AddressInfo } from "node:net";
import type { FastifyInstance } from "fastify";
import { afterAll, beforeEach, describe, expect, it } from "vitest";
import { createLogger } from "@svc/lib/telemetry";
import { closeGateway } from "./close-gateway.js";
import { createGateway } from "./create-gateway.js";

const log = createLogger({ name: "test", level: "silent" });

describe("closing the gateway", () => {
  const dir = mkdtempSync(join(tmpdir(), "no-console-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  let app: FastifyInstance;
  let url: string;
  /** Resolves once /slow's handler runs: the request is in flight, not still on its way. */
  let arrived: Promise<void>;
  beforeEach(async () => {
    app = await createGateway({ backends: [], bodyLimitBytes: 1 << 20, log, consoleDir: dir });
    let signal = () => {};
    arrived = new Promise((resolve) => (signal = resolve));
    app.get("/slow", async () => {
      signal();
      await new Promise((resolve) => setTimeout(resolve, 300));
      return { finished: true };
    });
    await app.listen({ host: "127.0.0.1", port: 0 });
    url = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  });

  it("lets a request in flight finish", async () => {
    const answer = fetch(`${url}/slow`);
    // Not a fixed wait: on a loaded machine a request still on its way when the close began was
    // answered 503, as one arriving during a close should be.
    await arrived;
    const t0 = performance.now();
    await closeGateway(app, 20_000);
    // and the close ends with it, not with the grace period or the client's idle connection.
    expect(performance.now() - t0).toBeLessThan(10_000);
    const res = await answer;
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ finished: true });
  });

  it("cuts a client that never finishes its request once the grace period is over", async () => {
    const socket = connect((app.server.address() as AddressInfo).port, "127.0.0.1");
    const cut = new Promise<void>((resolve) => socket.on("close", () => resolve()));
    socket.on("error", () => {});
    await new Promise<void>((resolve) => socket.on("connect", () => resolve()));
    socket.write("GET /slow HTTP/1.1\r\nHost: gateway\r\n");
    await new Promise((resolve) => setTimeout(resolve, 50));
    const t0 = performance.now();
    await closeGateway(app, 200);
    // Node's own header timeout would have held the close for a minute and more.
    expect(performance.now() - t0).toBeLessThan(5_000);
    await cut;
  });
});
