/** Where the platform's Kubernetes calls go, read from the SVC_KUBE_* settings. */
export interface KubeTarget {
  /** SVC_KUBE_API_URL: the API server (https://kubernetes.default.svc in a pod). */
  apiUrl: string;
  /** SVC_KUBE_NAMESPACE: where the Bot and KillSwitch resources live. */
  namespace: string;
  /**
   * SVC_KUBE_TOKEN: a bearer token. Unset, the pod's service account (token file and CA) is
   * used when running in a cluster, else the current user of KUBECONFIG (~/.kube/config).
   */
  token?: string;
  /** Deadline of one call to the API server (SVC_KUBE_TIMEOUT_MS); default 10 s. */
  timeoutMs?: number;
}

/** The API group and version of the platform's custom resources (deploy/k8s/crds). */
export const SVC_GROUP = "svc.example.io";
export const SVC_VERSION = "v1";
export const SVC_API_VERSION = `${SVC_GROUP}/${SVC_VERSION}`;

export const DEFAULT_KUBE_TIMEOUT_MS = 10_000;
