import { create, type JsonObject } from "@bufbuild/protobuf";
import { ConnectError, type HandlerContext, type ServiceImpl } from "@connectrpc/connect";
import type { Kysely } from "kysely";
import {
  FleetInfrastructureSchema,
  InfrastructureObjectSchema,
  InfrastructureOperation,
  type ControlPlaneService,
  type FleetInfrastructureRequest,
} from "@svc/gen/svc/bots/v1/bots_pb.js";
import { auditOriginOf, recordAudit } from "@svc/lib/audit";
import { Code, errorDetailOf, svcError } from "@svc/lib/errors";
import { applyObject, deleteObject, type KubeClient, type KubernetesObject } from "@svc/lib/kube";
import type { RunnerWorkloadSettings } from "../runtime/bot-workloads.js";
import { BOTS_FIELD_MANAGER } from "../runtime/kubernetes.js";
import { botsOfFleet, fleetRuntimeToDelete, renderFleetRuntime } from "../runtime/fleet-runtime.js";
import type { BotsDatabase } from "../store/bots.table.js";
import { endFleetWorkloadDeployments } from "../store/deployments.repository.js";
import {
  fleetInfrastructureHolder,
  takeFleetInfrastructure,
} from "../store/fleet-infrastructure-locks.repository.js";

type Rpcs = "planFleetInfrastructure" | "applyFleetInfrastructure" | "destroyFleetInfrastructure";
type Operation = "apply" | "destroy";

/** A hold older than this is a process that died mid-operation: the next operation takes over. */
const FLEET_HOLD_STALE_MS = 10 * 60_000;

/**
 * A fleet's BYOC runtime in the customer's cluster: the runner Deployments of its Bot resources,
 * rendered and applied, or the Bots and runners deleted. The dry run shows the objects; apply and
 * destroy (step-up in the proto) leave an audit row whether they finish or fail part way.
 */
export function createFleetInfrastructureHandlers(deps: {
  db: Kysely<BotsDatabase>;
  schema: string;
  kube: KubeClient | undefined;
  workloads: RunnerWorkloadSettings;
}): Pick<ServiceImpl<typeof ControlPlaneService>, Rpcs> {
  function cluster(): KubeClient {
    if (!deps.kube)
      throw svcError(
        Code.FailedPrecondition,
        "kubernetes_not_configured",
        "a fleet's infrastructure needs a cluster: set SVC_KUBE_API_URL (and SVC_KUBE_TOKEN) for the bots service",
        { setting: "SVC_KUBE_API_URL" },
      );
    return deps.kube;
  }

  /** One apply or destroy per fleet at a time: the second is refused, not interleaved. */
  async function takeFleet(fleet: string, op: Operation) {
    const release = await takeFleetInfrastructure(deps.db, fleet, op, FLEET_HOLD_STALE_MS);
    if (release) return release;
    const holder = await fleetInfrastructureHolder(deps.db, fleet);
    throw svcError(
      Code.Aborted,
      "fleet_infrastructure_busy",
      `fleet ${fleet}'s infrastructure is being changed by another ${holder?.operation ?? "operation"} (since ${holder?.started_at.toISOString() ?? "a moment ago"}); run this again when it is done`,
      { fleet, operation: holder?.operation ?? "" },
    );
  }

  async function objectsFor(kube: KubeClient, fleet: string, op: Operation) {
    const bots = await botsOfFleet(kube, fleet);
    return op === "apply" ? renderFleetRuntime(bots, deps.workloads) : fleetRuntimeToDelete(bots);
  }

  const answer = (
    fleet: string,
    op: Operation,
    dryRun: boolean,
    objects: Array<{ object: KubernetesObject; result: string }>,
  ) =>
    create(FleetInfrastructureSchema, {
      fleet,
      namespace: deps.kube?.namespace ?? "",
      operation: op === "apply" ? InfrastructureOperation.APPLY : InfrastructureOperation.DESTROY,
      dryRun,
      objects: objects.map(({ object, result }) =>
        create(InfrastructureObjectSchema, {
          apiVersion: object.apiVersion ?? "",
          kind: object.kind ?? "",
          name: object.metadata?.name ?? "",
          manifest: JSON.parse(JSON.stringify(object)) as JsonObject,
          result,
        }),
      ),
    });

  async function run(req: FleetInfrastructureRequest, ctx: HandlerContext, op: Operation) {
    const done: Array<{ object: KubernetesObject; result: string }> = [];
    const audit = (outcome: "succeeded" | "failed", details: JsonObject) =>
      deps.db.transaction().execute(async (trx) => {
        // The fleet's runners are gone: their deployments end with the destroy, in its
        // transaction, rather than reading running for ever.
        if (op === "destroy" && outcome === "succeeded")
          await endFleetWorkloadDeployments(
            trx,
            req.fleet,
            "the fleet's infrastructure was destroyed",
          );
        await recordAudit(trx, deps.schema, "bots", auditOriginOf(ctx), {
          action: `admin.controlplane.fleet_infrastructure.${op}`,
          outcome,
          resource: `fleet/${req.fleet}`,
          details: {
            namespace: deps.kube?.namespace ?? "",
            objects: done.map((d) => ({
              kind: d.object.kind ?? "",
              name: d.object.metadata?.name ?? "",
              result: d.result,
            })),
            ...details,
          },
        });
      });
    let release: (() => Promise<void>) | undefined;
    try {
      const kube = cluster();
      release = await takeFleet(req.fleet, op);
      for (const object of await objectsFor(kube, req.fleet, op)) {
        const result =
          op === "apply"
            ? (await applyObject(kube, object, BOTS_FIELD_MANAGER, { force: true }), "applied")
            : await deleteObject(kube, object);
        done.push({ object, result });
      }
    } catch (err) {
      const e = ConnectError.from(err);
      await audit("failed", { error: errorDetailOf(e).code, message: e.rawMessage });
      throw err;
    } finally {
      await release?.();
    }
    await audit("succeeded", {});
    return answer(req.fleet, op, false, done);
  }

  return {
    async planFleetInfrastructure(req) {
      const op = req.operation === InfrastructureOperation.DESTROY ? "destroy" : "apply";
      const objects = await objectsFor(cluster(), req.fleet, op);
      return answer(
        req.fleet,
        op,
        true,
        objects.map((object) => ({ object, result: "planned" })),
      );
    },
    applyFleetInfrastructure: (req, ctx) => run(req, ctx, "apply"),
    destroyFleetInfrastructure: (req, ctx) => run(req, ctx, "destroy"),
  };
}
