/**
 * The platform's calls to a Kubernetes API server, through the official client library
 * (`@kubernetes/client-node`): server-side apply of the Bot resource, status patches, the
 * scale subresource, deletes, and list-watch caches of the custom resources for the KillSwitch
 * controller. Every call carries the SVC_KUBE_TIMEOUT_MS deadline; failures become
 * `kubernetes_refused` (412) or `kubernetes_unreachable` (503).
 */
export type { KubernetesObject } from "@kubernetes/client-node";
export { applyObject } from "./apply.js";
export { createBackoff } from "./backoff.js";
export { createKubeClient, type KubeClient } from "./client.js";
export { deleteObject } from "./delete.js";
export { kubeConfigFor } from "./config.js";
export { kubeError, refusalOf } from "./errors.js";
export { startInformer, type InformerOptions, type ResourceInformer } from "./informer.js";
export { scaleDeployment } from "./scale.js";
export { patchStatus } from "./status.js";
export {
  DEFAULT_KUBE_TIMEOUT_MS,
  SVC_API_VERSION,
  SVC_GROUP,
  SVC_VERSION,
  type KubeTarget,
} from "./target.js";
