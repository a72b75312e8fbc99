import { Code, ConnectError, createClient, createRouterTransport } from "@connectrpc/connect";
import { pino } from "pino";
import { describe, expect, it } from "vitest";
import { BotsService } from "@svc/gen/svc/bots/v1/bots_pb.js";
import { createLoggingInterceptor } from "../telemetry/server-interceptors.js";
import type { LicenseGate } from "./license-gate.js";
import { createLicenseInterceptor, LICENSE_STATUS_HEADER } from "./license-interceptor.js";

/** A lease past its end but inside its grace period: licensed routes answer and say so. */
const inGrace: LicenseGate = {
  enforced: true,
  standing: () => ({ state: "grace", secondsLeft: 3_600, leaseId: "lease-1", entitlements: {} }),
  admits() {
    return { admitted: true, grace: true, standing: this.standing() };
  },
  refresh: async () => {},
  close: () => {},
};

describe("a licensed route in grace", () => {
  it("answers a store that did not answer as unavailable (retry), with the grace header, not as a 500", async () => {
    const transport = createRouterTransport(
      ({ rpc }) =>
        // StartPaper is gated on live_trading; its store hangs.
        rpc(BotsService.method.startPaper, () => {
          throw new Error("Query read timeout");
        }),
      {
        router: {
          interceptors: [
            createLoggingInterceptor(pino({ level: "silent" })),
            createLicenseInterceptor(inGrace),
          ],
        },
      },
    );
    const client = createClient(BotsService, transport);
    let failure: ConnectError | undefined;
    try {
      await client.startPaper({ botRef: "b" });
    } catch (err) {
      failure = ConnectError.from(err);
    }
    expect(failure && Code[failure.code]).toBe("Unavailable");
    expect(failure?.rawMessage).toMatch(/did not answer in time; retry/);
    expect(failure?.rawMessage).not.toMatch(/Query read timeout/);
    expect(failure?.metadata.get(LICENSE_STATUS_HEADER)).toBe("grace");
  });
});
