import { existsSync } from "node:fs";
import type { KubeConfig } from "@kubernetes/client-node";
import { kubernetesClient } from "./library.js";
import { DEFAULT_KUBE_TIMEOUT_MS, type KubeTarget } from "./target.js";

const SERVICE_ACCOUNT_TOKEN = "/var/run/secrets/kubernetes.io/serviceaccount/token";

/**
 * A KubeConfig whose watch requests carry a deadline too. The library's `Watch` builds its
 * request from `applyToFetchOptions({})` and then replaces its own 30 s abort signal with one
 * that never fires (client-node 1.4), so without this a watch against a hung API server waits
 * for ever. node-fetch's `timeout` bounds the wait for the response headers only, so an open
 * watch stream is not cut by it.
 */
export type DeadlineKubeConfig = KubeConfig & { readonly deadlineMs: number };

let deadlineKubeConfigClass: ReturnType<typeof defineDeadlineKubeConfig> | undefined;

// Defined on first use: the library's KubeConfig to extend is only loaded then (see library.ts).
function defineDeadlineKubeConfig() {
  return class extends kubernetesClient().KubeConfig {
    constructor(readonly deadlineMs: number) {
      super();
    }

    override applyToFetchOptions(
      opts: Parameters<KubeConfig["applyToFetchOptions"]>[0],
    ): ReturnType<KubeConfig["applyToFetchOptions"]> {
      return super.applyToFetchOptions({ timeout: this.deadlineMs, ...opts });
    }
  };
}

/**
 * The client library's configuration for a target: the API server of SVC_KUBE_API_URL, with
 * SVC_KUBE_TOKEN when set, else the pod's service account (its token file is re-read, so a
 * rotated projected token keeps working), else the current user of KUBECONFIG. A plain http://
 * URL (a `kubectl proxy`, the tests' stand-in) has no TLS to verify; the library refuses http
 * unless told to skip verification, so it is told.
 *
 * @example
 * const kc = kubeConfigFor({ apiUrl: "https://kubernetes.default.svc", namespace: "svc" });
 */
export function kubeConfigFor(t: KubeTarget): DeadlineKubeConfig {
  deadlineKubeConfigClass ??= defineDeadlineKubeConfig();
  const kc: DeadlineKubeConfig = new deadlineKubeConfigClass(
    t.timeoutMs ?? DEFAULT_KUBE_TIMEOUT_MS,
  );
  const server = t.apiUrl.replace(/\/$/, "");
  const plainHttp = server.startsWith("http:");
  if (t.token || plainHttp) {
    kc.loadFromClusterAndUser(
      { name: "svc", server, skipTLSVerify: plainHttp },
      { name: "svc", token: t.token },
    );
  } else if (process.env.KUBERNETES_SERVICE_HOST && existsSync(SERVICE_ACCOUNT_TOKEN)) {
    kc.loadFromCluster();
    kc.clusters = kc.clusters.map((c) => ({ ...c, server }));
  } else {
    kc.loadFromDefault();
    const current = kc.getCurrentCluster();
    if (current) kc.clusters = kc.clusters.map((c) => (c === current ? { ...c, server } : c));
  }
  return kc;
}
