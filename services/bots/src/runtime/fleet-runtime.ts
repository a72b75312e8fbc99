import {
  kubeError,
  SVC_API_VERSION,
  SVC_GROUP,
  SVC_VERSION,
  type KubeClient,
  type KubernetesObject,
} from "@svc/lib/kube";
import {
  runnerName,
  runnerWorkloadOf,
  type BotResource,
  type RunnerWorkloadSettings,
} from "./bot-workloads.js";

const FLEET_LABEL = "svc.example.io/fleet";

/**
 * The Bot resources of a fleet in the namespace: selected by the fleet label DeployBot sets, and
 * checked against the spec too (a label someone edited by hand does not move a bot to a fleet).
 */
export async function botsOfFleet(kube: KubeClient, fleet: string): Promise<BotResource[]> {
  try {
    const list = (await kube.custom.listNamespacedCustomObject({
      group: SVC_GROUP,
      version: SVC_VERSION,
      namespace: kube.namespace,
      plural: "bots",
      labelSelector: `${FLEET_LABEL}=${fleet}`,
    })) as { items?: BotResource[] };
    return (list.items ?? [])
      .filter((b) => b.spec?.fleet === fleet)
      .sort((a, b) => a.spec.slug.localeCompare(b.spec.slug));
  } catch (err) {
    throw kubeError(err, `the list of fleet ${fleet}'s Bots`, kube.target.apiUrl, kube.timeoutMs);
  }
}

/** What applying a fleet's runtime writes: the runner Deployment of each of its Bots. */
export function renderFleetRuntime(
  bots: readonly BotResource[],
  settings: RunnerWorkloadSettings,
): KubernetesObject[] {
  return bots.map((bot) => runnerWorkloadOf(bot, settings));
}

/**
 * What destroying a fleet's runtime deletes, in that order: each Bot first (so the workload
 * reconciler stops re-creating its runner), then the runner, whose owner collection is not
 * waited for.
 */
export function fleetRuntimeToDelete(bots: readonly BotResource[]): KubernetesObject[] {
  return bots.flatMap((bot) => [
    {
      apiVersion: SVC_API_VERSION,
      kind: "Bot",
      metadata: { name: bot.metadata?.name ?? bot.spec.slug },
      spec: bot.spec,
    } as KubernetesObject,
    {
      apiVersion: "apps/v1",
      kind: "Deployment",
      metadata: { name: runnerName(bot.spec.slug) },
    },
  ]);
}
