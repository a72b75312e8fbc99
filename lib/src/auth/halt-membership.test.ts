import { fromBinary } from "@bufbuild/protobuf";
import {
  Code,
  createClient,
  createRouterTransport,
  type HandlerContext,
} from "@connectrpc/connect";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BotsService } from "@svc/gen/svc/bots/v1/bots_pb.js";
import { KillSwitchService } from "@svc/gen/svc/killswitch/v1/killswitch_pb.js";
import { AuditRecordedSchema } from "@svc/gen/svc/events/v1/events_pb.js";
import { createMembershipAuditInterceptor } from "../audit/index.js";
import type { EventBus } from "../bus/index.js";
import { createLogger } from "../telemetry/index.js";
import {
  assertMembershipVerified,
  createAuthInterceptor,
  createMembershipLookup,
  createTokenVerifier,
  defineAuthSettings,
  principalKey,
} from "./index.js";
import {
  createTestTokens,
  refusal,
  startTestIdp,
  withBearer,
  type TestIdp,
  type TestTokens,
} from "./testing/index.js";

const log = createLogger({ name: "test", level: "silent" });

// The identity service paused (SIGSTOP) in the middle of an incident: its membership answers
// never come. An operator holding the halt scope must still halt; nobody may release.
describe("a halt while the identity service hangs", () => {
  let idp: TestIdp;
  let tokens: TestTokens;
  let identityHangs = false;
  let clock = 0;
  const members = new Map([["user|known", 1]]);
  const audited: {
    action: string;
    outcome: string;
    resource: string;
    details: unknown;
    subject: string;
  }[] = [];
  let bots: ReturnType<typeof createClient<typeof BotsService>>;
  let killSwitches: ReturnType<typeof createClient<typeof KillSwitchService>>;
  const released: string[] = [];
  const halted: string[] = [];

  beforeAll(async () => {
    idp = await startTestIdp();
    tokens = createTestTokens(idp);
    const settings = defineAuthSettings({
      provider: "oidc",
      issuer: idp.issuer,
      audience: idp.audience,
      enforce: "strict",
    });
    const lookup = createMembershipLookup({
      countOf: (s) =>
        identityHangs ? new Promise<number>(() => {}) : Promise.resolve(members.get(s) ?? 0),
      ttlMs: 30_000,
      negativeTtlMs: 2_000,
      now: () => clock,
      timeoutMs: 50,
      haltTimeoutMs: 50,
    });
    const bus = {
      publish: async (_subject: string, data: Uint8Array) => {
        const e = fromBinary(AuditRecordedSchema, data);
        audited.push({
          action: e.action,
          outcome: e.outcome,
          resource: e.resource,
          details: e.details,
          subject: e.actor?.subject ?? "",
        });
      },
    } as unknown as EventBus;
    const transport = createRouterTransport(
      (router) => {
        router.service(BotsService, {
          haltBot: (req, ctx: HandlerContext) => {
            // Stands for a halt route whose request can also lift a halt (a switch moved).
            if (req.reason === "moves the switch") assertMembershipVerified(ctx);
            halted.push(`${req.botRef} by ${ctx.values.get(principalKey)?.sub}`);
            return {};
          },
          createBot: () => ({}),
        });
        router.service(KillSwitchService, {
          deleteKillSwitch: (req) => (released.push(req.name), {}),
        });
      },
      {
        router: {
          interceptors: [
            createMembershipAuditInterceptor(bus, log),
            createAuthInterceptor({
              settings,
              verifier: createTokenVerifier(settings),
              hasMembership: lookup,
            }),
          ],
        },
      },
    );
    bots = createClient(BotsService, transport);
    killSwitches = createClient(KillSwitchService, transport);
    // Identity answered once for user|known and user|outsider before it hung.
    await bots.haltBot(
      { botRef: "warm-up" },
      withBearer(await tokens.stepUpFresh("user|known", ["halt:bots"])),
    );
    await refusal(
      bots.haltBot(
        { botRef: "warm-up" },
        withBearer(await tokens.stepUpFresh("user|outsider", ["halt:bots"])),
      ),
    );
    // A minute later identity hangs: what it said is no longer fresh, only last known.
    identityHangs = true;
    clock = 60_000;
    halted.length = 0;
    audited.length = 0;
  });
  afterAll(() => idp.stop());

  it("halts for a caller whose last known membership says member, audited as cached with its age", async () => {
    await bots.haltBot(
      { botRef: "b1" },
      withBearer(await tokens.stepUpFresh("user|known", ["halt:bots"])),
    );
    expect(halted).toContain("b1 by user|known");
    const row = audited.find((a) => a.subject === "user|known");
    expect(row).toMatchObject({ action: "auth.membership_assumed", outcome: "succeeded" });
    expect(row?.details).toMatchObject({ membership_source: "cached" });
    expect(
      (row?.details as { membership_age_ms: number }).membership_age_ms,
    ).toBeGreaterThanOrEqual(0);
  });

  it("halts for a holder of the scope of whom nothing is known, audited as unverified_halt", async () => {
    await bots.haltBot(
      { botRef: "b2" },
      withBearer(await tokens.stepUpFresh("user|new", ["halt:bots"])),
    );
    expect(halted).toContain("b2 by user|new");
    expect(audited.find((a) => a.subject === "user|new")?.details).toMatchObject({
      membership_source: "unverified_halt",
    });
  });

  it("still refuses a caller the identity service last said is no member, and one without the scope", async () => {
    const outsider = await refusal(
      bots.haltBot(
        { botRef: "b3" },
        withBearer(await tokens.stepUpFresh("user|outsider", ["halt:bots"])),
      ),
    );
    expect(outsider.machineCode).toBe("membership_required");
    const noScope = await refusal(
      bots.haltBot(
        { botRef: "b3" },
        withBearer(await tokens.stepUpFresh("user|new", ["read:bots"])),
      ),
    );
    expect(noScope.machineCode).toBe("missing_scope");
    expect(halted).not.toContain("b3 by user|outsider");
    expect(halted).not.toContain("b3 by user|new");
  });

  it("lets a halt route refuse the part of a request that lifts a halt when the membership was assumed", async () => {
    const r = await refusal(
      bots.haltBot(
        { botRef: "b4", reason: "moves the switch" },
        withBearer(await tokens.stepUpFresh("user|known", ["halt:bots"])),
      ),
    );
    expect([r.code, r.machineCode]).toEqual([Code.Unavailable, "membership_unverifiable"]);
    expect(halted).not.toContain("b4 by user|known");
  });

  it("refuses anything that is not a halt with 503 membership_unverifiable, even to a known member", async () => {
    const r = await refusal(
      bots.createBot({}, withBearer(await tokens.stepUpFresh("user|known", ["write:bots"]))),
    );
    expect(r.code).toBe(Code.Unavailable);
    expect(r.machineCode).toBe("membership_unverifiable");
    const release = await refusal(
      killSwitches.deleteKillSwitch(
        { name: "incident" },
        withBearer(await tokens.stepUpFresh("user|known", ["halt:platform"])),
      ),
    );
    expect([release.code, release.machineCode]).toEqual([
      Code.Unavailable,
      "membership_unverifiable",
    ]);
    expect(audited.filter((a) => a.resource.endsWith("/CreateBot"))).toEqual([]);
    expect(released).toEqual([]);
  });

  it("asks identity afresh for a release even just after it answered, where another write goes by the cache", async () => {
    const admin = withBearer(
      await tokens.stepUpFresh("user|known", ["halt:platform", "write:bots"]),
    );
    identityHangs = false;
    await killSwitches.deleteKillSwitch({ name: "first" }, admin);
    identityHangs = true;
    await bots.createBot({}, admin);
    const r = await refusal(killSwitches.deleteKillSwitch({ name: "second" }, admin));
    expect(r.machineCode).toBe("membership_unverifiable");
    expect(released).toEqual(["first"]);
  });
});
