import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningPlatform } from "@svc/all-in-one";
import { freshMfaClaims, startTestIdp, userClaims, type TestIdp } from "@svc/lib/auth/testing";
import { grantMembership } from "../support/memberships.js";
import { startMockKubeApi } from "../support/mock-kube-api.js";
import { call, PLATFORM_START_TIMEOUT_MS, startTestPlatform } from "../support/test-platform.js";
import { eventually } from "../support/until.js";

const NS = "trading";
const SCOPES = ["admin:platform", "read:audit"];
const as = (token: string) => ({ authorization: `Bearer ${token}` });
const bot = (slug: string, fleet: string) => ({
  apiVersion: "svc.example.io/v1",
  kind: "Bot",
  metadata: { name: slug, labels: { "svc.example.io/fleet": fleet }, uid: `uid-${slug}` },
  spec: { slug, fleet, version: 2, specHash: `hash-${slug}`, approvedPromotion: "token" },
});

/**
 * Infrastructure apply and destroy of a fleet's BYOC runtime (spec, Authentication 6: both need
 * step-up MFA) through the client library against a stand-in Kubernetes API server: the dry run
 * shows the objects and writes nothing; apply writes the runner Deployments of the fleet's Bots;
 * destroy deletes the Bots and their runners; other fleets are not touched; every apply and
 * destroy is audited.
 */
describe("a fleet's infrastructure", () => {
  let idp: TestIdp;
  let kube: Awaited<ReturnType<typeof startMockKubeApi>>;
  let p: RunningPlatform;
  const token = async (mfa: boolean) =>
    as(await idp.sign((mfa ? freshMfaClaims : userClaims)("user|ops", SCOPES)));
  const infra = async (fleet: string, what: string, body: unknown = {}, mfa = true) =>
    call(p.url, "POST", `/manage/fleets/${fleet}/infrastructure/${what}`, body, await token(mfa));
  const runners = () =>
    [...kube.objects.keys()].filter((k) => k.startsWith(`${NS}/deployments/`)).sort();
  const bots = () => [...kube.objects.keys()].filter((k) => k.startsWith(`${NS}/bots/`)).sort();
  const audits = async (op: string) =>
    (
      await call(
        p.url,
        "GET",
        `/admin/audit-events?action=admin.controlplane.fleet_infrastructure.${op}`,
        undefined,
        await token(false),
      )
    ).body.items as Array<{ outcome: string; resource: string; details: Record<string, unknown> }>;

  beforeAll(async () => {
    idp = await startTestIdp();
    kube = await startMockKubeApi("sa-token");
    for (const [slug, fleet] of [
      ["alpha", "majors"],
      ["beta", "majors"],
      ["gamma", "minors"],
    ] as const)
      kube.put(NS, "bots", bot(slug, fleet));
    p = await startTestPlatform("pglite", {
      SVC_AUTH_PROVIDER: "oidc",
      SVC_AUTH_OIDC_ISSUER: idp.issuer,
      SVC_AUTH_OIDC_AUDIENCE: idp.audience,
      SVC_KUBE_API_URL: kube.url,
      SVC_KUBE_TOKEN: "sa-token",
      SVC_KUBE_NAMESPACE: NS,
      SVC_KUBE_TIMEOUT_MS: "2000",
      SVC_RUNNER_IMAGE: "registry.example/svc:1.2.3",
    });
    await grantMembership(p, "user|ops");
  }, PLATFORM_START_TIMEOUT_MS);
  afterAll(async () => {
    await p?.close();
    await kube?.stop();
    await idp?.stop();
  });

  it("shows in a dry run the runner Deployments apply would write, and writes nothing", async () => {
    const plan = await infra("majors", "dry-run", { operation: "apply" }, false);
    expect(plan.status, plan.text).toBe(200);
    expect(plan.body).toMatchObject({
      fleet: "majors",
      namespace: NS,
      operation: "apply",
      dry_run: true,
    });
    expect(
      plan.body.objects.map((o: { kind: string; name: string; result: string }) => [
        o.kind,
        o.name,
        o.result,
      ]),
    ).toEqual([
      ["Deployment", "bot-runner-alpha", "planned"],
      ["Deployment", "bot-runner-beta", "planned"],
    ]);
    expect(plan.body.objects[0].manifest.spec.template.spec.containers[0].image).toBe(
      "registry.example/svc:1.2.3",
    );
    expect(runners()).toEqual([]);
  });

  it("asks apply for step-up MFA, then applies the fleet's runners only, audited", async () => {
    const refused = await infra("majors", "apply", {}, false);
    expect(refused.status, refused.text).toBe(401);
    expect(refused.body.error.code).toBe("insufficient_user_authentication");
    expect(refused.headers.get("www-authenticate")).toContain(
      'error="insufficient_user_authentication"',
    );
    expect(runners()).toEqual([]);

    const applied = await infra("majors", "apply");
    expect(applied.status, applied.text).toBe(200);
    expect(applied.body.objects.map((o: { result: string }) => o.result)).toEqual([
      "applied",
      "applied",
    ]);
    expect(runners()).toEqual([
      `${NS}/deployments/bot-runner-alpha`,
      `${NS}/deployments/bot-runner-beta`,
    ]);
    const sent = kube.requests
      .filter((r) => r.path.startsWith("/apis/apps/v1/namespaces/"))
      .at(-1)!;
    expect(sent).toMatchObject({ method: "PATCH", contentType: "application/apply-patch+yaml" });
    const rows = await eventually(
      "the apply is audited",
      () => audits("apply"),
      (r) => r.length > 0,
    );
    expect(rows[0]).toMatchObject({
      outcome: "succeeded",
      resource: "fleet/majors",
      details: {
        namespace: NS,
        objects: [
          { name: "bot-runner-alpha", result: "applied" },
          { name: "bot-runner-beta", result: "applied" },
        ],
      },
    });
  });

  it("asks destroy for step-up MFA, then deletes the fleet's Bots and runners, no other fleet's", async () => {
    kube.put(NS, "deployments", {
      apiVersion: "apps/v1",
      kind: "Deployment",
      metadata: { name: "bot-runner-gamma" },
      spec: { replicas: 1 },
    });
    const plan = await infra("majors", "dry-run", { operation: "destroy" }, false);
    expect(
      plan.body.objects.map((o: { kind: string; name: string }) => `${o.kind}/${o.name}`),
    ).toEqual([
      "Bot/alpha",
      "Deployment/bot-runner-alpha",
      "Bot/beta",
      "Deployment/bot-runner-beta",
    ]);
    const refused = await infra("majors", "destroy", {}, false);
    expect([refused.status, refused.body.error.code]).toEqual([
      401,
      "insufficient_user_authentication",
    ]);
    expect(bots()).toHaveLength(3);
    // What deploy recorded for alpha (majors) and gamma (minors): their runners' deployments.
    const db = p.platform.db.db;
    for (const [n, slug, fleet] of [
      [1, "alpha", "majors"],
      [3, "gamma", "minors"],
    ] as const) {
      const id = `00000000-0000-4000-8000-00000000000${n}`;
      await sql`insert into bots.bots (id, slug, name, kind, status, current_version, spec_hash, spec, created_by, fleet)
        values (${id}, ${slug}, ${slug}, 'trading', 'active', 1, 'h', '{}', 'user|ops', ${fleet})`.execute(
        db,
      );
      await sql`insert into bots.bot_deployments (id, bot_id, version, target, status, task_id, request)
        values (gen_random_uuid(), ${id}, 1, 'k8s', 'running', ${`k8s-${slug}`}, '{}')`.execute(db);
    }
    const k8sRows = async () =>
      (
        await sql<{
          task_id: string;
          status: string;
          error: string | null;
        }>`select task_id, status, error from bots.bot_deployments where target = 'k8s' order by task_id`.execute(
          db,
        )
      ).rows;

    const destroyed = await infra("majors", "destroy");
    expect(destroyed.status, destroyed.text).toBe(200);
    expect(destroyed.body.objects.map((o: { result: string }) => o.result)).toEqual([
      "deleted",
      "deleted",
      "deleted",
      "deleted",
    ]);
    expect(bots()).toEqual([`${NS}/bots/gamma`]);
    expect(runners()).toEqual([`${NS}/deployments/bot-runner-gamma`]);
    // The destroyed fleet's deployments end with it; another fleet's run on.
    expect(await k8sRows()).toEqual([
      { task_id: "k8s-alpha", status: "halted", error: "the fleet's infrastructure was destroyed" },
      { task_id: "k8s-gamma", status: "running", error: null },
    ]);
    expect(
      kube.requests.some(
        (r) => r.method === "DELETE" && r.path.includes("/deployments/bot-runner-alpha"),
      ),
    ).toBe(true);
    const again = await infra("majors", "destroy");
    expect([again.status, again.body.objects ?? []]).toEqual([200, []]);
    const rows = await eventually(
      "the destroys are audited",
      () => audits("destroy"),
      (r) => r.length >= 2,
    );
    expect(rows[0]).toMatchObject({ outcome: "succeeded", resource: "fleet/majors" });
  });

  it("refuses a bad fleet name with a 400 naming it, before calling the cluster", async () => {
    const before = kube.requests.length;
    for (const fleet of ["Majors", "ma_jors", "-majors", "x".repeat(64)]) {
      const res = await infra(fleet, "dry-run");
      expect([res.status, res.body.error?.details?.field], fleet).toEqual([400, "fleet"]);
    }
    expect(kube.requests.length).toBe(before);
  });

  it("refuses a second operation on a fleet while one runs, and answers 503 when the API server does not answer", async () => {
    kube.hang();
    let first: ReturnType<typeof infra> | undefined;
    try {
      first = infra("minors", "apply");
      await eventually(
        "the first apply waits on the cluster",
        () => kube.requests.some((r) => r.held && r.path.includes("fleet%3Dminors")),
        (v) => v,
      );
      const second = await infra("minors", "destroy");
      expect([second.status, second.body.error?.code], second.text).toEqual([
        409,
        "fleet_infrastructure_busy",
      ]);
      expect(second.body.error.message).toMatch(/another apply/);
    } finally {
      kube.resume();
    }
    const res = await first!;
    expect([res.status, res.body.error.code]).toEqual([503, "kubernetes_unreachable"]);
    expect(bots()).toContain(`${NS}/bots/gamma`);
    const rows = await eventually(
      "the failure is audited",
      () => audits("apply"),
      (r) => r.some((e) => e.resource === "fleet/minors"),
    );
    expect(rows.find((e) => e.resource === "fleet/minors")).toMatchObject({
      outcome: "failed",
      details: { error: "kubernetes_unreachable" },
    });
    const after = await infra("minors", "apply");
    expect(after.status, after.text).toBe(200);
  });
});
