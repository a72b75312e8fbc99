import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningPlatform } from "@svc/all-in-one";
import { startMockKubeApi } from "../support/mock-kube-api.js";
import { call, startTestPlatform, PLATFORM_START_TIMEOUT_MS } from "../support/test-platform.js";
import { eventually } from "../support/until.js";

interface AuditRow {
  action: string;
  outcome: string;
  resource: string;
  details: Record<string, unknown>;
}

/**
 * PATCH /manage/deployments/{name}/scale through the gateway against a stand-in Kubernetes API
 * server (none runs here) that speaks the apps/v1 scale subresource: scaled, refused, missing,
 * hung; every call audited; bad input refused before any call.
 */
describe("control-plane scale", () => {
  let kube: Awaited<ReturnType<typeof startMockKubeApi>>;
  let p: RunningPlatform;
  const scale = (name: string, query: string) =>
    call(p.url, "PATCH", `/manage/deployments/${name}/scale${query}`);
  const audits = async () =>
    (await call(p.url, "GET", "/admin/audit-events?action=admin.controlplane.deployment.scale"))
      .body.items as AuditRow[];

  beforeAll(async () => {
    kube = await startMockKubeApi("sa-token");
    kube.put("trading", "deployments", { metadata: { name: "bots" }, spec: { replicas: 1 } });
    p = await startTestPlatform("pglite", {
      SVC_KUBE_API_URL: kube.url,
      SVC_KUBE_TOKEN: "sa-token",
      SVC_KUBE_NAMESPACE: "trading",
      SVC_KUBE_TIMEOUT_MS: "500",
    });
  }, 60_000);
  afterAll(async () => {
    await p?.close();
    await kube?.stop();
  }, PLATFORM_START_TIMEOUT_MS);

  it("scales a Deployment through its scale subresource, to zero too, and audits it", async () => {
    const res = await scale("bots", "?replicas=3");
    expect(res.status, res.text).toBe(200);
    expect(res.body).toEqual({ deployment_name: "bots", replicas: 3, namespace: "trading" });
    // The KillSwitch controller's watch talks to the same API server: find the scale among its calls.
    const sent = kube.requests.filter((r) => r.path.startsWith("/apis/apps/")).at(-1)!;
    expect(sent).toMatchObject({
      method: "PATCH",
      path: "/apis/apps/v1/namespaces/trading/deployments/bots/scale",
      contentType: "application/merge-patch+json",
    });
    expect(kube.objects.get("trading/deployments/bots")?.spec).toEqual({ replicas: 3 });
    expect((await scale("bots", "?replicas=0")).body.replicas).toBe(0);
    expect(kube.objects.get("trading/deployments/bots")?.spec).toEqual({ replicas: 0 });
    const rows = await eventually("both scales are audited", audits, (r) => r.length >= 2);
    expect(rows[0]).toMatchObject({
      outcome: "succeeded",
      resource: "deployment/bots",
      details: { replicas: 3, namespace: "trading", recorded_replicas: 3 },
    });
  });

  it("answers 404 for a Deployment the cluster does not have, audited as failed", async () => {
    const res = await scale("ghost", "?replicas=2");
    expect([res.status, res.body.error.code]).toEqual([404, "deployment_not_found"]);
    expect(res.body.error.message).toMatch(/ghost.*trading/);
    await eventually("the refusal is audited", audits, (r) =>
      r.some((e) => e.resource === "deployment/ghost" && e.outcome === "failed"),
    );
  });

  it("refuses bad input before calling the cluster", async () => {
    const before = kube.requests.length;
    for (const q of ["", "?replicas=-1", "?replicas=101", "?replicas=1.5", "?replicas=abc"]) {
      const res = await scale("bots", q);
      expect([res.status, res.body.error.details.field], q).toEqual([400, "replicas"]);
    }
    for (const name of ["Bots", "bots_1", "-bots", "bo%00ts", "x".repeat(254)]) {
      const res = await scale(name, "?replicas=1");
      expect(res.status, name).toBe(400);
    }
    // (the kill-switch controller's list-watch of its custom resources is its own traffic)
    const scales = kube.requests.slice(before).filter((r) => r.path.startsWith("/apis/apps/"));
    expect(scales).toEqual([]);
  });

  it("answers 503 with Retry-After when the API server hangs, within its deadline", async () => {
    kube.hang();
    const t0 = Date.now();
    const res = await scale("bots", "?replicas=2");
    expect(Date.now() - t0).toBeLessThan(5_000);
    expect([res.status, res.body.error.code]).toEqual([503, "kubernetes_unreachable"]);
    expect(res.headers.get("retry-after")).toBe("5");
  });
});

describe("control-plane scale without a cluster", () => {
  it(
    "answers 412 naming SVC_KUBE_API_URL, audited",
    async () => {
      const p = await startTestPlatform("pglite");
      try {
        const res = await call(p.url, "PATCH", "/manage/deployments/bots/scale?replicas=2");
        expect([res.status, res.body.error.details.setting]).toEqual([412, "SVC_KUBE_API_URL"]);
        await eventually(
          "the refusal is audited",
          async () =>
            (await call(p.url, "GET", "/admin/audit-events?resource=deployment%2Fbots")).body
              .items as AuditRow[],
          (rows) => rows.some((r) => r.details.error === "kubernetes_not_configured"),
        );
      } finally {
        await p.close();
      }
    },
    PLATFORM_START_TIMEOUT_MS,
  );
});
