import type { KubernetesObject } from "@kubernetes/client-node";
import { Code, type ConnectError, svcError } from "../errors/index.js";
import type { KubeClient } from "./client.js";
import { kubeError } from "./errors.js";
import { kubernetesClient } from "./library.js";

/**
 * Creates or updates an object in one idempotent call: server-side apply (`PATCH` with
 * `application/apply-patch+yaml` and `fieldManager`), through the library's object API, which
 * finds the resource's path by discovery. The API server keeps what other managers own; with
 * `force`, fields another manager set are taken over instead of answering 409 Conflict.
 *
 * @example
 * await applyObject(kube, { apiVersion: "svc.example.io/v1", kind: "Bot", metadata: { name: "b1" }, spec }, "svc-bots", { force: true });
 */
export async function applyObject<T extends KubernetesObject>(
  kube: KubeClient,
  object: T,
  fieldManager: string,
  o: { force: boolean },
): Promise<T> {
  const what = `apply of ${object.kind} "${object.metadata?.name ?? ""}"`;
  try {
    return await kube.objects.patch(
      { ...object, metadata: { namespace: kube.namespace, ...object.metadata } },
      undefined,
      undefined,
      fieldManager,
      o.force,
      kubernetesClient().PatchStrategy.ServerSideApply,
    );
  } catch (err) {
    throw unknownKind(err, object) ?? kubeError(err, what, kube.target.apiUrl, kube.timeoutMs);
  }
}

// Discovery answered, but without the kind: the CRD is not installed in that cluster.
function unknownKind(err: unknown, object: KubernetesObject): ConnectError | undefined {
  if (!(err instanceof Error) || !err.message.startsWith("Unrecognized API version and kind"))
    return undefined;
  return svcError(
    Code.FailedPrecondition,
    "kubernetes_refused",
    `the Kubernetes API server does not serve ${object.apiVersion} ${object.kind}: install deploy/k8s/crds first`,
    { status: 404 },
    { cause: err },
  );
}
