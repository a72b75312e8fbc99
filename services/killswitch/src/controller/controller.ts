import { createContextValues, type HandlerContext } from "@connectrpc/connect";
import { principalKey } from "@svc/lib/auth";
import { createBackoff, startInformer, type KubeClient } from "@svc/lib/kube";
import type { Logger } from "@svc/lib/telemetry";
import { carryOut, serviceSwitches, type Handlers } from "./carry-out.js";
import { botCR, killSwitchCR, type KubeObject } from "./from-cluster.js";
import { reconcile, type Action, type BotCR, type KillSwitchCR } from "./reconcile.js";

export interface KillSwitchController {
  /** One reconcile pass now (what a change or the resync would run); the actions it took. */
  pass(): Promise<Action[]>;
  stop(): Promise<void>;
}

/**
 * The controller of the `KillSwitch` custom resource. Two informers (list + watch, relisting on
 * 410 Gone) keep the KillSwitch and Bot resources in memory; any change, and a resync every
 * `resyncMs` (the service's own switches change without Kubernetes knowing: REST, keys set by
 * hand, TTLs), runs one pass: the pure `reconcile` of the cached resources against the
 * service's switches, whose actions are carried out through the service's own handlers (as
 * principal `system:k8s-controller`: Kubernetes RBAC on the CR is the authorization, there is
 * no person to step up) and the status subresources. Nothing is decided before both caches
 * have listed once (an empty cache would release every switch a CR holds). A pass with a
 * failed action (an API server that refuses, or hangs past SVC_KUBE_TIMEOUT_MS) is run again
 * after an exponential backoff; passes never overlap.
 */
export function startKillSwitchController(o: {
  kube: KubeClient;
  handlers: Handlers;
  log: Logger;
  resyncMs?: number;
  backoff?: { minMs: number; maxMs: number };
}): KillSwitchController {
  const ctx = {
    values: createContextValues().set(principalKey, {
      sub: "system:k8s-controller",
      actorType: "machine",
      delegated: false,
      roles: [],
      scopes: [],
      amr: [],
    }),
  } as unknown as HandlerContext;
  const backoffOptions = o.backoff ?? { minMs: 200, maxMs: 30_000 };
  const retries = createBackoff(backoffOptions);
  let stopped = false;
  let running: Promise<void> | undefined;
  let again = false;
  let retryTimer: NodeJS.Timeout | undefined;
  // While a failed pass waits for its retry, the resync does not run one sooner.
  let backingOff = false;

  const informerOptions = (plural: string) => ({
    backoff: backoffOptions,
    onChange: () => schedule(),
    onError: (err: unknown, retryInMs: number) =>
      o.log.warn(
        { err: err instanceof Error ? err.message : String(err), retryInMs },
        `kill-switch controller: the ${plural} list-watch failed; starting it again`,
      ),
  });
  const killSwitches = startInformer<KubeObject<KillSwitchCR>>(
    o.kube,
    "killswitches",
    informerOptions("KillSwitch"),
  );
  const bots = startInformer<KubeObject<BotCR>>(o.kube, "bots", informerOptions("Bot"));

  async function pass(): Promise<Action[]> {
    if (!killSwitches.synced || !bots.synced) return [];
    const switches = await serviceSwitches(o.handlers, ctx);
    const actions = reconcile(
      killSwitches.list().map(killSwitchCR),
      switches,
      bots.list().map(botCR),
    );
    const failed: Array<{ action: Action; err: string }> = [];
    for (const action of actions) {
      try {
        await carryOut(action, { kube: o.kube, handlers: o.handlers, ctx });
      } catch (err) {
        failed.push({ action, err: err instanceof Error ? err.message : String(err) });
      }
    }
    if (failed.length)
      throw Object.assign(new Error(`${failed.length} of ${actions.length} actions failed`), {
        failed,
      });
    return actions;
  }

  // One pass at a time; a change during a pass asks for one more after it.
  function schedule(): void {
    if (stopped) return;
    if (running) {
      again = true;
      return;
    }
    clearTimeout(retryTimer);
    backingOff = false;
    running = pass()
      .then(() => retries.reset())
      .catch((err: Error & { failed?: unknown }) => {
        const retryInMs = retries.next();
        o.log.warn(
          { err: err.message, failed: err.failed, retryInMs, attempt: retries.failures },
          "kill-switch controller pass failed; will retry",
        );
        if (!stopped) {
          backingOff = true;
          retryTimer = setTimeout(() => {
            backingOff = false;
            schedule();
          }, retryInMs);
          retryTimer.unref();
        }
      })
      .finally(() => {
        running = undefined;
        if (again) {
          again = false;
          schedule();
        }
      });
  }

  const resync = setInterval(() => {
    if (!backingOff) schedule();
  }, o.resyncMs ?? 5_000);
  resync.unref();
  return {
    pass,
    async stop() {
      stopped = true;
      clearInterval(resync);
      clearTimeout(retryTimer);
      await Promise.all([killSwitches.stop(), bots.stop(), running]);
    },
  };
}
