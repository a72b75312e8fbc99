import type { KubernetesObject } from "@kubernetes/client-node";
import type { KubeClient } from "./client.js";
import { kubeError, refusalOf } from "./errors.js";

/**
 * Deletes an object through the library's object API (which finds the resource's path by
 * discovery), its dependents collected in the background (an owner's runner goes with it).
 * Answers "absent" when the API server no longer had it, so a delete repeated is not an error.
 *
 * @example await deleteObject(kube, { apiVersion: "apps/v1", kind: "Deployment", metadata: { name: "bot-runner-b1" } });
 */
export async function deleteObject(
  kube: KubeClient,
  object: KubernetesObject,
): Promise<"deleted" | "absent"> {
  try {
    await kube.objects.delete(
      { ...object, metadata: { namespace: kube.namespace, ...object.metadata } },
      undefined,
      undefined,
      undefined,
      undefined,
      "Background",
    );
    return "deleted";
  } catch (err) {
    if (refusalOf(err)?.status === 404) return "absent";
    throw kubeError(
      err,
      `the delete of ${object.kind} "${object.metadata?.name ?? ""}"`,
      kube.target.apiUrl,
      kube.timeoutMs,
    );
  }
}
