import { Writable } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "@svc/lib/config";
import { createLogger } from "@svc/lib/telemetry";
import { startPlatform, type RunningPlatform } from "@svc/all-in-one";
import { call } from "../support/test-platform.js";
import { eventually } from "../support/until.js";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

interface LogLine {
  msg: string;
  request_id?: string;
  rpc?: string;
  url?: string;
}

// One id per request, end to end: the one in the response header is the one in the gateway's log
// line and in the service's, and a caller's id is taken only when it is short and plain.
describe("x-request-id at the gateway", () => {
  let p: RunningPlatform;
  const lines: LogLine[] = [];
  let raw = "";

  beforeAll(async () => {
    const sink = new Writable({
      write(chunk: Buffer, _enc, done) {
        raw += chunk.toString();
        for (const line of chunk.toString().split("\n").filter(Boolean))
          lines.push(JSON.parse(line) as LogLine);
        done();
      },
    });
    const log = createLogger({ name: "svc", level: "info", destination: sink });
    p = await startPlatform(
      loadConfig({ SVC_PORT: "0", SVC_DATA_DIR: "memory://", SVC_LOG_LEVEL: "info" }),
      { log },
    );
  });
  afterAll(async () => {
    await p?.close();
  });

  /** The gateway's and (unless the gateway answered alone) the service's log lines of one request. */
  const logged = (id: string, { reachesService = true } = {}) =>
    eventually(
      `the log lines of request ${id.slice(0, 40)}`,
      () => ({
        http: lines.filter((l) => l.msg === "http" && l.request_id === id),
        rpc: lines.filter((l) => l.msg === "rpc" && l.request_id === id),
      }),
      (l) => l.http.length > 0 && (l.rpc.length > 0 || !reachesService),
    );

  it("echoes a well-formed id, and logs it at the gateway and in the service", async () => {
    const id = "client-7.retry:2_a";
    const res = await call(p.url, "GET", "/bots", undefined, { "x-request-id": id });
    expect(res.status).toBe(200);
    expect(res.headers.get("x-request-id")).toBe(id);
    const { http, rpc } = await logged(id);
    expect(http).toHaveLength(1);
    expect(rpc).toHaveLength(1);
    expect(rpc[0]!.rpc).toBe("svc.bots.v1.BotsService/ListBots");
  });

  it.each([
    ["8 KB long", "a".repeat(8192)],
    ["holding quotes", 'abc"} {"admin":true'],
    ["129 characters long", "b".repeat(129)],
    ["holding spaces", "a b"],
  ])("replaces an id %s by a generated one, used end to end", async (_what, sent) => {
    const res = await call(p.url, "GET", "/bots", undefined, { "x-request-id": sent });
    expect(res.status).toBe(200);
    const id = res.headers.get("x-request-id")!;
    expect(id).toMatch(UUID);
    const { http, rpc } = await logged(id);
    expect(http).toHaveLength(1);
    expect(rpc).toHaveLength(1);
    expect(raw).not.toContain(sent);
  });

  it("does the same on an error answer", async () => {
    const res = await call(p.url, "GET", "/bots/nobody", undefined, {
      "x-request-id": "x".repeat(8192),
    });
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe("bot_not_found");
    const id = res.headers.get("x-request-id")!;
    expect(id).toMatch(UUID);
    const { http, rpc } = await logged(id);
    expect(http).toHaveLength(1);
    expect(rpc).toHaveLength(1);
  });

  it("generates an id when none is sent, also for a route the gateway answers itself", async () => {
    const res = await call(p.url, "GET", "/no-such-route", undefined, {
      "x-request-id": '"quoted"',
    });
    expect(res.status).toBe(404);
    const id = res.headers.get("x-request-id")!;
    expect(id).toMatch(UUID);
    expect((await logged(id, { reachesService: false })).http).toHaveLength(1);
    const plain = await call(p.url, "GET", "/bots");
    expect(plain.headers.get("x-request-id")).toMatch(UUID);
  });
});
