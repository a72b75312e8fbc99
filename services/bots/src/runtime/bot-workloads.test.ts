import { afterEach, describe, expect, it } from "vitest";
import { createKubeClient } from "@svc/lib/kube";
import { startMockKubeApi } from "../../../../test/support/mock-kube-api.js";
import {
  reconcileBotWorkloads,
  reportRunnerPhase,
  type RunnerWorkloadSettings,
} from "./bot-workloads.js";
import { applyBotResource } from "./kubernetes.js";

let api: Awaited<ReturnType<typeof startMockKubeApi>> | undefined;
afterEach(() => {
  api = undefined;
});

const settings: RunnerWorkloadSettings = {
  image: "svc-platform:test",
  runtimeClassName: "gvisor",
  mode: "live",
  venue: { adapter: "fix", host: "venue.svc", port: 9878 },
  credentialsSecret: "alpha-venue",
};

const hash = "a".repeat(64);
const digest = `sha256:${"b".repeat(64)}`;

describe("the bots service turns each Bot into one runner workload (stand-in API server)", () => {
  it("applies a one-replica Recreate Deployment with the digests, venue, Secret and RuntimeClass, owned by the Bot", async () => {
    api = await startMockKubeApi("t");
    const kube = createKubeClient({
      apiUrl: api.url,
      namespace: "svc",
      token: "t",
      timeoutMs: 2_000,
    });
    const bot = await applyBotResource(kube, {
      slug: "alpha",
      fleet: null,
      version: 3,
      specHash: hash,
      strategyDigest: digest,
      approvedPromotion: "token-3",
    });

    expect(await reconcileBotWorkloads(kube, settings)).toEqual(["bot-runner-alpha"]);
    const d = api.objects.get("svc/deployments/bot-runner-alpha")!;
    expect(d.metadata.ownerReferences).toEqual([
      expect.objectContaining({ kind: "Bot", name: "alpha", uid: bot.uid, controller: true }),
    ]);
    const spec = d.spec as Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
    expect(spec.replicas).toBe(1);
    expect(spec.strategy).toEqual({ type: "Recreate" });
    expect(spec.template.spec.runtimeClassName).toBe("gvisor");
    const env = Object.fromEntries(
      (
        spec.template.spec.containers[0].env as {
          name: string;
          value?: string;
          valueFrom?: unknown;
        }[]
      ).map((e) => [e.name, e.value ?? e.valueFrom]),
    );
    expect(env).toMatchObject({
      SVC_LIVE_BOT_SLUG: "alpha",
      SVC_LIVE_VERSION: "3",
      SVC_LIVE_SPEC_HASH: hash,
      SVC_LIVE_STRATEGY_DIGEST: digest,
      SVC_LIVE_APPROVED_PROMOTION: "token-3",
      SVC_LIVE_MODE: "live",
      SVC_LIVE_VENUE: "fix",
      SVC_LIVE_VENUE_PASSWORD: { secretKeyRef: { name: "alpha-venue", key: "password" } },
    });

    // A second pass, and a redeploy of a new version, keep one workload per Bot.
    await applyBotResource(kube, {
      slug: "alpha",
      fleet: null,
      version: 4,
      specHash: "c".repeat(64),
      approvedPromotion: "token-4",
    });
    await reconcileBotWorkloads(kube, settings);
    const deployments = [...api.objects.keys()].filter((k) => k.startsWith("svc/deployments/"));
    expect(deployments).toEqual(["svc/deployments/bot-runner-alpha"]);
    const again = api.objects.get("svc/deployments/bot-runner-alpha")!.spec as Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
    expect(again.replicas).toBe(1);
    const envAgain = again.template.spec.containers[0].env as { name: string; value?: string }[];
    expect(envAgain.find((e) => e.name === "SVC_LIVE_VERSION")!.value).toBe("4");
    expect(envAgain.some((e) => e.name === "SVC_LIVE_STRATEGY_DIGEST" && e.value === "")).toBe(
      true,
    );
  }, 30_000);

  it("puts the runner's phase and what the venue confirmed on the Bot's status", async () => {
    api = await startMockKubeApi("t");
    const kube = createKubeClient({
      apiUrl: api.url,
      namespace: "svc",
      token: "t",
      timeoutMs: 2_000,
    });
    await applyBotResource(kube, {
      slug: "beta",
      fleet: null,
      version: 1,
      specHash: hash,
      approvedPromotion: "t",
    });
    await reportRunnerPhase(kube, "beta", "Stopped", {
      confirmed: true,
      openAtVenue: 0,
      positionAtVenue: 0,
    });
    expect(api.objects.get("svc/bots/beta")!.status).toEqual({
      runnerPhase: "Stopped",
      venueConfirmed: true,
      venueOpenOrders: 0,
      venuePosition: 0,
    });
  }, 30_000);
});
