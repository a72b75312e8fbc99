import { readFileSync } from "node:fs";
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningPlatform } from "@svc/all-in-one";
import { mlpOnnx } from "@svc/bots/models";
import { call, PLATFORM_START_TIMEOUT_MS, startTestPlatform } from "../support/test-platform.js";
import { eventually } from "../support/until.js";

const as = (user: string) => ({ "x-svc-local-user": user });
const claimsOf = (token: string) =>
  JSON.parse(Buffer.from(token.split(".")[1]!, "base64url").toString("utf8"));
const POLICY_STRATEGY = readFileSync(
  new URL("../../services/bots/src/sandbox/fixtures/policy.strategy.ts", import.meta.url),
  "utf8",
);
// The policy network, written here: observation of 4 returns, 8 hidden units, 2 outputs.
const POLICY = mlpOnnx({ inputs: 4, hidden: 8, outputs: 2, seed: 3 });
const b64 = (bytes: Uint8Array) => Buffer.from(bytes).toString("base64");

describe("a drl_policy bot end to end: upload, backtest, promote, paper-trade (real Postgres)", () => {
  let p: RunningPlatform;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  let bot: any;
  let digest: string;
  const saved = { ...process.env };

  beforeAll(async () => {
    process.env.SVC_STRATEGY_CALL_TIMEOUT_MS = "5000";
    p = await startTestPlatform("postgres");
  }, PLATFORM_START_TIMEOUT_MS);
  afterAll(async () => {
    await p?.close();
    process.env = saved;
  });

  it("keeps an ONNX model ONNX Runtime loads, by digest, and says why it refuses one it cannot", async () => {
    const up = await call(p.url, "POST", "/models", { onnx: b64(POLICY) }, as("alice"));
    expect(up.status).toBe(201);
    expect(up.body.digest).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(up.body.inputs).toEqual([{ name: "obs", type: "float32", dims: ["batch", "4"] }]);
    expect(up.body.outputs).toEqual([{ name: "action", type: "float32", dims: ["batch", "2"] }]);
    digest = up.body.digest;
    // The same bytes again: the same model, not a second one.
    const again = await call(p.url, "POST", "/models", { onnx: b64(POLICY) }, as("bob"));
    expect([again.body.digest, again.body.created_by]).toEqual([digest, up.body.created_by]);

    const corrupt = await call(p.url, "POST", "/models", { onnx: b64(POLICY.subarray(0, 40)) });
    expect(corrupt.status).toBe(400);
    expect(corrupt.body.error.code).toBe("invalid_model");
    const unsupported = mlpOnnx({ inputs: 4, hidden: 8, outputs: 2, unsupportedOp: "Teleport" });
    const odd = await call(p.url, "POST", "/models", { onnx: b64(unsupported) });
    expect(odd.status).toBe(400);
    expect(odd.body.error.message).toMatch(/No Op registered for Teleport/);
    const stored = await sql<{
      n: number;
    }>`select count(*)::int as n from bots.models`.execute(p.platform.db.db);
    expect(stored.rows[0]!.n).toBe(1);
  }, 60_000);

  it("makes a version that runs the model (its digest in spec_hash), refusing a digest no upload stored", async () => {
    const spec = (modelDigest: string) => ({
      name: "Policy Bot",
      kind: "trading",
      strategy: { code: { files: [{ path: "strategy.ts", content: POLICY_STRATEGY }] } },
      models: [{ name: "policy", digest: modelDigest }],
    });
    const missing = await call(p.url, "POST", "/bots", spec(`sha256:${"7".repeat(64)}`));
    expect(missing.status).toBe(400);
    expect(missing.body.error).toMatchObject({ code: "model_not_found" });
    const created = await eventually(
      "the strategy checker takes the policy strategy",
      () => call(p.url, "POST", "/bots", spec(digest), as("alice")),
      (r) => r.status !== 429,
      60_000,
    );
    expect(created.status).toBe(201);
    bot = created.body;
    expect(bot.spec.models).toEqual([{ name: "policy", uri: "", version: "", digest }]);
  }, 90_000);

  it("backtests the policy: the model decides in the host, and the run trades", async () => {
    const res = await call(p.url, "POST", "/bots/policy-bot/backtest", {
      data_source: "csv:sample-btc-usd-1d",
    });
    expect(res.status).toBe(202);
    const done = await eventually(
      "the backtest ends",
      async () =>
        (await call(p.url, "GET", "/bots/policy-bot/deployments")).body.items.find(
          (x: { task_id: string }) => x.task_id === res.body.task_id,
        ),
      (d) => d?.status === "success" || d?.status === "failed",
      90_000,
    );
    expect(done.result_summary.error).toBeUndefined();
    expect(done.status).toBe("success");
    expect(done.result_summary.trades).toBeGreaterThan(0);
  }, 120_000);

  let token: string;
  it("promotes it as a drl_policy through the gates and four eyes: the token names the model's digest", async () => {
    await eventually(
      "the promotion service learns the version and its model",
      async () =>
        (
          await sql<{
            models: string | null;
          }>`select model_digests as models from promotion.known_bot_versions where bot_id = ${bot.id}`.execute(
            p.platform.db.db,
          )
        ).rows[0]?.models,
      (m) => m === JSON.stringify({ policy: digest }),
    );
    const request = (id: string, models: Record<string, string>) =>
      call(
        p.url,
        "POST",
        "/promotion/requests",
        {
          request_id: id,
          kind: "drl_policy",
          artifact: {
            bot_ref: bot.id,
            version: 1,
            version_hash: bot.spec_hash,
            strategy_digest: bot.spec.strategy.code.digest,
            model_digests: models,
          },
          validation: { verdict: "PASS" },
          risk: { decision: "APPROVE" },
        },
        as("alice"),
      );
    const wrong = await request("policy-wrong", { policy: `sha256:${"0".repeat(64)}` });
    expect(wrong.body.status).toBe("denied");
    expect(
      wrong.body.gates.find((g: { name: string }) => g.name === "artifact_known").detail,
    ).toContain(`runs model policy ${digest}, not model policy sha256:000`);

    const right = await request("policy-right", { policy: digest });
    expect(right.body.status).toBe("pending");
    expect(right.body.gates.find((g: { name: string }) => g.name === "policy_model")).toMatchObject(
      { passed: true },
    );
    // Four eyes: the submitter cannot approve her own request.
    const self = await call(
      p.url,
      "POST",
      "/promotion/requests/policy-right/approve",
      {},
      as("alice"),
    );
    expect(self.status).toBe(403);
    const approved = await call(
      p.url,
      "POST",
      "/promotion/requests/policy-right/approve",
      {},
      as("bob"),
    );
    expect(approved.status).toBe(200);
    token = approved.body.approved_promotion;
    expect(claimsOf(token)).toMatchObject({
      kind: "drl_policy",
      version_hash: bot.spec_hash,
      model_digests: { policy: digest },
    });
  }, 60_000);

  it("paper-trades on the token, recording each inference as a model_output event", async () => {
    const paper = await call(p.url, "POST", "/bots/policy-bot/paper/start", {
      approved_promotion: token,
      speed: 50,
    });
    expect(paper.status).toBe(202);
    const outputs = await eventually(
      "the session records the model's answers",
      () => call(p.url, "GET", "/bots/policy-bot/state/events?type=model_output"),
      (r) => r.body.items?.length > 2,
      60_000,
    );
    expect(outputs.body.items[0].data).toMatchObject({ model: "policy", digest });
    expect(outputs.body.items[0].data.outputs.action.dims).toEqual([1, 2]);
    expect((await call(p.url, "POST", "/bots/policy-bot/halt", { reason: "done" })).status).toBe(
      200,
    );
  }, 90_000);

  it("refuses the token once the model stored under its digest was swapped; replay needs no model", async () => {
    const other = mlpOnnx({ inputs: 4, hidden: 8, outputs: 2, seed: 4 });
    await sql`update bots.models set onnx = ${Buffer.from(other)} where digest = ${digest}`.execute(
      p.platform.db.db,
    );
    const paper = await call(p.url, "POST", "/bots/policy-bot/paper/start", {
      approved_promotion: token,
      speed: 50,
    });
    expect(paper.status).toBe(403);
    expect(paper.body.error.code).toBe("approved_promotion_required");
    expect(paper.body.error.message).toMatch(
      /approves model "policy" sha256:.*now hashes to sha256:/,
    );
    // Replay answers the strategy from the recorded model_output events: no model runs, so the
    // swapped file changes nothing, and the re-run gives the recorded orders.
    const replay = await call(p.url, "POST", "/bots/policy-bot/replay", { rerun_strategy: true });
    expect(replay.status).toBe(200);
    expect(replay.body.deterministic).toBe(true);
  }, 60_000);
});
