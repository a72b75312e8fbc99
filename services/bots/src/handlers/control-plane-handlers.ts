import { create, type JsonObject } from "@bufbuild/protobuf";
import { ConnectError, type ServiceImpl } from "@connectrpc/connect";
import type { Kysely } from "kysely";
import {
  ScaleDeploymentResponseSchema,
  type ControlPlaneService,
} from "@svc/gen/svc/bots/v1/bots_pb.js";
import { auditOriginOf, recordAudit, type AuditOutcome } from "@svc/lib/audit";
import { Code, errorDetailOf, svcError } from "@svc/lib/errors";
import { scaleDeployment, type KubeClient } from "@svc/lib/kube";
import type { BotsDatabase } from "../store/bots.table.js";

/**
 * PATCH /manage/deployments/{deployment_name}/scale?replicas=N: the platform's own workloads,
 * scaled through the Kubernetes API. Every call, done or refused, leaves an audit row; without a
 * cluster it answers 412 naming SVC_KUBE_API_URL.
 */
export function createControlPlaneHandlers(deps: {
  db: Kysely<BotsDatabase>;
  schema: string;
  kube: KubeClient | undefined;
}): Pick<ServiceImpl<typeof ControlPlaneService>, "scaleDeployment"> {
  return {
    async scaleDeployment(req, ctx) {
      const name = req.deploymentName;
      const replicas = req.replicas!;
      const audit = (outcome: AuditOutcome, details: JsonObject) =>
        deps.db.transaction().execute((trx) =>
          recordAudit(trx, deps.schema, "bots", auditOriginOf(ctx), {
            action: "admin.controlplane.deployment.scale",
            outcome,
            resource: `deployment/${name}`,
            details: { replicas, namespace: deps.kube?.namespace ?? "", ...details },
          }),
        );
      if (!deps.kube) {
        await audit("failed", { error: "kubernetes_not_configured" });
        throw svcError(
          Code.FailedPrecondition,
          "kubernetes_not_configured",
          "scaling needs a cluster: set SVC_KUBE_API_URL (and SVC_KUBE_TOKEN) for the bots service",
          { setting: "SVC_KUBE_API_URL" },
        );
      }
      let recorded: number;
      try {
        recorded = await scaleDeployment(deps.kube, name, replicas);
      } catch (err) {
        const e = ConnectError.from(err);
        await audit("failed", { error: errorDetailOf(e).code, message: e.rawMessage });
        throw err;
      }
      await audit("succeeded", { recorded_replicas: recorded });
      return create(ScaleDeploymentResponseSchema, {
        deploymentName: name,
        replicas: recorded,
        namespace: deps.kube.namespace,
      });
    },
  };
}
