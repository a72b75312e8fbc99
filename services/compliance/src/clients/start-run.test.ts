import { Code, ConnectError, createClient, createRouterTransport } from "@connectrpc/connect";
import { describe, expect, it } from "vitest";
import { BotsService } from "@svc/gen/svc/bots/v1/bots_pb.js";
import { svcError } from "@svc/lib/errors";
import { startRunFrom } from "./start-run.js";

const REQ = { botRef: "b1", kind: "conformance" as const, peakMultiple: 0, requestedBy: "u" };

function botsAnswering(startComplianceRun: () => Promise<never>) {
  return createClient(
    BotsService,
    createRouterTransport((router) => router.service(BotsService, { startComplianceRun })),
  );
}

describe("starting a run in the bots service", () => {
  it("answers 503 with Retry-After when the bots service does not answer within the deadline", async () => {
    const start = startRunFrom(
      botsAnswering(() => new Promise<never>(() => {})),
      50,
    );
    const err = await start(REQ).then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(ConnectError);
    expect((err as ConnectError).code).toBe(Code.Unavailable);
    expect((err as ConnectError).metadata.get("retry-after")).toBe("5");
    expect((err as ConnectError).rawMessage).toMatch(/bots service.*did not answer/);
  });

  it("passes the bots service's refusals through as they are", async () => {
    const start = startRunFrom(
      botsAnswering(async () => {
        throw svcError(Code.NotFound, "bot_not_found", 'no bot with id or slug "b1"');
      }),
      1_000,
    );
    await expect(start(REQ)).rejects.toMatchObject({ code: Code.NotFound });
  });
});
