import { create } from "@bufbuild/protobuf";
import { Code, ConnectError, createClient, type Transport } from "@connectrpc/connect";
import { describe, expect, it } from "vitest";
import { ErrorDetailSchema } from "@svc/gen/svc/api/v1/errors_pb.js";
import {
  IdentityService,
  ListMembershipsOfResponseSchema,
} from "@svc/gen/svc/identity/v1/identity_pb.js";
import { timeoutFromHeaders, withRequestDeadline } from "./deadline-context.js";
import { resilientTransport } from "./resilient-transport.js";

/** A peer that fails `failures` times with `code`, then answers; it records each call's deadline. */
function flakyPeer(failures: number, code = Code.Unavailable) {
  const deadlines: (number | undefined)[] = [];
  const transport = {
    async unary(method: { output: never }, _s: unknown, timeoutMs: number | undefined) {
      deadlines.push(timeoutMs);
      if (deadlines.length <= failures) throw new ConnectError("connect ECONNREFUSED", code);
      return { message: create(method.output), header: new Headers(), trailer: new Headers() };
    },
    stream: () => Promise.reject(new Error("no streams here")),
  } as unknown as Transport;
  return { transport, deadlines };
}

describe("calls between services", () => {
  it("tries a read-only method again while the peer is unavailable", async () => {
    const peer = flakyPeer(2);
    const identity = createClient(
      IdentityService,
      resilientTransport(peer.transport, { defaultTimeoutMs: 5_000, backoffMs: 1 }),
    );
    const answer = await identity.listMembershipsOf({ subject: "dev|alice" });
    expect(answer.$typeName).toBe(ListMembershipsOfResponseSchema.typeName);
    expect(peer.deadlines).toHaveLength(3);
  });

  it("never sends a write twice: it may have been applied before the connection broke", async () => {
    const peer = flakyPeer(1, Code.Aborted);
    const identity = createClient(
      IdentityService,
      resilientTransport(peer.transport, { defaultTimeoutMs: 5_000, backoffMs: 1 }),
    );
    await expect(identity.oidcSync({})).rejects.toMatchObject({ code: Code.Aborted });
    expect(peer.deadlines).toHaveLength(1);
  });

  it("gives up after its retries", async () => {
    const peer = flakyPeer(10);
    const identity = createClient(
      IdentityService,
      resilientTransport(peer.transport, { defaultTimeoutMs: 5_000, backoffMs: 1, retries: 2 }),
    );
    await expect(identity.listMembershipsOf({ subject: "x" })).rejects.toMatchObject({
      code: Code.Unavailable,
    });
    expect(peer.deadlines).toHaveLength(3);
  });

  it("answers with the peer's own refusal, not a deadline, when a try again runs out of time", async () => {
    let calls = 0;
    const peer = {
      async unary(_m: unknown, _s: unknown, timeoutMs: number) {
        if (++calls === 1)
          throw new ConnectError("identity did not answer", Code.Unavailable, undefined, [
            { desc: ErrorDetailSchema, value: { code: "membership_unverifiable" } },
          ]);
        // The second try waits out what is left of the deadline, as a paused dependency makes it.
        await new Promise((r) => setTimeout(r, timeoutMs));
        throw new ConnectError("deadline", Code.DeadlineExceeded);
      },
      stream: () => Promise.reject(new Error("no streams here")),
    } as unknown as Transport;
    const identity = createClient(
      IdentityService,
      resilientTransport(peer, { defaultTimeoutMs: 1_000, backoffMs: 1 }),
    );
    const err = ConnectError.from(
      await identity.listMembershipsOf({ subject: "x" }).catch((e: unknown) => e),
    );
    expect(err.code).toBe(Code.Unavailable);
    expect(err.findDetails(ErrorDetailSchema)[0]?.code).toBe("membership_unverifiable");
    expect(calls).toBe(2);
  });

  it("gives every call a deadline, and no more than the served request has left", async () => {
    const peer = flakyPeer(0);
    const identity = createClient(
      IdentityService,
      resilientTransport(peer.transport, { defaultTimeoutMs: 5_000 }),
    );
    await identity.listMembershipsOf({ subject: "x" });
    expect(peer.deadlines[0]).toBeGreaterThan(4_000);
    expect(peer.deadlines[0]).toBeLessThanOrEqual(5_000);
    await withRequestDeadline(800, () => identity.listMembershipsOf({ subject: "x" }));
    expect(peer.deadlines[1]).toBeLessThanOrEqual(800);
    await expect(
      withRequestDeadline(-1, () => identity.listMembershipsOf({ subject: "x" })),
    ).rejects.toMatchObject({ code: Code.DeadlineExceeded });
    expect(peer.deadlines).toHaveLength(2);
  });

  it("reads the caller's timeout from the gRPC and Connect headers", () => {
    expect(timeoutFromHeaders(new Headers({ "grpc-timeout": "250m" }))).toBe(250);
    expect(timeoutFromHeaders(new Headers({ "grpc-timeout": "3S" }))).toBe(3_000);
    expect(timeoutFromHeaders(new Headers({ "connect-timeout-ms": "1500" }))).toBe(1_500);
    expect(timeoutFromHeaders(new Headers())).toBeUndefined();
  });
});
