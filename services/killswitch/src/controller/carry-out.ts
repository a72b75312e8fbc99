import { create } from "@bufbuild/protobuf";
import type { HandlerContext, ServiceImpl } from "@connectrpc/connect";
import {
  ApplyKillSwitchRequestSchema,
  DeleteKillSwitchRequestSchema,
  KillSwitchService,
  ListKillSwitchesRequestSchema,
  Mode,
  Scope,
  type ListKillSwitchesResponse,
} from "@svc/gen/svc/killswitch/v1/killswitch_pb.js";
import { Code, svcError } from "@svc/lib/errors";
import { patchStatus, type KubeClient } from "@svc/lib/kube";
import { validateMessage } from "@svc/lib/validate";
import { MODES, SCOPES, serviceSwitch } from "./from-cluster.js";
import type { Action, ServiceSwitch } from "./reconcile.js";

export type Handlers = Pick<
  ServiceImpl<typeof KillSwitchService>,
  "applyKillSwitch" | "deleteKillSwitch" | "listKillSwitches"
>;

/**
 * Every switch the service holds, page after page. A key store that did not answer leaves the
 * list without the keys set by hand and without key states: the pass fails and is retried
 * rather than marking Bots as running on a partial picture.
 */
export async function serviceSwitches(
  handlers: Handlers,
  ctx: HandlerContext,
): Promise<ServiceSwitch[]> {
  const all: ServiceSwitch[] = [];
  let pageToken = "";
  do {
    const page = (await handlers.listKillSwitches(
      create(ListKillSwitchesRequestSchema, { limit: 1000, pageToken }),
      ctx,
    )) as ListKillSwitchesResponse;
    if (page.keyStoreUnreachable)
      throw svcError(
        Code.Unavailable,
        "killswitch_store_unreachable",
        "the key-value store did not answer; the controller waits for it",
      );
    all.push(...page.items.map(serviceSwitch));
    pageToken = page.nextPageToken;
  } while (pageToken);
  return all;
}

/** Does one reconcile action: through the service's own handlers, or a status subresource. */
export async function carryOut(
  a: Action,
  o: { kube: KubeClient; handlers: Handlers; ctx: HandlerContext },
): Promise<void> {
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
        rescope: a.rescope,
      });
      validateMessage(ApplyKillSwitchRequestSchema, req);
      await o.handlers.applyKillSwitch(req, o.ctx);
      return;
    }
    case "release":
      await o.handlers.deleteKillSwitch(
        create(DeleteKillSwitchRequestSchema, {
          name: a.name,
          reason: "its KillSwitch resource was deleted",
        }),
        o.ctx,
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
