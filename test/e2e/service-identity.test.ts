import { ConnectError, createClient } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { KillSwitchService } from "@svc/gen/svc/killswitch/v1/killswitch_pb.js";
import { startDevIdp, machineToken, type DevIdp } from "@svc/dev-idp";
import { createKillSwitchModule } from "@svc/killswitch";
import { loadConfig } from "@svc/lib/config";
import { errorDetailOf } from "@svc/lib/errors";
import {
  openPlatform,
  peerClient,
  startRpcServer,
  type Platform,
  type RunningServer,
} from "@svc/lib/server";
import { API_AUDIENCE, CLAIMS_NAMESPACE, M2M_AUDIENCE } from "../support/oidc-platform.js";

const codeOf = (err: unknown) =>
  err instanceof ConnectError ? errorDetailOf(err)?.code : `not a ConnectError: ${String(err)}`;

// The killswitch service alone, under OIDC, called over gRPC by its peers with their own machine
// tokens from a real provider: the proto's callers decide who may call what.
describe("service identity between standalone services", () => {
  let idp: DevIdp;
  let platform: Platform;
  let server: RunningServer;
  const oidc = () => ({
    SVC_AUTH_PROVIDER: "oidc",
    SVC_AUTH_OIDC_ISSUER: idp.issuer,
    SVC_AUTH_OIDC_AUDIENCE: API_AUDIENCE,
    SVC_AUTH_CLAIMS_NAMESPACE: CLAIMS_NAMESPACE,
    SVC_AUTH_M2M_ENABLED: "true",
    SVC_AUTH_M2M_AUDIENCE: M2M_AUDIENCE,
    SVC_DATA_DIR: "memory://",
    SVC_LOG_LEVEL: "silent",
  });
  const asService = (caller: "promotion" | "compliance" | "bots") =>
    peerClient(
      KillSwitchService,
      server.url,
      caller,
      loadConfig({
        ...oidc(),
        SVC_SERVICE_CLIENT_ID: idp.clients.services[caller].clientId,
        SVC_SERVICE_CLIENT_SECRET: idp.clients.services[caller].clientSecret,
      }),
    );
  const withToken = (token: string | undefined) =>
    createClient(
      KillSwitchService,
      createGrpcTransport({
        baseUrl: server.url,
        interceptors: [
          (next) => (req) => {
            if (token) req.header.set("authorization", `Bearer ${token}`);
            return next(req);
          },
        ],
      }),
    );

  beforeAll(async () => {
    idp = await startDevIdp({
      apiAudience: API_AUDIENCE,
      m2mAudience: M2M_AUDIENCE,
      claimsNamespace: CLAIMS_NAMESPACE,
      users: [],
    });
    platform = await openPlatform(loadConfig(oidc()), "killswitch");
    const killswitch = await createKillSwitchModule(platform);
    await killswitch.start();
    server = await startRpcServer({
      routes: killswitch.routes,
      interceptors: platform.interceptors,
      host: "127.0.0.1",
      port: 0,
      auth: "oidc",
    });
  }, 60_000);
  afterAll(async () => {
    await server?.close();
    await platform?.close();
    await idp?.close();
  });

  it("lets a service call what the proto lists it for, with its own token for the callee", async () => {
    const promotion = asService("promotion");
    expect(promotion.missing).toBeUndefined();
    const answer = await promotion.client!.checkEngaged({ botSlug: "b1", fleet: "f1" });
    expect(answer).toMatchObject({ engaged: false, engagedKeys: [] });
    const compliance = asService("compliance");
    expect((await compliance.client!.listDrills({})).items).toEqual([]);
  });

  it("refuses 403 caller_not_allowed to a service the proto does not list", async () => {
    const err = await asService("compliance")
      .client!.checkEngaged({ botSlug: "b1" })
      .catch((e: unknown) => e);
    expect(codeOf(err)).toBe("caller_not_allowed");
    expect((err as ConnectError).rawMessage).toMatch(
      /compliance service may not call svc\.killswitch\.v1\.KillSwitchService\/CheckEngaged; its callers are promotion/,
    );
    expect(
      codeOf(
        await asService("promotion")
          .client!.listDrills({})
          .catch((e: unknown) => e),
      ),
    ).toBe("caller_not_allowed");
  });

  it("refuses a call without a token (401), and a token minted for another service (401)", async () => {
    expect(
      codeOf(
        await withToken(undefined)
          .checkEngaged({})
          .catch((e: unknown) => e),
      ),
    ).toBe("unauthenticated");
    // The promotion service's token for the bots service: not this service's audience.
    const forBots = await machineToken(
      idp.issuer,
      idp.clients.services.promotion,
      "urn:svc:service:bots",
    );
    expect(
      codeOf(
        await withToken(forBots)
          .checkEngaged({})
          .catch((e: unknown) => e),
      ),
    ).toBe("invalid_token");
  });

  it("keeps a service's audience to the platform's services: another client cannot get one", async () => {
    const refused = await machineToken(
      idp.issuer,
      idp.clients.machine,
      "urn:svc:service:killswitch",
    ).catch((e: unknown) => e as { status: number; body: string });
    expect(refused).toMatchObject({ status: 400, body: expect.stringContaining("invalid_target") });
  });

  it("has no client without credentials under OIDC, and says so", () => {
    expect(peerClient(KillSwitchService, server.url, "promotion", loadConfig(oidc())).missing).toBe(
      "credentials",
    );
  });
});
