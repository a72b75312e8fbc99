import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningPlatform } from "@svc/all-in-one";
import { call, PLATFORM_START_TIMEOUT_MS, startTestPlatform } from "../support/test-platform.js";
import { eventually } from "../support/until.js";
import { createCodeBot } from "../support/strategy-code.js";
import { schemaDb } from "@svc/lib/db";
import { errorDetailOf } from "@svc/lib/errors";
import { signStatement, statementKeysFromPem } from "@svc/lib/signed-statement";
import { assertApprovedPromotion } from "@svc/bots/approved-promotion";

const as = (user: string) => ({ "x-svc-local-user": user });
const claimsOf = (token: string) =>
  JSON.parse(Buffer.from(token.split(".")[1]!, "base64url").toString("utf8"));

describe("a version with strategy code through the promotion gate (real Postgres)", () => {
  let p: RunningPlatform;
  let bot: { id: string; spec_hash: string; spec: { strategy: { code: { digest: string } } } };

  beforeAll(async () => {
    p = await startTestPlatform("postgres");
    bot = await createCodeBot(p.url, "Gated Code", as("alice"));
    // The digest travels in the bots events: the promotion service records it with the version.
    await eventually(
      "the promotion service learns the version and its code",
      async () =>
        (
          await sql<{
            digest: string | null;
          }>`select strategy_digest as digest from promotion.known_bot_versions where bot_id = ${bot.id}`.execute(
            p.platform.db.db,
          )
        ).rows[0]?.digest,
      (d) => d === bot.spec.strategy.code.digest,
    );
  }, PLATFORM_START_TIMEOUT_MS);
  afterAll(async () => {
    await p?.close();
  });

  const request = (id: string, strategyDigest?: string) =>
    call(
      p.url,
      "POST",
      "/promotion/requests",
      {
        request_id: id,
        kind: "strategy",
        artifact: {
          bot_ref: bot.id,
          version: 1,
          version_hash: bot.spec_hash,
          ...(strategyDigest ? { strategy_digest: strategyDigest } : {}),
        },
        validation: { verdict: "PASS" },
        risk: { decision: "APPROVE" },
      },
      as("alice"),
    );

  it("denies a request naming other code, and names the version's code in the token it signs", async () => {
    const wrong = await request("code-wrong", `sha256:${"0".repeat(64)}`);
    expect(wrong.body.status).toBe("denied");
    const gate = wrong.body.gates.find((g: { name: string }) => g.name === "artifact_known");
    expect(gate).toMatchObject({ passed: false });
    expect(gate.detail).toContain(
      `runs strategy code ${bot.spec.strategy.code.digest}, not sha256:000`,
    );

    const right = await request("code-right", bot.spec.strategy.code.digest);
    expect(right.body.status).toBe("pending");
    const approved = await call(
      p.url,
      "POST",
      "/promotion/requests/code-right/approve",
      {},
      as("bob"),
    );
    expect(approved.status).toBe(200);
    const token: string = approved.body.approved_promotion;
    expect(claimsOf(token)).toMatchObject({
      version_hash: bot.spec_hash,
      strategy_digest: bot.spec.strategy.code.digest,
    });

    // The token verifies, and the session runs the code (strategy-code-paper.test.ts follows one).
    const paper = await call(p.url, "POST", "/bots/gated-code/paper/start", {
      approved_promotion: token,
      speed: 50,
    });
    expect(paper.status).toBe(202);
    await eventually(
      "the code's session records its orders",
      () => call(p.url, "GET", "/bots/gated-code/state/events?type=order_placed"),
      (r) => r.body.items?.length > 0,
      30_000,
    );
    expect((await call(p.url, "POST", "/bots/gated-code/halt", { reason: "done" })).status).toBe(
      200,
    );
  }, 60_000);

  it("refuses a token for the version's hash that names other code, or none", async () => {
    const keys = p.platform.config.promotionTokens;
    const { privateKey } = statementKeysFromPem({ privateKeyPem: keys.signingKeyPem });
    const { publicKey } = statementKeysFromPem({ publicKeyPem: keys.publicKeyPem });
    const target = {
      id: bot.id,
      specHash: bot.spec_hash,
      strategyDigest: bot.spec.strategy.code.digest,
    };
    const verdict = async (claims: Record<string, unknown>) => {
      const token = await signStatement(
        privateKey!,
        {
          request_id: "forged",
          bot_id: bot.id,
          version: 1,
          version_hash: bot.spec_hash,
          ...claims,
        },
        { audience: "svc:bots", ttlSeconds: 60 },
      );
      const deps = { db: schemaDb(p.platform.db.db, "bots"), schema: "bots", publicKey };
      return assertApprovedPromotion(deps as never, token, target).then(
        () => "accepted",
        (err) => `${errorDetailOf(err).code}: ${(err as Error).message}`,
      );
    };
    expect(await verdict({})).toMatch(/approved_promotion_required: .*approves no strategy code/);
    expect(await verdict({ strategy_digest: `sha256:${"1".repeat(64)}` })).toMatch(
      /approves strategy code sha256:1111.*this version runs strategy code sha256:/,
    );
  });
});
