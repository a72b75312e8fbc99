import {
  applyObject,
  SVC_API_VERSION,
  type KubeClient,
  type KubernetesObject,
} from "@svc/lib/kube";

export type { KubeClient };

/** The field manager the API server records for what the bots service sets on a Bot. */
export const BOTS_FIELD_MANAGER = "svc-bots";

/**
 * Creates or updates the bot's `Bot` custom resource by server-side apply (one idempotent call,
 * so a redeploy of the same bot updates its resource). The bots service owns the Bot's spec:
 * a deploy carries a version that passed the promotion gates and four-eyes approval, so it is
 * applied with `force` and takes back a spec field someone changed by hand (kubectl edit)
 * rather than failing with 409 Conflict and leaving an unapproved version in place. Labels and
 * annotations others add, and the status the kill-switch controller writes, are not ours and
 * stay.
 */
export async function applyBotResource(
  kube: KubeClient,
  bot: {
    slug: string;
    fleet: string | null;
    version: number;
    specHash: string;
    /** The source digest of the version's strategy code; undefined for a built-in family. */
    strategyDigest?: string | undefined;
    approvedPromotion: string;
  },
): Promise<{ uid: string; resourceVersion: string }> {
  const answer: KubernetesObject = await applyObject(
    kube,
    {
      apiVersion: SVC_API_VERSION,
      kind: "Bot",
      metadata: {
        name: bot.slug,
        namespace: kube.namespace,
        labels: { "app.kubernetes.io/part-of": "svc", "svc.example.io/fleet": bot.fleet ?? "" },
      },
      spec: {
        slug: bot.slug,
        ...(bot.fleet ? { fleet: bot.fleet } : {}),
        version: bot.version,
        specHash: bot.specHash,
        ...(bot.strategyDigest ? { strategyDigest: bot.strategyDigest } : {}),
        approvedPromotion: bot.approvedPromotion,
      },
    },
    BOTS_FIELD_MANAGER,
    { force: true },
  );
  return {
    uid: answer.metadata?.uid ?? "",
    resourceVersion: answer.metadata?.resourceVersion ?? "",
  };
}
