import type { KubeConfig, Watch } from "@kubernetes/client-node";
import { kubernetesClient } from "./library.js";

/**
 * The library's watch, bounded: it asks the API server to end the watch after `seconds`
 * (`timeoutSeconds`, as kubectl and client-go do) and cuts it itself a grace period later, so a
 * server that keeps the stream open but stops sending (wedged, or a proxy that lost it) is
 * noticed; the informer then watches again from its last resourceVersion. `connected` is
 * called once the API server has answered the watch request.
 */
export function boundedWatch(
  config: KubeConfig,
  seconds: number,
  graceMs: number,
  connected: () => void,
): Watch {
  boundedWatchClass ??= defineBoundedWatch();
  return new boundedWatchClass(config, seconds, graceMs, connected);
}

let boundedWatchClass: ReturnType<typeof defineBoundedWatch> | undefined;

// Defined on first use: the library's Watch to extend is only loaded then (see library.ts).
function defineBoundedWatch() {
  return class BoundedWatch extends kubernetesClient().Watch {
    constructor(
      config: KubeConfig,
      private readonly seconds: number,
      private readonly graceMs: number,
      private readonly connected: () => void,
    ) {
      super(config);
    }

    override async watch(
      path: string,
      query: Record<string, string | number | boolean | undefined>,
      callback: (phase: string, apiObj: unknown, watchObj?: unknown) => void,
      done: (err: unknown) => void,
    ): Promise<AbortController> {
      let cut: NodeJS.Timeout | undefined;
      let ended = false;
      const controller = await super.watch(
        path,
        { ...query, timeoutSeconds: this.seconds, allowWatchBookmarks: true },
        callback,
        (err) => {
          ended = true;
          clearTimeout(cut);
          done(err);
        },
      );
      if (!ended) {
        this.connected();
        cut = setTimeout(() => controller.abort(), this.seconds * 1000 + this.graceMs);
        cut.unref();
      }
      return controller;
    }
  };
}
