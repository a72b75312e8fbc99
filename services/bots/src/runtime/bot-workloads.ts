import {
  applyObject,
  kubeError,
  patchStatus,
  SVC_API_VERSION,
  SVC_GROUP,
  SVC_VERSION,
  type KubeClient,
  type KubernetesObject,
} from "@svc/lib/kube";
import { BOTS_FIELD_MANAGER } from "./kubernetes.js";

/** How the bots service turns a `Bot` resource into the workload that runs it. */
export interface RunnerWorkloadSettings {
  /** The platform image the runner starts from (the bots service's own). */
  image: string;
  /** The RuntimeClass of the strategy sandbox (deploy/k8s/cluster: `gvisor`); empty: the node's default. */
  runtimeClassName: string;
  /** `paper` (the venue's data, simulated fills) or `live` (orders to the venue). */
  mode: "paper" | "live";
  venue: { adapter: "fix" | "ccxt"; host: string; port: number };
  /**
   * The Secret with the venue's credentials (keys `username` and `password` for FIX, `apiKey`
   * and `secret` for ccxt): mounted into the runner's environment only, never read by the
   * bots service itself.
   */
  credentialsSecret: string;
}

/** A Bot custom resource as the bots service applied it. */
export interface BotResource extends KubernetesObject {
  spec: {
    slug: string;
    version: number;
    specHash: string;
    strategyDigest?: string;
    approvedPromotion?: string;
    fleet?: string;
  };
}

export const runnerName = (slug: string) => `bot-runner-${slug}`.slice(0, 63).replace(/-+$/, "");

/**
 * The runner workload of one Bot: an apps/v1 Deployment of exactly one replica, rolled by
 * `Recreate` (the old pod is gone before the new one starts, so a rollout never runs two); the
 * session lease's fencing stays the guard against anything else (a node cut off but still
 * running its pod). It carries the version's digests and token (verified again by the runner at
 * start), the venue's settings, the credentials from a Secret, and the sandbox's RuntimeClass.
 * Owned by the Bot: deleting the Bot deletes its runner.
 */
export function runnerWorkloadOf(
  bot: BotResource,
  s: RunnerWorkloadSettings,
): KubernetesObject & { spec: object } {
  const slug = bot.spec.slug;
  const labels = {
    "app.kubernetes.io/name": "bot-runner",
    "app.kubernetes.io/part-of": "svc",
    "svc.example.io/bot": slug,
  };
  const secret = (key: string) => ({
    valueFrom: { secretKeyRef: { name: s.credentialsSecret, key } },
  });
  const credentials =
    s.venue.adapter === "fix"
      ? [
          { name: "SVC_LIVE_VENUE_USERNAME", ...secret("username") },
          { name: "SVC_LIVE_VENUE_PASSWORD", ...secret("password") },
        ]
      : [
          { name: "SVC_LIVE_VENUE_API_KEY", ...secret("apiKey") },
          { name: "SVC_LIVE_VENUE_API_SECRET", ...secret("secret") },
        ];
  return {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: {
      name: runnerName(slug),
      labels,
      ownerReferences: [
        {
          apiVersion: SVC_API_VERSION,
          kind: "Bot",
          name: bot.metadata?.name ?? slug,
          uid: bot.metadata?.uid ?? "",
          controller: true,
          blockOwnerDeletion: true,
        },
      ],
    },
    spec: {
      replicas: 1,
      strategy: { type: "Recreate" },
      selector: { matchLabels: labels },
      template: {
        metadata: {
          labels,
          annotations: {
            "svc.example.io/spec-hash": bot.spec.specHash,
            ...(bot.spec.strategyDigest
              ? { "svc.example.io/strategy-digest": bot.spec.strategyDigest }
              : {}),
          },
        },
        spec: {
          ...(s.runtimeClassName ? { runtimeClassName: s.runtimeClassName } : {}),
          automountServiceAccountToken: false,
          securityContext: {
            runAsNonRoot: true,
            runAsUser: 10001,
            seccompProfile: { type: "RuntimeDefault" },
          },
          containers: [
            {
              name: "runner",
              image: s.image,
              args: ["npm", "run", "runner:live", "-w", "services/bots"],
              envFrom: [{ configMapRef: { name: "svc-config" } }],
              env: [
                { name: "SVC_LIVE_BOT_SLUG", value: slug },
                { name: "SVC_LIVE_VERSION", value: String(bot.spec.version) },
                { name: "SVC_LIVE_SPEC_HASH", value: bot.spec.specHash },
                { name: "SVC_LIVE_STRATEGY_DIGEST", value: bot.spec.strategyDigest ?? "" },
                { name: "SVC_LIVE_APPROVED_PROMOTION", value: bot.spec.approvedPromotion ?? "" },
                { name: "SVC_LIVE_MODE", value: s.mode },
                { name: "SVC_LIVE_VENUE", value: s.venue.adapter },
                { name: "SVC_LIVE_VENUE_HOST", value: s.venue.host },
                { name: "SVC_LIVE_VENUE_PORT", value: String(s.venue.port) },
                ...credentials,
              ],
            },
          ],
        },
      },
    },
  };
}

/**
 * Reconciles every Bot of the namespace into its runner workload (server-side apply, so a pass
 * changes nothing that is already right); answers the Deployments applied.
 */
export async function reconcileBotWorkloads(
  kube: KubeClient,
  s: RunnerWorkloadSettings,
): Promise<string[]> {
  let bots: BotResource[];
  try {
    const list = (await kube.custom.listNamespacedCustomObject({
      group: SVC_GROUP,
      version: SVC_VERSION,
      namespace: kube.namespace,
      plural: "bots",
    })) as { items?: BotResource[] };
    bots = list.items ?? [];
  } catch (err) {
    throw kubeError(err, "the list of Bots", kube.target.apiUrl, kube.timeoutMs);
  }
  const applied: string[] = [];
  for (const bot of bots) {
    const workload = runnerWorkloadOf(bot, s);
    await applyObject(kube, workload, BOTS_FIELD_MANAGER, { force: true });
    applied.push(workload.metadata!.name!);
  }
  return applied;
}

/**
 * The runner's own phase on its Bot's status (`runnerPhase`, beside the `phase` the kill-switch
 * controller sets from the switches that cover the bot), with what the venue confirmed of a halt:
 * Draining and Stopped there mean what the venue said, and a drill reads them.
 */
export function reportRunnerPhase(
  kube: KubeClient,
  slug: string,
  phase: "Pending" | "Running" | "Draining" | "Stopped",
  venue?: { confirmed: boolean; openAtVenue: number | null; positionAtVenue: number | null },
): Promise<void> {
  return patchStatus(kube, "bots", slug, {
    runnerPhase: phase,
    ...(venue
      ? {
          venueConfirmed: venue.confirmed,
          venueOpenOrders: venue.openAtVenue,
          venuePosition: venue.positionAtVenue,
        }
      : {}),
  });
}
