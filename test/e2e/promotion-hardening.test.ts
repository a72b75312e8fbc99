import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freshMfaClaims, startTestIdp, type TestIdp } from "@svc/lib/auth/testing";
import type { RunningPlatform } from "@svc/all-in-one";
import { call, startTestPlatform } from "../support/test-platform.js";
import { grantMembership } from "../support/memberships.js";
import { startOidcPlatform, testUser, type OidcPlatform } from "../support/oidc-platform.js";

const WRITER = ["read:bots", "write:bots", "submit:promotion", "read:promotion", "run:bots"];
const APPROVER = ["read:bots", "read:promotion", "approve:promotion"];
const READER = ["read:promotion"];
const PLATFORM_ENV = {
  SVC_AUTH_AGENT_TOKEN_EXCHANGE_ENABLED: "true",
  SVC_PROMOTION_SKIP_HUMAN_KINDS: "allocation",
};

// No path to live without a human, and the token that opens it only in the hands that may use it.
describe("promotion: the submitter never waives the human, readers never see the token", () => {
  let o: OidcPlatform;
  let p: RunningPlatform;
  const bearer = async (username: string) => ({
    authorization: `Bearer ${await o.tokens.user(username, { mfa: true })}`,
  });
  const newBot = async (slug: string) =>
    (
      await call(
        p.url,
        "POST",
        "/bots",
        { name: slug, slug, kind: "trading" },
        await bearer("alice"),
      )
    ).body as { id: string; spec_hash: string };
  const submit = async (
    id: string,
    slug: string,
    hash: string,
    headers: Record<string, string>,
    extra: Record<string, unknown> = {},
  ) =>
    call(
      p.url,
      "POST",
      "/promotion/requests",
      {
        request_id: id,
        kind: "strategy",
        artifact: { bot_ref: slug, version: 1, version_hash: hash },
        validation: { verdict: "PASS" },
        risk: { decision: "APPROVE" },
        ...extra,
      },
      headers,
    );

  beforeAll(async () => {
    o = await startOidcPlatform(
      "postgres",
      [
        testUser("alice", WRITER),
        testUser("bob", APPROVER),
        testUser("carol", READER),
        testUser("dave", ["read:promotion", "run:bots"]),
      ],
      PLATFORM_ENV,
    );
    p = o.p;
  }, 60_000);
  afterAll(async () => {
    await o?.close();
  });

  it("requires_human_approval=false from one person alone stays pending, and says which policy decided", async () => {
    const bot = await newBot("waiver");
    const alone = await submit("waive-1", "waiver", bot.spec_hash, await bearer("alice"), {
      requires_human_approval: false,
    });
    expect(alone.status).toBe(201);
    expect(alone.body).toMatchObject({
      status: "pending",
      requires_human_approval: true,
      approved_promotion: "",
      approved_promotion_issued: false,
    });
  });

  it("a listed kind from a person is approved by policy, and the decision log names the setting", async () => {
    const byPerson = await call(
      p.url,
      "POST",
      "/promotion/requests",
      {
        request_id: "waive-alloc",
        kind: "allocation",
        allocation: { capital: { waiver: 1000 } },
        validation: { verdict: "PASS" },
        risk: { decision: "APPROVE" },
        requires_human_approval: false,
      },
      await bearer("alice"),
    );
    expect(byPerson.body.status).toBe("approved");
    expect(byPerson.body.human_approved).toBe(false);
    expect(byPerson.body.decisions).toEqual([
      expect.objectContaining({
        actor: "(policy)",
        action: "auto_approve",
        note: expect.stringContaining("SVC_PROMOTION_SKIP_HUMAN_KINDS=allocation"),
      }),
    ]);
  });

  it("shows the token to its approver and to who may start or deploy, and only that one exists to a reader", async () => {
    const bot = await newBot("leak");
    await submit("leak-1", "leak", bot.spec_hash, await bearer("alice"));
    const approved = await call(
      p.url,
      "POST",
      "/promotion/requests/leak-1/approve",
      {},
      await bearer("bob"),
    );
    expect(approved.status).toBe(200);
    expect(approved.body.approved_promotion.split(".")).toHaveLength(3);

    const byReader = await call(
      p.url,
      "GET",
      "/promotion/requests/leak-1",
      undefined,
      await bearer("carol"),
    );
    expect(byReader.status).toBe(200);
    expect(byReader.body).toMatchObject({
      status: expect.stringMatching(/approved|promoted/),
      approved_promotion: "",
      approved_promotion_issued: true,
    });
    const listed = await call(
      p.url,
      "GET",
      "/promotion/requests",
      undefined,
      await bearer("carol"),
    );
    expect(JSON.stringify(listed.body)).not.toContain(
      approved.body.approved_promotion.split(".")[0],
    );

    const byApprover = await call(
      p.url,
      "GET",
      "/promotion/requests/leak-1",
      undefined,
      await bearer("bob"),
    );
    expect(byApprover.body.approved_promotion.split(".")).toHaveLength(3);
    const byRunner = await call(
      p.url,
      "GET",
      "/promotion/requests/leak-1",
      undefined,
      await bearer("dave"),
    );
    expect(byRunner.body.approved_promotion.split(".")).toHaveLength(3);
  });
});

// The delegation profile of a real provider grants the four MCP scopes only, so a delegated token
// that may submit a promotion (what this case needs to show the waiver is ignored) can only be
// crafted: it stays hand-signed, on a platform that trusts the hand-signing provider.
describe("promotion: a delegated agent never waives the human (hand-signed)", () => {
  let idp: TestIdp;
  let p: RunningPlatform;
  const agent = async (scopes: string[]) => ({
    authorization: `Bearer ${await idp.sign({
      ...freshMfaClaims("user|alice", scopes),
      act: { sub: "agent|quant-1", iss: idp.issuer },
      svc_delegated: true,
    })}`,
  });

  beforeAll(async () => {
    idp = await startTestIdp();
    p = await startTestPlatform("postgres", {
      SVC_AUTH_PROVIDER: "oidc",
      SVC_AUTH_OIDC_ISSUER: idp.issuer,
      SVC_AUTH_OIDC_AUDIENCE: idp.audience,
      ...PLATFORM_ENV,
    });
    await grantMembership(p, "user|alice");
  }, 60_000);
  afterAll(async () => {
    await p?.close();
    await idp?.stop();
  });

  it("a delegated agent's waiver is never honoured, even for a kind the operator listed", async () => {
    const byAgent = await call(
      p.url,
      "POST",
      "/promotion/requests",
      {
        request_id: "waive-agent",
        kind: "allocation",
        allocation: { capital: { waiver: 1000 } },
        validation: { verdict: "PASS" },
        risk: { decision: "APPROVE" },
        requires_human_approval: false,
      },
      await agent(WRITER),
    );
    expect(byAgent.status).toBe(201);
    expect(byAgent.body).toMatchObject({ status: "pending", approved_promotion: "" });
  });
});

describe("promotion: projections that lag never give a wrong answer", () => {
  let p: RunningPlatform;
  const as = (user: string) => ({ "x-svc-local-user": user });

  beforeAll(async () => {
    p = await startTestPlatform("postgres");
  }, 60_000);
  afterAll(async () => {
    await p?.close();
  });

  it("a request sent the moment a bot version exists is gated on it, and its token starts a session the moment approve returns", async () => {
    for (let i = 0; i < 10; i++) {
      const slug = `lag-${i}`;
      const bot = (
        await call(
          p.url,
          "POST",
          "/bots",
          {
            name: slug,
            slug,
            kind: "trading",
            strategy: { family: "ma_crossover", parameters: { fast: 3, slow: 8 } },
          },
          as("alice"),
        )
      ).body;
      const submitted = await call(
        p.url,
        "POST",
        "/promotion/requests",
        {
          request_id: `lag-${i}`,
          kind: "strategy",
          artifact: { bot_ref: slug, version: 1, version_hash: bot.spec_hash },
          validation: { verdict: "PASS" },
          risk: { decision: "APPROVE" },
        },
        as("alice"),
      );
      expect([
        submitted.status,
        submitted.body.status,
        submitted.body.gates.find((g: { name: string }) => g.name === "artifact_known")?.passed,
      ]).toEqual([201, "pending", true]);
      const approved = await call(
        p.url,
        "POST",
        `/promotion/requests/lag-${i}/approve`,
        {},
        as("bob"),
      );
      expect(approved.status).toBe(200);
      const started = await call(p.url, "POST", `/bots/${slug}/paper/start`, {
        approved_promotion: approved.body.approved_promotion,
        speed: 50,
      });
      expect([started.status, started.body.error]).toEqual([202, undefined]);
      await call(p.url, "POST", `/bots/${slug}/paper/stop`, {});
    }
  }, 60_000);

  it("a version the owner does not have is denied as unknown, for the right reason", async () => {
    const bot = (
      await call(
        p.url,
        "POST",
        "/bots",
        { name: "ghost", slug: "ghost", kind: "trading" },
        as("alice"),
      )
    ).body;
    const r = await call(
      p.url,
      "POST",
      "/promotion/requests",
      {
        request_id: "ghost-v9",
        kind: "strategy",
        artifact: { bot_ref: "ghost", version: 9, version_hash: bot.spec_hash },
        validation: { verdict: "PASS" },
        risk: { decision: "APPROVE" },
      },
      as("alice"),
    );
    expect(r.body.status).toBe("denied");
    expect(r.body.gates.find((g: { name: string }) => g.name === "artifact_known")).toMatchObject({
      passed: false,
    });
  });
});
