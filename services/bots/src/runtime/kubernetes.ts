import { Code, svcError } from "@svc/lib/errors";

/** Where and how to reach the cluster's API server. */
export interface KubeTarget {
  apiUrl: string;
  namespace: string;
  token?: string;
}

/**
 * Creates or updates the bot's `Bot` custom resource with server-side apply (one idempotent
 * call, the API server merges), so a redeploy of the same bot updates its resource.
 */
export async function applyBotResource(kube: KubeTarget, bot: { slug: string; fleet: string | null; version: number; specHash: string; approvedPromotion: string }): Promise<{ uid: string; resourceVersion: string }> {
  const url = `${kube.apiUrl.replace(/\/$/, "")}/apis/svc.example.io/v1/namespaces/${encodeURIComponent(kube.namespace)}/bots/${encodeURIComponent(bot.slug)}?fieldManager=svc-bots&force=true`;
  const body = {
    apiVersion: "svc.example.io/v1",
    kind: "Bot",
    metadata: { name: bot.slug, namespace: kube.namespace, labels: { "app.kubernetes.io/part-of": "svc", "svc.example.io/fleet": bot.fleet ?? "" } },
    spec: { slug: bot.slug, fleet: bot.fleet ?? undefined, version: bot.version, specHash: bot.specHash, approvedPromotion: bot.approvedPromotion },
  };
  let res: Response;
  try {
    res = await fetch(url, {
      method: "PATCH",
      headers: { "content-type": "application/apply-patch+yaml", accept: "application/json", ...(kube.token ? { authorization: `Bearer ${kube.token}` } : {}) },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(10_000),
    });
  } catch (err) {
    throw svcError(Code.Unavailable, "kubernetes_unreachable", `the Kubernetes API server at ${kube.apiUrl} cannot be reached`, {}, { cause: err });
  }
  const answer = (await res.json().catch(() => ({}))) as { metadata?: { uid?: string; resourceVersion?: string }; message?: string };
  if (!res.ok) {
    throw svcError(Code.FailedPrecondition, "kubernetes_refused", `the Kubernetes API server refused the Bot resource (${res.status}): ${answer.message ?? res.statusText}`, { status: res.status });
  }
  return { uid: answer.metadata?.uid ?? "", resourceVersion: answer.metadata?.resourceVersion ?? "" };
}
