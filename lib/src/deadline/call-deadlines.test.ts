import { describe, expect, it } from "vitest";
import { BotsService, ControlPlaneService } from "@svc/gen/svc/bots/v1/bots_pb.js";
import { ComplianceService } from "@svc/gen/svc/compliance/v1/compliance_pb.js";
import {
  AuditService,
  CredentialService,
  IdentityService,
  NotificationService,
  LicenseService,
  McpService,
  TenancyService,
} from "@svc/gen/svc/identity/v1/identity_pb.js";
import { KillSwitchService } from "@svc/gen/svc/killswitch/v1/killswitch_pb.js";
import { PromotionService } from "@svc/gen/svc/promotion/v1/promotion_pb.js";
import { CALL_DEADLINES_MS, callDeadlineMs, callKindOf } from "./call-deadlines.js";

const methods = [
  BotsService,
  ControlPlaneService,
  ComplianceService,
  IdentityService,
  LicenseService,
  McpService,
  TenancyService,
  AuditService,
  CredentialService,
  NotificationService,
  KillSwitchService,
  PromotionService,
].flatMap((s) => s.methods);

// A route added later that halts or releases must say so in the proto, or its membership check
// would wait on identity (a halt) or go by a cache (a release).
describe("the kind of every call", () => {
  it("marks every halt and stop route a halt, and every release a release", () => {
    const halts = methods.filter(
      (m) => /^(Halt|Stop)/.test(m.name) || m.name === "ApplyKillSwitch",
    );
    const releases = methods.filter(
      (m) => /^(Release|ReEnable)/.test(m.name) || m.name === "DeleteKillSwitch",
    );
    expect(halts.length).toBeGreaterThanOrEqual(8);
    expect(releases.length).toBeGreaterThanOrEqual(4);
    expect(halts.filter((m) => callKindOf(m) !== "halt").map((m) => m.name)).toEqual([]);
    expect(releases.filter((m) => callKindOf(m) !== "release").map((m) => m.name)).toEqual([]);
    expect(
      methods.filter((m) => callKindOf(m) === "halt" && !halts.includes(m)).map((m) => m.name),
    ).toEqual([]);
  });

  it("gives reads and halts a few seconds, and no read-only route a write's or a long deadline unless marked", () => {
    expect(callDeadlineMs(BotsService.method.getBot)).toBe(CALL_DEADLINES_MS.read);
    expect(callDeadlineMs(KillSwitchService.method.listKillSwitches)).toBeLessThanOrEqual(5_000);
    expect(callDeadlineMs(BotsService.method.haltAllBots)).toBeLessThanOrEqual(5_000);
    expect(callDeadlineMs(BotsService.method.backtestBot)).toBe(CALL_DEADLINES_MS.long);
    expect(callKindOf(BotsService.method.createBot)).toBe("write");
  });
});
