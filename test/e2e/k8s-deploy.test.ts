import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sql } from "kysely";
import type { RunningPlatform } from "@svc/all-in-one";
import { call, startTestPlatform, PLATFORM_START_TIMEOUT_MS } from "../support/test-platform.js";
import { startMockKubeApi } from "../support/mock-kube-api.js";
import { eventually } from "../support/until.js";
import { approvedToken } from "../support/paper.js";

const as = (user: string) => ({ "x-svc-local-user": user });

describe("deploy to k8s: a Bot custom resource by server-side apply", () => {
  let kube: Awaited<ReturnType<typeof startMockKubeApi>>;
  let p: RunningPlatform;
  beforeAll(async () => {
    kube = await startMockKubeApi("sa-token");
    p = await startTestPlatform("pglite", {
      SVC_KUBE_API_URL: kube.url,
      SVC_KUBE_TOKEN: "sa-token",
      SVC_KUBE_NAMESPACE: "trading",
      SVC_KUBE_TIMEOUT_MS: "1000",
    });
  }, PLATFORM_START_TIMEOUT_MS);
  afterAll(async () => {
    await p?.close();
    await kube?.stop();
  });

  it("applies the Bot resource with the approved version and records a pending k8s deployment", async () => {
    const bot = (
      await call(
        p.url,
        "POST",
        "/bots",
        {
          name: "k8s",
          slug: "k8s-bot",
          kind: "trading",
          fleet: "majors",
          strategy: { family: "breakout", parameters: {} },
        },
        as("alice"),
      )
    ).body;
    await eventually(
      "the promotion service learns of the bot",
      () =>
        sql<{ n: number }>`select count(*)::int as n from promotion.known_bot_versions`.execute(
          p.platform.db.db,
        ),
      (r) => r.rows[0]!.n > 0,
    );
    await call(
      p.url,
      "POST",
      "/promotion/requests",
      {
        request_id: "k8s-1",
        kind: "strategy",
        artifact: { bot_ref: "k8s-bot", version: 1, version_hash: bot.spec_hash },
        validation: { verdict: "PASS" },
        risk: { decision: "APPROVE" },
      },
      as("alice"),
    );
    const token = (await call(p.url, "POST", "/promotion/requests/k8s-1/approve", {}, as("bob")))
      .body.approved_promotion;
    await eventually(
      "k8s-1 is promoted",
      () => call(p.url, "GET", "/promotion/requests/k8s-1"),
      (r) => r.body.status === "promoted",
    );

    expect(
      (await call(p.url, "POST", "/bots/k8s-bot/deploy", { target: "k8s" })).body.error.code,
    ).toBe("approved_promotion_required");
    // No venue configured (no SVC_LIVE_VENUE_USERNAME): a deploy to a venue says so, never a fake.
    for (const target of ["live", "venue_paper"]) {
      const atVenue = await call(p.url, "POST", "/bots/k8s-bot/deploy", {
        target,
        approved_promotion: token,
      });
      expect(atVenue.status).toBe(501);
      expect(atVenue.body.error).toMatchObject({ code: "venue_not_configured" });
      expect(atVenue.body.error.message).toMatch(/SVC_LIVE_VENUE_USERNAME/);
    }
    const res = await call(p.url, "POST", "/bots/k8s-bot/deploy", {
      target: "k8s",
      approved_promotion: token,
    });
    expect(res.status).toBe(202);
    expect(res.body).toMatchObject({ target: "k8s", status: "pending", version: 1 });
    const applied = kube.objects.get("trading/bots/k8s-bot");
    expect(applied).toMatchObject({
      apiVersion: "svc.example.io/v1",
      kind: "Bot",
      metadata: { name: "k8s-bot", namespace: "trading" },
      spec: {
        slug: "k8s-bot",
        fleet: "majors",
        version: 1,
        specHash: bot.spec_hash,
        approvedPromotion: token,
      },
    });
    // What the client library sent: discovery of the group, then one apply by the bots service.
    expect(
      kube.requests.some((r) => r.method === "GET" && r.path === "/apis/svc.example.io/v1"),
    ).toBe(true);
    const sent = kube.requests.at(-1)!;
    expect(sent).toMatchObject({
      method: "PATCH",
      path: "/apis/svc.example.io/v1/namespaces/trading/bots/k8s-bot?fieldManager=svc-bots&force=true",
      contentType: "application/apply-patch+yaml",
      body: { apiVersion: "svc.example.io/v1", kind: "Bot" },
    });
    expect(sent.body).not.toHaveProperty("status");
    // A second deploy updates the same resource (apply is idempotent).
    await call(p.url, "POST", "/bots/k8s-bot/deploy", { target: "k8s", approved_promotion: token });
    expect(kube.objects.size).toBe(1);
    expect(
      (await call(p.url, "GET", "/bots/k8s-bot/deployments")).body.items.filter(
        (d: { target: string }) => d.target === "k8s",
      ),
    ).toHaveLength(2);

    // An operator changes the version by hand and adds a note; the next approved deploy takes
    // the version back (the bots service owns the spec) and leaves the note, which is not its own.
    const edited = kube.objects.get("trading/bots/k8s-bot")!;
    kube.put("trading", "bots", {
      ...edited,
      metadata: { ...edited.metadata, annotations: { "ops.example/note": "pinned by hand" } },
      spec: { ...edited.spec, version: 7 },
    });
    await call(p.url, "POST", "/bots/k8s-bot/deploy", { target: "k8s", approved_promotion: token });
    const after = kube.objects.get("trading/bots/k8s-bot")!;
    expect(after.spec?.version).toBe(1);
    expect(after.metadata.annotations).toEqual({ "ops.example/note": "pinned by hand" });
    const owners = after.metadata.managedFields as Array<{ manager: string; fieldsV1: object }>;
    expect(owners.find((f) => f.manager === "svc-bots")?.fieldsV1).toMatchObject({
      "f:spec": { "f:version": {} },
    });
    expect(owners.find((f) => f.manager === "kubectl")?.fieldsV1).not.toMatchObject({
      "f:spec": { "f:version": {} },
    });

    // An API server that accepts the connection and never answers: 503 after the deadline,
    // and no deployment recorded for it.
    kube.hang();
    try {
      const hung = await call(p.url, "POST", "/bots/k8s-bot/deploy", {
        target: "k8s",
        approved_promotion: token,
      });
      expect([hung.status, hung.body.error.code]).toEqual([503, "kubernetes_unreachable"]);
      expect(hung.headers.get("retry-after")).toBe("5");
      const apply = "/apis/svc.example.io/v1/namespaces/trading/bots/k8s-bot?fieldManager";
      expect(kube.requests.some((r) => r.held && r.path.startsWith(apply))).toBe(true);
    } finally {
      kube.resume();
    }
    const k8sDeployments = (
      await call(p.url, "GET", "/bots/k8s-bot/deployments")
    ).body.items.filter((d: { target: string }) => d.target === "k8s");
    expect(k8sDeployments).toHaveLength(3);
  });

  it(
    "says what the API server answered when it refuses",
    async () => {
      const other = await startTestPlatform("pglite", {
        SVC_KUBE_API_URL: kube.url,
        SVC_KUBE_TOKEN: "wrong",
      });
      try {
        const bot = (
          await call(
            other.url,
            "POST",
            "/bots",
            {
              name: "x",
              slug: "x",
              kind: "trading",
              strategy: { family: "breakout", parameters: {} },
            },
            as("alice"),
          )
        ).body;
        await eventually(
          "the promotion service learns of the bot",
          () =>
            sql<{ n: number }>`select count(*)::int as n from promotion.known_bot_versions`.execute(
              other.platform.db.db,
            ),
          (r) => r.rows[0]!.n > 0,
        );
        await call(
          other.url,
          "POST",
          "/promotion/requests",
          {
            request_id: "x-1",
            kind: "strategy",
            artifact: { bot_ref: "x", version: 1, version_hash: bot.spec_hash },
            validation: { verdict: "PASS" },
            risk: { decision: "APPROVE" },
          },
          as("alice"),
        );
        const token = (
          await call(other.url, "POST", "/promotion/requests/x-1/approve", {}, as("bob"))
        ).body.approved_promotion;
        await eventually(
          "x-1 is promoted",
          () => call(other.url, "GET", "/promotion/requests/x-1"),
          (r) => r.body.status === "promoted",
        );
        const res = await call(other.url, "POST", "/bots/x/deploy", {
          target: "k8s",
          approved_promotion: token,
        });
        expect([res.status, res.body.error.code]).toEqual([412, "kubernetes_refused"]);
        expect(res.body.error.message).toMatch(/\(401\): Unauthorized/);
        expect((await call(other.url, "GET", "/bots/x/deployments")).body.items).toEqual([]);
      } finally {
        await other.close();
      }
    },
    PLATFORM_START_TIMEOUT_MS,
  );
});

describe("deploy to k8s with runner workloads: the reconciler runs at once", () => {
  let kube: Awaited<ReturnType<typeof startMockKubeApi>>;
  let p: RunningPlatform;
  beforeAll(async () => {
    kube = await startMockKubeApi("sa-token");
    p = await startTestPlatform("pglite", {
      SVC_KUBE_API_URL: kube.url,
      SVC_KUBE_TOKEN: "sa-token",
      SVC_KUBE_NAMESPACE: "trading",
      SVC_RUNNER_WORKLOADS: "kubernetes",
    });
  }, PLATFORM_START_TIMEOUT_MS);
  afterAll(async () => {
    await p?.close();
    await kube?.stop();
  });

  it("DeployBot's Bot gets its runner Deployment within seconds, not at the next 30 s pass", async () => {
    const token = await approvedToken(p, "workload-bot", "majors", {
      strategy: { family: "breakout", parameters: {} },
    });
    const deployed = await call(p.url, "POST", "/bots/workload-bot/deploy", {
      target: "k8s",
      approved_promotion: token,
    });
    expect(deployed.status).toBe(202);
    const runner = await eventually(
      "the runner Deployment",
      () => kube.objects.get("trading/deployments/bot-runner-workload-bot"),
      (d) => d !== undefined,
      3_000,
    );
    expect(runner).toMatchObject({ apiVersion: "apps/v1", kind: "Deployment" });
  });
});
