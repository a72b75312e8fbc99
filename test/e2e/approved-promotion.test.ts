import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sql } from "kysely";
import { ConnectError } from "@connectrpc/connect";
import type { RunningPlatform } from "@svc/all-in-one";
import { schemaDb } from "@svc/lib/db";
import { errorDetailOf } from "@svc/lib/errors";
import { signStatement, statementKeysFromPem } from "@svc/lib/signed-statement";
import { assertApprovedPromotion } from "@svc/bots/approved-promotion";
import { call, startTestPlatform } from "../support/test-platform.js";
import { eventually } from "../support/until.js";

const as = (user: string) => ({ "x-svc-local-user": user });

describe("the ApprovedPromotion token: issued on approval, verified offline by the bots service", () => {
  let p: RunningPlatform;
  let bot: { id: string; spec_hash: string };
  const verify = (token: string, target = { id: bot.id, specHash: bot.spec_hash }) =>
    assertApprovedPromotion(
      {
        db: schemaDb(p.platform.db.db, "bots"),
        schema: "bots",
        publicKey: statementKeysFromPem({
          publicKeyPem: p.platform.config.promotionTokens.publicKeyPem,
        }).publicKey,
      },
      token,
      target,
    );
  const refusal = async (promise: Promise<unknown>) => {
    try {
      await promise;
    } catch (err) {
      const e = ConnectError.from(err);
      return `${errorDetailOf(e).code}: ${e.rawMessage}`;
    }
    return "accepted";
  };
  const status = async (id: string) => (await call(p.url, "GET", `/promotion/requests/${id}`)).body;

  beforeAll(async () => {
    p = await startTestPlatform("pglite");
    bot = (await call(p.url, "POST", "/bots", { name: "Token bot", kind: "trading" }, as("alice")))
      .body;
    await eventually(
      "the promotion service learns of the bot",
      async () =>
        (
          await sql<{
            n: number;
          }>`select count(*)::int as n from promotion.known_bot_versions`.execute(p.platform.db.db)
        ).rows[0]!.n,
      (n) => n > 0,
    );
  });
  afterAll(async () => {
    await p?.close();
  });

  it("is accepted for its bot and version once the live plane activated it, and refused otherwise", async () => {
    await call(
      p.url,
      "POST",
      "/promotion/requests",
      {
        request_id: "tok-1",
        kind: "strategy",
        artifact: { bot_ref: bot.id, version: 1, version_hash: bot.spec_hash },
        validation: { verdict: "PASS" },
        risk: { decision: "APPROVE" },
      },
      as("alice"),
    );
    const approved = await call(p.url, "POST", "/promotion/requests/tok-1/approve", {}, as("bob"));
    const token: string = approved.body.approved_promotion;
    expect(token.split(".")).toHaveLength(3);
    await eventually(
      "the live plane activates the artifact (request promoted)",
      () => status("tok-1"),
      (r) => r.status === "promoted",
    );
    expect(await verify(token)).toEqual({ requestId: "tok-1", version: 1 });

    expect(await refusal(verify(token, { id: "another-bot", specHash: bot.spec_hash }))).toMatch(
      /^approved_promotion_required: .*another bot/,
    );
    expect(await refusal(verify(token, { id: bot.id, specHash: "f".repeat(64) }))).toMatch(
      /another version/,
    );
    expect(await refusal(verify(`${token.slice(0, -4)}AAAA`))).toMatch(
      /not a valid signed statement/,
    );
    expect(await refusal(verify(""))).toMatch(/none was sent/);
    const privateKey = statementKeysFromPem({
      privateKeyPem: p.platform.config.promotionTokens.signingKeyPem,
    }).privateKey!;
    const expired = await signStatement(
      privateKey,
      { request_id: "tok-1", bot_id: bot.id, version: 1, version_hash: bot.spec_hash },
      { audience: "svc:bots", ttlSeconds: -10 },
    );
    expect(await refusal(verify(expired))).toMatch(/expired/);

    await call(
      p.url,
      "POST",
      "/promotion/requests/tok-1/revoke",
      { reason: "limit breach" },
      as("bob"),
    );
    const outcome = await eventually(
      "the bots service learns of the revocation",
      () => refusal(verify(token)),
      (o) => o !== "accepted",
    );
    expect(outcome).toMatch(/was revoked/);
  });
});
