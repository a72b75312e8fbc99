import { Code, svcError } from "../errors/index.js";
import type { KubeClient } from "./client.js";
import { kubeError, refusalOf } from "./errors.js";
import { kubernetesClient } from "./library.js";

/**
 * Sets the replicas of an apps/v1 Deployment through its scale subresource (JSON merge patch);
 * answers the replicas the API server recorded. A Deployment it does not know is a 404.
 *
 * @example
 * await scaleDeployment(kube, "bots", 3); // 3
 */
export async function scaleDeployment(
  kube: KubeClient,
  name: string,
  replicas: number,
): Promise<number> {
  try {
    const scale = await kube.apps.patchNamespacedDeploymentScale(
      { name, namespace: kube.namespace, body: { spec: { replicas } } },
      kubernetesClient().setHeaderOptions(
        "Content-Type",
        kubernetesClient().PatchStrategy.MergePatch,
      ),
    );
    return scale.spec?.replicas ?? replicas;
  } catch (err) {
    if (refusalOf(err)?.status === 404)
      throw svcError(
        Code.NotFound,
        "deployment_not_found",
        `no Deployment "${name}" in namespace ${kube.namespace}`,
        { deployment_name: name, namespace: kube.namespace },
        { cause: err },
      );
    throw kubeError(err, `the scale of deployments/${name}`, kube.target.apiUrl, kube.timeoutMs);
  }
}
