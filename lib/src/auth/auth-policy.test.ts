import { describe, expect, it } from "vitest";
import { AuthMode } from "@svc/gen/svc/api/v1/annotations_pb.js";
import { BotsService } from "@svc/gen/svc/bots/v1/bots_pb.js";
import { Health } from "@svc/gen/grpc/health/v1/health_pb.js";
import { IdentityService, LicenseService } from "@svc/gen/svc/identity/v1/identity_pb.js";
import { createPolicyLookup, policyOf } from "./auth-policy.js";

describe("policyOf", () => {
  it("reads the proto annotation of each RPC", () => {
    expect(policyOf(BotsService.method.getBot)).toMatchObject({
      mode: AuthMode.USER,
      scopes: ["read:bots"],
      readOnly: true,
      stepUp: false,
    });
    expect(policyOf(BotsService.method.haltBot)).toMatchObject({
      mode: AuthMode.USER,
      scopes: ["halt:bots"],
      stepUp: true,
    });
    expect(policyOf(BotsService.method.chatBot).allowAgent).toBe(true);
    expect(policyOf(IdentityService.method.oidcSync).mode).toBe(AuthMode.MACHINE);
    expect(policyOf(LicenseService.method.getLicensePublicKey).mode).toBe(AuthMode.PUBLIC);
  });

  it("fails closed: a method without the annotation needs a user token", () => {
    expect(policyOf(Health.method.check)).toMatchObject({
      mode: AuthMode.USER,
      scopes: [],
      stepUp: false,
      allowAgent: false,
    });
  });

  it("remembers each method's policy", () => {
    const lookup = createPolicyLookup();
    expect(lookup(BotsService.method.getBot)).toBe(lookup(BotsService.method.getBot));
  });
});
