import { createRequire } from "node:module";
import type * as KubernetesClient from "@kubernetes/client-node";

let loaded: typeof KubernetesClient | undefined;

/**
 * The client library, loaded on first use rather than when `@svc/lib/kube` is imported: the
 * bots and killswitch services import this module in every process, and loading the library
 * cost about 0.5 s of CPU and 80 MiB at each `npm start` that has no cluster configured. It is
 * an ES module; Node (20.19 and later) loads it synchronously through require, so the functions
 * here keep their synchronous signatures, and it is the same module instance an `import` gets.
 */
export function kubernetesClient(): typeof KubernetesClient {
  loaded ??= createRequire(import.meta.url)("@kubernetes/client-node") as typeof KubernetesClient;
  return loaded;
}
