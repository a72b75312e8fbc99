import type {
  AppsV1Api,
  CustomObjectsApi,
  KubernetesObjectApi,
  RequestContext,
  ResponseContext,
} from "@kubernetes/client-node";
import { kubeConfigFor, type DeadlineKubeConfig } from "./config.js";
import { kubernetesClient } from "./library.js";
import { DEFAULT_KUBE_TIMEOUT_MS, type KubeTarget } from "./target.js";

/**
 * The platform's handle on one cluster: the client library's APIs sharing one configuration
 * whose every request carries the SVC_KUBE_TIMEOUT_MS deadline. Built once per service at start
 * (the object API caches the API server's discovery answers).
 */
export interface KubeClient {
  readonly target: KubeTarget;
  readonly namespace: string;
  readonly timeoutMs: number;
  readonly config: DeadlineKubeConfig;
  /** Server-side apply of whole objects (discovers the resource's path from its kind). */
  readonly objects: KubernetesObjectApi;
  /** Lists and status subresources of the custom resources. */
  readonly custom: CustomObjectsApi;
  /** The scale subresource of Deployments. */
  readonly apps: AppsV1Api;
}

/**
 * @example
 * const kube = createKubeClient({ apiUrl: "https://kubernetes.default.svc", namespace: "svc" });
 * await applyObject(kube, bot, "svc-bots");
 */
export function createKubeClient(target: KubeTarget): KubeClient {
  const timeoutMs = target.timeoutMs ?? DEFAULT_KUBE_TIMEOUT_MS;
  const kc = kubeConfigFor(target);
  const cluster = kc.getCurrentCluster();
  if (!cluster) throw new TypeError(`no cluster configured for ${target.apiUrl}`);
  // Every call of every API made from this configuration gets its own deadline.
  const k8s = kubernetesClient();
  const configuration = k8s.createConfiguration({
    baseServer: new k8s.ServerConfiguration(cluster.server, {}),
    authMethods: { default: kc },
    promiseMiddleware: [
      {
        pre: async (ctx: RequestContext) => {
          ctx.setSignal(AbortSignal.timeout(timeoutMs));
          return ctx;
        },
        post: async (res: ResponseContext) => res,
      },
    ],
  });
  const objects = new k8s.KubernetesObjectApi(configuration);
  return {
    target,
    namespace: target.namespace,
    timeoutMs,
    config: kc,
    objects,
    custom: new k8s.CustomObjectsApi(configuration),
    apps: new k8s.AppsV1Api(configuration),
  };
}
