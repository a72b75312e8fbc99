import { Code, ConnectError, createClient, createRouterTransport } from "@connectrpc/connect";
import { pino } from "pino";
import { describe, expect, it } from "vitest";
import { Health, HealthCheckResponse_ServingStatus } from "@svc/gen/grpc/health/v1/health_pb.js";
import { createLoggingInterceptor } from "./server-interceptors.js";

// What node-postgres throws when the server stops answering mid-query.
const storeHung = () => new Error("Query read timeout");

function healthWith(watch: () => AsyncIterable<{ status: HealthCheckResponse_ServingStatus }>) {
  const lines: Array<Record<string, unknown>> = [];
  const log = pino(
    { level: "info" },
    { write: (line: string) => void lines.push(JSON.parse(line)) },
  );
  const transport = createRouterTransport(
    ({ rpc }) => {
      rpc(Health.method.watch, watch);
      rpc(Health.method.check, () => {
        throw storeHung();
      });
    },
    { router: { interceptors: [createLoggingInterceptor(log)] } },
  );
  return { client: createClient(Health, transport), lines };
}

async function failureOf(work: () => Promise<unknown>): Promise<ConnectError> {
  try {
    await work();
  } catch (err) {
    return ConnectError.from(err);
  }
  throw new Error("the call did not fail");
}

describe("the outermost interceptor on a streaming call", () => {
  it("answers a store that hangs mid-stream as unavailable (retry), as it does a unary call, never internal", async () => {
    const { client, lines } = healthWith(async function* () {
      yield { status: HealthCheckResponse_ServingStatus.SERVING };
      throw storeHung();
    });
    const unary = await failureOf(() => client.check({}));
    const streamed = await failureOf(async () => {
      for await (const _ of client.watch({}));
    });
    for (const err of [unary, streamed]) {
      expect(Code[err.code]).toBe("Unavailable");
      expect(err.rawMessage).toMatch(/did not answer in time; retry/);
      expect(err.rawMessage).not.toMatch(/Query read timeout/);
    }
    // Counted and logged when the stream ended, with the code the caller saw.
    const watchLines = lines.filter((l) => l.rpc === "grpc.health.v1.Health/Watch");
    expect(watchLines.map((l) => l.code)).toEqual(["Unavailable"]);
  });

  it("keeps a stream's own refusal, and logs a stream read to the end as ok once", async () => {
    const refusing = healthWith(async function* () {
      yield { status: HealthCheckResponse_ServingStatus.SERVING };
      throw new ConnectError("no such service", Code.NotFound);
    });
    const refused = await failureOf(async () => {
      for await (const _ of refusing.client.watch({}));
    });
    expect(Code[refused.code]).toBe("NotFound");

    const fine = healthWith(async function* () {
      yield { status: HealthCheckResponse_ServingStatus.SERVING };
    });
    const seen = [];
    for await (const m of fine.client.watch({})) seen.push(m.status);
    expect(seen).toEqual([HealthCheckResponse_ServingStatus.SERVING]);
    expect(fine.lines.filter((l) => l.rpc).map((l) => l.code)).toEqual(["ok"]);
  });
});
