import { create } from "@bufbuild/protobuf";
import { createContextValues, type HandlerContext, type ServiceImpl } from "@connectrpc/connect";
import {
  ApplyKillSwitchRequestSchema,
  DeleteKillSwitchRequestSchema,
  KillSwitchService,
  ListKillSwitchesRequestSchema,
  Mode,
  Scope,
  type ListKillSwitchesResponse,
} from "@svc/gen/svc/killswitch/v1/killswitch_pb.js";
import { principalKey } from "@svc/lib/auth";
import { listResources, patchStatus, type KubeTarget } from "@svc/lib/kube";
import { validateMessage } from "@svc/lib/validate";
import type { Logger } from "@svc/lib/telemetry";
import {
  reconcile,
  type Action,
  type BotCR,
  type KillSwitchCR,
  type ServiceSwitch,
} from "./reconcile.js";

type Handlers = Pick<
  ServiceImpl<typeof KillSwitchService>,
  "applyKillSwitch" | "deleteKillSwitch" | "listKillSwitches"
>;

/** A custom resource as the API server lists it: what reconcile reads, under its metadata. */
type KubeObject<R extends { spec: unknown; status?: unknown }> = {
  metadata: { name: string; generation?: number };
  spec: R["spec"];
  status?: R["status"];
};

const SCOPES: Record<string, Scope> = {
  bot: Scope.BOT,
  fleet: Scope.FLEET,
  platform: Scope.PLATFORM,
};
const MODES: Record<string, Mode> = {
  cancel: Mode.CANCEL,
  flatten: Mode.FLATTEN,
  freeze: Mode.FREEZE,
};
const scopeName = (s: Scope) => Object.keys(SCOPES).find((k) => SCOPES[k] === s) ?? "";
const modeName = (m: Mode) => Object.keys(MODES).find((k) => MODES[k] === m) ?? "";

/**
 * The controller of the `KillSwitch` custom resource: every interval it reads the CRs and Bots
 * from the API server and the switches from this service, runs the pure `reconcile`, and carries
 * out its actions through the service's own handlers (as principal `system:k8s-controller`:
 * Kubernetes RBAC on the CR is the authorization, there is no person to step up) and the
 * status subresources.
 */
export function startKillSwitchController(o: {
  kube: KubeTarget;
  handlers: Handlers;
  log: Logger;
  intervalMs?: number;
}): { tick(): Promise<Action[]>; stop(): void } {
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

  async function tick(): Promise<Action[]> {
    const [crs, bots, list] = await Promise.all([
      listResources<KubeObject<KillSwitchCR>>(o.kube, "killswitches"),
      listResources<KubeObject<BotCR>>(o.kube, "bots"),
      o.handlers.listKillSwitches(
        create(ListKillSwitchesRequestSchema, {}),
        ctx,
      ) as Promise<ListKillSwitchesResponse>,
    ]);
    const desired: KillSwitchCR[] = crs.map((c) => ({
      name: c.metadata.name,
      generation: c.metadata.generation ?? 1,
      spec: c.spec,
      status: c.status,
    }));
    const botCrs: BotCR[] = bots.map((b) => ({
      name: b.metadata.name,
      spec: b.spec,
      status: b.status,
    }));
    const switches: ServiceSwitch[] = list.items.map((s) => ({
      name: s.metadata?.name ?? "",
      scope: scopeName(s.spec!.scope),
      target: s.spec!.target,
      mode: modeName(s.spec!.mode),
      reason: s.spec!.reason,
      ttl: s.spec!.ttl,
      engaged: s.status?.engaged ?? false,
    }));
    const actions = reconcile(desired, switches, botCrs);
    for (const a of actions) {
      try {
        await carryOut(a);
      } catch (err) {
        o.log.warn({ err, action: a }, "kill-switch controller action failed; will retry");
      }
    }
    return actions;
  }

  async function carryOut(a: Action): Promise<void> {
    switch (a.kind) {
      case "apply": {
        const req = create(ApplyKillSwitchRequestSchema, {
          name: a.name,
          spec: {
            scope: SCOPES[a.spec.scope] ?? Scope.UNSPECIFIED,
            target: a.spec.target,
            mode: MODES[a.spec.mode] ?? Mode.UNSPECIFIED,
            reason: a.spec.reason ?? "",
            ttl: a.spec.ttl ?? "",
          },
        });
        validateMessage(ApplyKillSwitchRequestSchema, req);
        await o.handlers.applyKillSwitch(req, ctx);
        return;
      }
      case "release":
        await o.handlers.deleteKillSwitch(
          create(DeleteKillSwitchRequestSchema, { name: a.name }),
          ctx,
        );
        return;
      case "patchKillSwitchStatus":
        await patchStatus(o.kube, "killswitches", a.cr, a.status);
        return;
      case "patchBotStatus":
        await patchStatus(o.kube, "bots", a.bot, a.status);
        return;
    }
  }

  let running = false;
  const timer = setInterval(() => {
    if (running) return;
    running = true;
    tick()
      .catch((err) => o.log.warn({ err }, "kill-switch controller pass failed; will retry"))
      .finally(() => (running = false));
  }, o.intervalMs ?? 2_000);
  timer.unref();
  return { tick, stop: () => clearInterval(timer) };
}
