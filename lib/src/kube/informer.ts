import type { KubernetesListObject, KubernetesObject } from "@kubernetes/client-node";
import { createBackoff } from "./backoff.js";
import type { KubeClient } from "./client.js";
import { kubeError } from "./errors.js";
import { SVC_GROUP, SVC_VERSION } from "./target.js";
import { kubernetesClient } from "./library.js";
import { boundedWatch } from "./watch.js";

/** A cache of one kind of custom resource in the namespace, kept by list + watch. */
export interface ResourceInformer<T extends KubernetesObject> {
  /** What the cache holds now. */
  list(): readonly T[];
  /** True once a list has succeeded: before that an empty cache says nothing. */
  readonly synced: boolean;
  stop(): Promise<void>;
}

export interface InformerOptions {
  /** Called after any object was added, changed or deleted in the cache. */
  onChange: () => void;
  /** Called when a list or watch failed, with the delay before the next try. */
  onError: (err: unknown, retryInMs: number) => void;
  /** How long one watch may stay open before it is renewed (default 300 s). */
  watchSeconds?: number;
  backoff?: { minMs: number; maxMs: number };
}

/**
 * Keeps a cache of the custom resources `plural` (group svc.example.io) with the client
 * library's list-watch (`ListWatch`, what `makeInformer` builds): one list, then a watch from
 * its resourceVersion; an expired resourceVersion (410 Gone) makes it list again, and a
 * deletion missed meanwhile is seen as one. Every call has the client's deadline; when a list or
 * watch fails (refused, hung past the deadline, connection lost) the informer starts again
 * after an exponential backoff, for as long as it is not stopped.
 *
 * @example
 * const bots = startInformer<Bot>(kube, "bots", { onChange: schedule, onError: log });
 */
export function startInformer<T extends KubernetesObject>(
  kube: KubeClient,
  plural: string,
  o: InformerOptions,
): ResourceInformer<T> {
  const backoff = createBackoff(o.backoff ?? { minMs: 200, maxMs: 30_000 });
  let synced = false;
  let stopped = false;
  let retry: NodeJS.Timeout | undefined;
  const path = `/apis/${SVC_GROUP}/${SVC_VERSION}/namespaces/${encodeURIComponent(kube.namespace)}/${plural}`;
  const list = async (): Promise<KubernetesListObject<T>> => {
    const answer = (await kube.custom.listNamespacedCustomObject({
      group: SVC_GROUP,
      version: SVC_VERSION,
      namespace: kube.namespace,
      plural,
    })) as KubernetesListObject<T>;
    synced = true;
    backoff.reset();
    return answer;
  };
  const watch = boundedWatch(kube.config, o.watchSeconds ?? 300, kube.timeoutMs, () =>
    backoff.reset(),
  );
  const { ADD, DELETE, ERROR, ListWatch, UPDATE } = kubernetesClient();
  const lw = new ListWatch<T>(path, watch, list, false);
  for (const verb of [ADD, UPDATE, DELETE] as const) lw.on(verb, () => o.onChange());
  lw.on(ERROR, (err) => {
    if (stopped) return;
    const delay = backoff.next();
    o.onError(
      kubeError(err, `the list or watch of ${plural}`, kube.target.apiUrl, kube.timeoutMs),
      delay,
    );
    retry = setTimeout(() => {
      if (!stopped) void lw.start();
    }, delay);
    retry.unref();
  });
  void lw.start();
  return {
    list: () => lw.list(kube.namespace),
    get synced() {
      return synced;
    },
    async stop() {
      stopped = true;
      clearTimeout(retry);
      await lw.stop();
    },
  };
}
