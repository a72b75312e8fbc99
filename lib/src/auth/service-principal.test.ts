import { createClient, createRouterTransport, ConnectError } from "@connectrpc/connect";
import { create } from "@bufbuild/protobuf";
import { describe, expect, it } from "vitest";
import {
  KillSwitchService,
  CheckEngagedResponseSchema,
} from "@svc/gen/svc/killswitch/v1/killswitch_pb.js";
import { errorDetailOf } from "../errors/index.js";
import { principalOf } from "./principal.js";
import { createServicePrincipalInterceptor } from "./service-principal.js";

// CheckEngaged lists only the promotion service among its callers in the proto.
function killswitchAs(caller: string) {
  const seen: string[] = [];
  const transport = createRouterTransport(
    (router) =>
      router.rpc(KillSwitchService.method.checkEngaged, (_req, ctx) => {
        seen.push(principalOf(ctx).sub);
        return create(CheckEngagedResponseSchema, {});
      }),
    { router: { interceptors: [createServicePrincipalInterceptor(caller)] } },
  );
  return { client: createClient(KillSwitchService, transport), seen };
}

describe("a service calling another in one process", () => {
  it("reaches an RPC that lists it among its callers, as itself", async () => {
    const { client, seen } = killswitchAs("promotion");
    await client.checkEngaged({ botSlug: "b" });
    expect(seen).toEqual(["service|promotion"]);
  });

  it("is refused 403 caller_not_allowed, naming the callers, by an RPC that does not list it", async () => {
    const { client, seen } = killswitchAs("compliance");
    const err = await client.checkEngaged({ botSlug: "b" }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConnectError);
    expect(errorDetailOf(err as ConnectError)).toMatchObject({
      code: "caller_not_allowed",
      details: { caller: "compliance", callers: ["promotion"] },
    });
    expect((err as ConnectError).rawMessage).toMatch(
      /compliance service may not call .*CheckEngaged/,
    );
    expect(seen).toEqual([]);
  });
});
