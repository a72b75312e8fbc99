import { applyResource, SVC_GROUP, type KubeTarget } from "@svc/lib/kube";

export type { KubeTarget };

/**
 * Creates or updates the bot's `Bot` custom resource with server-side apply (one idempotent
 * call, the API server merges), so a redeploy of the same bot updates its resource.
 */
export async function applyBotResource(
  kube: KubeTarget,
  bot: {
    slug: string;
    fleet: string | null;
    version: number;
    specHash: string;
    approvedPromotion: string;
  },
): Promise<{ uid: string; resourceVersion: string }> {
  const answer = await applyResource<{ metadata?: { uid?: string; resourceVersion?: string } }>(
    kube,
    "bots",
    bot.slug,
    {
      apiVersion: SVC_GROUP,
      kind: "Bot",
      metadata: {
        name: bot.slug,
        namespace: kube.namespace,
        labels: { "app.kubernetes.io/part-of": "svc", "svc.example.io/fleet": bot.fleet ?? "" },
      },
      spec: {
        slug: bot.slug,
        fleet: bot.fleet ?? undefined,
        version: bot.version,
        specHash: bot.specHash,
        approvedPromotion: bot.approvedPromotion,
      },
    },
    "svc-bots",
  );
  return {
    uid: answer.metadata?.uid ?? "",
    resourceVersion: answer.metadata?.resourceVersion ?? "",
  };
}
