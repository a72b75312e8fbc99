import { Code, ConnectError } from "@connectrpc/connect";
import { describe, expect, it } from "vitest";
import { svcError } from "@svc/lib/errors";
import { httpErrorFromConnect } from "./error-body.js";

const systemError = (code: string) => Object.assign(new Error(`read ${code}`), { code });

describe("a service the gateway cannot reach", () => {
  it("is 503 with Retry-After when the connection is reset mid-request (Connect says Aborted)", () => {
    const err = new ConnectError(
      "read ECONNRESET",
      Code.Aborted,
      undefined,
      undefined,
      systemError("ECONNRESET"),
    );
    const answer = httpErrorFromConnect(err);
    expect(answer.status).toBe(503);
    expect(answer.headers["retry-after"]).toBe("1");
    expect(answer.body.error.code).toBe("service_unavailable");
    expect(answer.body.error.message).not.toContain("ECONNRESET");
  });

  it("is 503, not 499, when the service dies with the call's HTTP/2 stream open (Connect says Canceled)", () => {
    const err = new ConnectError(
      "http/2 stream closed with error code CANCEL (0x8)",
      Code.Canceled,
    );
    expect(httpErrorFromConnect(err)).toMatchObject({
      status: 503,
      headers: { "retry-after": "1" },
      body: { error: { code: "service_unavailable" } },
    });
  });

  it("is 503 with Retry-After when the connection is refused", () => {
    const err = new ConnectError(
      "connect ECONNREFUSED",
      Code.Unavailable,
      undefined,
      undefined,
      systemError("ECONNREFUSED"),
    );
    expect(httpErrorFromConnect(err)).toMatchObject({
      status: 503,
      headers: { "retry-after": "1" },
    });
  });

  it("keeps a service's own Aborted conflict a 409, and its own 503 with its own wait", () => {
    expect(
      httpErrorFromConnect(svcError(Code.Aborted, "risk_not_disabled", "nothing to re-enable"))
        .status,
    ).toBe(409);
    const busy = svcError(
      Code.Unavailable,
      "membership_unverifiable",
      "later",
      {},
      { headers: { "retry-after": "5" } },
    );
    expect(httpErrorFromConnect(busy)).toMatchObject({
      status: 503,
      headers: { "retry-after": "5" },
      body: { error: { code: "membership_unverifiable" } },
    });
  });
});
