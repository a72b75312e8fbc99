import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sql } from "kysely";
import type { RunningPlatform } from "@svc/all-in-one";
import { call, startTestPlatform, PLATFORM_START_TIMEOUT_MS } from "../support/test-platform.js";
import { startMockKubeApi } from "../support/mock-kube-api.js";
import { eventually } from "../support/until.js";

// The KillSwitch controller against a stand-in Kubernetes API server.
describe("KillSwitch custom resources mirrored by the controller", () => {
  let kube: Awaited<ReturnType<typeof startMockKubeApi>>;
  let p: RunningPlatform;
  beforeAll(async () => {
    kube = await startMockKubeApi("sa-token");
    p = await startTestPlatform("pglite", {
      SVC_KUBE_API_URL: kube.url,
      SVC_KUBE_TOKEN: "sa-token",
      SVC_KUBE_NAMESPACE: "svc",
      // A hung API server is given up on quickly here.
      SVC_KUBE_TIMEOUT_MS: "500",
    });
    await call(p.url, "POST", "/bots", {
      name: "cr",
      slug: "cr-bot",
      kind: "trading",
      fleet: "alpha",
    });
    await eventually(
      "the killswitch service learns of the bot",
      () =>
        sql<{ n: number }>`select count(*)::int as n from killswitch.known_bots`.execute(
          p.platform.db.db,
        ),
      (r) => r.rows[0]!.n > 0,
    );
    kube.put("svc", "bots", {
      apiVersion: "svc.example.io/v1",
      kind: "Bot",
      metadata: { name: "cr-bot" },
      spec: { slug: "cr-bot", fleet: "alpha", version: 1, specHash: "0".repeat(64) },
    });
  }, PLATFORM_START_TIMEOUT_MS);
  afterAll(async () => {
    await p?.close();
    await kube?.stop();
  });

  it("engages a CR's switch in the service, writes the CR and Bot statuses, and releases when the CR goes", async () => {
    kube.put("svc", "killswitches", {
      apiVersion: "svc.example.io/v1",
      kind: "KillSwitch",
      metadata: { name: "alpha-halt" },
      spec: { scope: "fleet", target: "alpha", mode: "flatten", reason: "risk desk" },
    });
    const engaged = await eventually(
      "the controller engages k8s-alpha-halt",
      () => call(p.url, "GET", "/kill-switches/k8s-alpha-halt"),
      (r) => r.status === 200,
      8_000,
    );
    expect(engaged.body).toMatchObject({
      spec: { scope: "fleet", target: "alpha", mode: "flatten", reason: "risk desk" },
      status: { engaged: true, engaged_by: "system:k8s-controller" },
    });
    expect(await p.platform.kv.get("svc:bots:killswitch:fleet:alpha")).toContain("flatten");
    await eventually(
      "the Bot resource shows the switch engaged",
      async () => kube.objects.get("svc/bots/cr-bot")?.status?.killSwitchEngaged,
      (v) => v === true,
      8_000,
    );
    expect(kube.objects.get("svc/killswitches/alpha-halt")?.status).toMatchObject({
      engaged: true,
      observedGeneration: 1,
    });
    expect(kube.objects.get("svc/bots/cr-bot")?.status).toEqual({
      phase: "Stopped",
      killSwitchEngaged: true,
      killSwitchReason: "k8s-alpha-halt: risk desk",
    });
    expect(
      kube.requests.some(
        (r) =>
          r.method === "PATCH" &&
          r.path.endsWith("/status") &&
          r.contentType === "application/merge-patch+json",
      ),
    ).toBe(true);

    kube.remove("svc", "killswitches", "alpha-halt");
    await eventually(
      "the controller releases k8s-alpha-halt",
      () => call(p.url, "GET", "/kill-switches/k8s-alpha-halt"),
      (r) => r.status === 404,
      8_000,
    );
    expect(await p.platform.kv.get("svc:bots:killswitch:fleet:alpha")).toBeNull();
    await eventually(
      "the Bot resource shows the switch released",
      async () => kube.objects.get("svc/bots/cr-bot")?.status?.killSwitchEngaged,
      (v) => v === false,
      8_000,
    );
    expect(kube.objects.get("svc/bots/cr-bot")?.status).toEqual({
      phase: "Running",
      killSwitchEngaged: false,
      killSwitchReason: "",
    });
    await eventually(
      "the platform's audit trail names the controller",
      async () =>
        (await call(p.url, "GET", "/admin/audit-events?action=killswitch.engaged")).body.items.map(
          (e: { actor: { subject: string } }) => e.actor.subject,
        ) as string[],
      (subjects) => subjects.includes("system:k8s-controller"),
    );
  });

  it("an edit of a KillSwitch to another scope is refused in its status until it sets spec.rescope; the move then audits the old key's release", async () => {
    const night = (spec: Record<string, unknown>) =>
      kube.put("svc", "killswitches", {
        apiVersion: "svc.example.io/v1",
        kind: "KillSwitch",
        metadata: { name: "night" },
        spec,
      });
    const platformWide = {
      scope: "platform",
      target: "platform",
      mode: "cancel",
      reason: "outage",
    };
    night(platformWide);
    await eventually(
      "the controller engages k8s-night on the platform",
      async () => kube.objects.get("svc/killswitches/night")?.status?.observedGeneration,
      (g) => g === 1,
    );
    // The manifest of another incident, reusing the name.
    night({ scope: "bot", target: "cr-bot", mode: "cancel", reason: "one bot" });
    const refused = await eventually(
      "the CR's status says the edit was refused",
      async () => kube.objects.get("svc/killswitches/night")?.status,
      (st) => typeof st?.refusal === "string",
    );
    expect(refused).toMatchObject({ engaged: true, observedGeneration: 1 });
    expect(refused!.refusal).toMatch(/spec\.rescope: true/);
    expect((await call(p.url, "GET", "/kill-switches/k8s-night")).body.spec.scope).toBe("platform");
    expect(await p.platform.kv.get("svc:bots:killswitch:platform:platform")).toContain("k8s-night");

    night({ scope: "bot", target: "cr-bot", mode: "cancel", reason: "one bot", rescope: true });
    await eventually(
      "the controller moves k8s-night to the bot",
      async () => (await call(p.url, "GET", "/kill-switches/k8s-night")).body.spec?.scope,
      (scope) => scope === "bot",
    );
    expect(await p.platform.kv.get("svc:bots:killswitch:platform:platform")).toBeNull();
    const released = await eventually(
      "the old key's release reaches the audit trail",
      async () =>
        (
          await call(
            p.url,
            "GET",
            "/admin/audit-events?action=killswitch.released&resource=kill_switch%2Fk8s-night",
          )
        ).body.items as Array<{ actor: { subject: string }; details: Record<string, string> }>,
      (items) => items.length > 0,
    );
    expect(released[0]).toMatchObject({
      actor: { subject: "system:k8s-controller" },
      details: { key: "svc:bots:killswitch:platform:platform" },
    });
    await eventually(
      "the refusal is cleared",
      async () => kube.objects.get("svc/killswitches/night")?.status,
      (st) => st?.refusal === undefined && st?.observedGeneration === 3,
    );
    kube.remove("svc", "killswitches", "night");
    await eventually(
      "the controller releases k8s-night",
      () => call(p.url, "GET", "/kill-switches/k8s-night"),
      (r) => r.status === 404,
    );
  });

  it("lists again after 410 Gone and so sees a deletion its watch missed", async () => {
    kube.put("svc", "killswitches", {
      apiVersion: "svc.example.io/v1",
      kind: "KillSwitch",
      metadata: { name: "gap-halt" },
      spec: { scope: "bot", target: "cr-bot", mode: "cancel", reason: "gap" },
    });
    await eventually(
      "the controller engages k8s-gap-halt",
      () => call(p.url, "GET", "/kill-switches/k8s-gap-halt"),
      (r) => r.status === 200,
    );
    const isList = (r: { method: string; path: string }) =>
      r.method === "GET" && r.path === "/apis/svc.example.io/v1/namespaces/svc/killswitches";
    const listsBefore = kube.requests.filter(isList).length;
    // The DELETED event is lost, and the history with it: the watch comes back with a
    // resourceVersion the server no longer has, is told 410 Expired, and must list.
    kube.remove("svc", "killswitches", "gap-halt", { silently: true });
    kube.expireHistory();
    await eventually(
      "the controller releases k8s-gap-halt",
      () => call(p.url, "GET", "/kill-switches/k8s-gap-halt"),
      (r) => r.status === 404,
    );
    expect(kube.requests.filter(isList).length).toBeGreaterThan(listsBefore);
  });

  it("engages the switch while the API server hangs, retries the status it cannot write, and writes it once the server answers", async () => {
    // Both list-watches are connected (the last test made one list and watch again).
    await eventually(
      "the controller watches again",
      () => kube.watchCount(),
      (n) => n >= 2,
    );
    kube.hang();
    // Delivered on the watch that was open before the server hung.
    kube.put("svc", "killswitches", {
      apiVersion: "svc.example.io/v1",
      kind: "KillSwitch",
      metadata: { name: "hang-halt" },
      spec: { scope: "fleet", target: "alpha", mode: "freeze", reason: "hung api" },
    });
    await eventually(
      "the switch is engaged in the service though the API server does not answer",
      () => call(p.url, "GET", "/kill-switches/k8s-hang-halt"),
      (r) => r.status === 200,
    );
    const heldPatches = () =>
      kube.requests.filter(
        (r) => r.held && r.method === "PATCH" && r.path.endsWith("/killswitches/hang-halt/status"),
      ).length;
    await eventually("the status patch times out and is tried again", heldPatches, (n) => n >= 2);
    kube.resume();
    await eventually(
      "the CR's status is written once the API server answers",
      async () => kube.objects.get("svc/killswitches/hang-halt")?.status,
      (s) => s?.engaged === true && s?.observedGeneration === 1,
    );
    kube.remove("svc", "killswitches", "hang-halt");
    await eventually(
      "the controller releases k8s-hang-halt",
      () => call(p.url, "GET", "/kill-switches/k8s-hang-halt"),
      (r) => r.status === 404,
    );
  });
});
