import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sql } from "kysely";
import { ConnectError, createClient, createRouterTransport } from "@connectrpc/connect";
import {
  PromotionKind,
  PromotionService,
  PromotionStatus,
  RiskOutcome,
  Verdict,
} from "@svc/gen/svc/promotion/v1/promotion_pb.js";
import { loadConfig } from "@svc/lib/config";
import { errorDetailOf } from "@svc/lib/errors";
import { openPlatform, type Platform, type ServiceModule } from "@svc/lib/server";
import { ephemeralStatementKeyPem } from "@svc/lib/signed-statement";
import { createPromotionModule } from "@svc/promotion";
import { eventually } from "../support/until.js";

// Promotion's decide on its own, with a kill-switch check the test answers by hand: the check
// runs before the request's row is locked, and the token is signed once and stored.
describe("promotion's decide: ask the kill switch before locking, sign the token once", () => {
  const tokens = ephemeralStatementKeyPem();
  let platform: Platform;
  let promotion: ServiceModule;
  const waiting: Array<(engaged: string[]) => void> = [];
  let held = false;

  const client = () =>
    createClient(
      PromotionService,
      createRouterTransport(promotion.routes, { router: { interceptors: platform.interceptors } }),
    );
  const as = (user: string) => ({ headers: { "x-svc-local-user": user } });
  const refusal = (p: Promise<unknown>) =>
    p.then(
      () => "accepted",
      (err: unknown) => errorDetailOf(ConnectError.from(err)).code,
    );
  const submit = (requestId: string) =>
    client().createPromotionRequest(
      {
        requestId,
        kind: PromotionKind.STRATEGY,
        artifact: { botRef: "decide-1", version: 1, versionHash: "b".repeat(64) },
        validation: { verdict: Verdict.PASS },
        risk: { decision: RiskOutcome.APPROVE },
      },
      as("alice"),
    );

  beforeAll(async () => {
    platform = await openPlatform(
      loadConfig({
        SVC_DATA_DIR: "memory://",
        SVC_LOG_LEVEL: "silent",
        SVC_PROMOTION_SIGNING_KEY_PEM: tokens.privateKeyPem,
      }),
      "promotion",
    );
    promotion = await createPromotionModule(platform, {
      // Clear at once, unless the test holds the answer back.
      killSwitch: () =>
        held ? new Promise((resolve) => waiting.push(resolve)) : Promise.resolve([]),
      botVersion: async () => ({
        bot_id: "decide-id",
        version: 1,
        slug: "decide-1",
        fleet: "decide",
        spec_hash: "b".repeat(64),
      }),
    });
    await promotion.start();
  }, 60_000);
  afterAll(async () => {
    await promotion?.stop();
    await platform?.close();
  });

  it("does not hold the request while the killswitch service answers: a reject meanwhile wins", async () => {
    expect((await submit("slow-check")).status).toBe(PromotionStatus.PENDING);
    held = true;
    const approving = refusal(
      client().approvePromotionRequest({ requestId: "slow-check" }, as("bob")),
    );
    await eventually(
      "the approval asks the kill switch",
      () => waiting.length,
      (n) => n === 1,
    );
    const rejected = await client().rejectPromotionRequest(
      { requestId: "slow-check", reason: "not now" },
      as("carol"),
    );
    expect(rejected.status).toBe(PromotionStatus.REJECTED);
    held = false;
    waiting.shift()!([]);
    expect(await approving).toBe("invalid_transition");
    const after = await client().getPromotionRequest({ requestId: "slow-check" }, as("bob"));
    expect([after.status, after.approvedPromotion]).toEqual([PromotionStatus.REJECTED, ""]);
  });

  it("denies an approval the kill switch refuses, and says so", async () => {
    await submit("engaged-check");
    held = true;
    const approving = refusal(
      client().approvePromotionRequest({ requestId: "engaged-check" }, as("bob")),
    );
    await eventually(
      "the approval asks the kill switch",
      () => waiting.length,
      (n) => n === 1,
    );
    held = false;
    waiting.shift()!(["svc:bots:killswitch:fleet:decide"]);
    expect(await approving).toBe("killswitch_engaged");
    const after = await client().getPromotionRequest({ requestId: "engaged-check" }, as("bob"));
    expect(after.status).toBe(PromotionStatus.DENIED);
    expect(after.gates.at(-1)).toMatchObject({
      name: "kill_switch_clear_at_approval",
      passed: false,
      detail: "engaged: svc:bots:killswitch:fleet:decide",
    });
  });

  it("signs the ApprovedPromotion token at approval and returns the stored one on every read", async () => {
    await submit("signed-once");
    const approved = await client().approvePromotionRequest(
      { requestId: "signed-once" },
      as("bob"),
    );
    expect(approved.approvedPromotion.split(".")).toHaveLength(3);
    const stored = await sql<{
      token: string | null;
    }>`select approved_promotion_token as token from promotion.promotion_requests where request_id = 'signed-once'`.execute(
      platform.db.db,
    );
    expect(stored.rows[0]!.token).toBe(approved.approvedPromotion);
    const read = await client().getPromotionRequest({ requestId: "signed-once" }, as("bob"));
    expect(read.approvedPromotion).toBe(approved.approvedPromotion);
  });
});
