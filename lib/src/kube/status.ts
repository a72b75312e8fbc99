import type { KubeClient } from "./client.js";
import { kubeError } from "./errors.js";
import { SVC_GROUP, SVC_VERSION } from "./target.js";
import { kubernetesClient } from "./library.js";

/**
 * Sets fields of a custom resource's status through its status subresource (JSON merge patch:
 * the fields named change, the others stay; spec and generation are untouched).
 *
 * @example
 * await patchStatus(kube, "killswitches", "alpha-halt", { engaged: true, observedGeneration: 2 });
 */
export async function patchStatus(
  kube: KubeClient,
  plural: string,
  name: string,
  status: object,
): Promise<void> {
  try {
    await kube.custom.patchNamespacedCustomObjectStatus(
      {
        group: SVC_GROUP,
        version: SVC_VERSION,
        namespace: kube.namespace,
        plural,
        name,
        body: { status },
      },
      kubernetesClient().setHeaderOptions(
        "Content-Type",
        kubernetesClient().PatchStrategy.MergePatch,
      ),
    );
  } catch (err) {
    throw kubeError(
      err,
      `the status patch of ${plural}/${name}`,
      kube.target.apiUrl,
      kube.timeoutMs,
    );
  }
}
