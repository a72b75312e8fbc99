import { randomUUID } from "node:crypto";
import { create, type JsonObject } from "@bufbuild/protobuf";
import { ConnectError, type ServiceImpl } from "@connectrpc/connect";
import type { Kysely } from "kysely";
import {
  InvokeMcpToolResponseSchema,
  ListMcpToolsResponseSchema,
  type McpService,
} from "@svc/gen/svc/identity/v1/identity_pb.js";
import { auditActorOf, auditOriginOf, currentTraceId } from "@svc/lib/audit";
import { hasScope, principalOf } from "@svc/lib/auth";
import { Code, svcError } from "@svc/lib/errors";
import { licenseRefusal, type LicenseGate } from "@svc/lib/license";
import { DATA_TOOLS, inputSchemaOf, type McpClients } from "../mcp/data-tools.js";
import { appendAuditEvent } from "../store/audit-trail.repository.js";
import { internalUserIdOf } from "../store/tenancy.repository.js";
import type { IdentityDatabase } from "../store/identity.table.js";

/** The token-exchange profile delegated agents come through (deploy/idp/token-exchange.ts). */
const DELEGATION_PROFILE = "svc-agent-delegation";

/**
 * POST /mcp/data/tools/{tool_name}/invoke: a read tool over the platform's data, asked of the
 * owning service. The answer names the agent and the person it acts for; every call, answered
 * or failed, leaves an audit row with the delegation.
 */
export function createMcpHandlers(deps: {
  db: Kysely<IdentityDatabase>;
  clients: () => McpClients | undefined;
  timeoutMs: number;
  license: LicenseGate;
}): Pick<ServiceImpl<typeof McpService>, "invokeMcpTool" | "listMcpTools"> {
  return {
    listMcpTools() {
      return create(ListMcpToolsResponseSchema, {
        tools: DATA_TOOLS.map((t) => ({
          name: t.name,
          description: t.description,
          inputSchema: inputSchemaOf(t),
          scopes: t.scopes ?? [],
          agentOnly: t.agentOnly ?? false,
        })),
      });
    },

    async invokeMcpTool(req, ctx) {
      const p = principalOf(ctx);
      const tool = DATA_TOOLS.find((t) => t.name === req.toolName);
      if (!tool)
        throw svcError(
          Code.NotFound,
          "mcp_tool_not_found",
          `no tool "${req.toolName}"; the tools are ${DATA_TOOLS.map((t) => t.name).join(", ")}`,
          {
            tools: DATA_TOOLS.map((t) => ({
              name: t.name,
              description: t.description,
              arguments: Object.fromEntries(
                Object.entries(t.args).map(([k, a]) => [
                  k,
                  `${a.required ? "required" : "optional"}: ${a.doc}`,
                ]),
              ),
            })),
          },
        );
      const clients = deps.clients();
      if (!clients)
        throw svcError(
          Code.Unavailable,
          "mcp_tool_unavailable",
          "the data tools cannot reach the bots and promotion services from this process",
        );
      const args = req.arguments ?? {};
      const person = p.onBehalfOfSub ?? p.sub;
      // Refusals before the tool runs: what the tool asks beyond the route's read:mcp:data.
      const missing = (tool.scopes ?? []).find((s) => !hasScope(p, s));
      if (missing)
        throw svcError(
          Code.PermissionDenied,
          "missing_scope",
          `tool ${tool.name} needs the scope ${missing}, which the token lacks`,
          { scope: missing, tool: tool.name },
        );
      if (tool.license && deps.license.enforced) {
        const verdict = deps.license.admits(tool.license);
        if (!verdict.admitted) throw licenseRefusal(tool.license, verdict);
      }
      if (tool.agentOnly && p.actorType !== "agent")
        throw svcError(
          Code.PermissionDenied,
          "agent_only_tool",
          `tool ${tool.name} is for delegated agents (RFC 8693, act.sub agent|...); a person's own token cannot call it: use the REST route instead`,
          { tool: tool.name },
        );
      // The spec's on_behalf_of_user_id is the person's internal user id (the token's claim, else
      // the users row); the subject travels beside it.
      const personId =
        p.actorType === "agent"
          ? (p.internalUserId ?? (await internalUserIdOf(deps.db, person)) ?? "")
          : "";
      const audit = (outcome: "succeeded" | "failed", why?: string) => {
        const origin = auditOriginOf(ctx);
        return deps.db.transaction().execute((trx) =>
          appendAuditEvent(trx, {
            id: randomUUID(),
            occurred_at: new Date().toISOString(),
            service: "identity",
            action: `mcp.tool.${tool.name}`,
            outcome,
            resource: `mcp_tool/${tool.name}`,
            // The person an agent acted for, found above when the token did not carry the id.
            actor: personId
              ? { ...auditActorOf(origin.principal), internal_user_id: personId }
              : auditActorOf(origin.principal),
            request_id: origin.requestId ?? "",
            trace_id: currentTraceId(),
            details: {
              arguments: args,
              ...(why ? { error: why } : {}),
              ...(p.actorType === "agent"
                ? {
                    delegation: {
                      agent_subject: p.agentSubject ?? "",
                      on_behalf_of_user_id: personId,
                      on_behalf_of_sub: person,
                      profile: DELEGATION_PROFILE,
                    },
                  }
                : {}),
            } as JsonObject,
          }),
        );
      };
      let result: JsonObject;
      try {
        result = await tool.run(clients, args, deps.timeoutMs);
      } catch (err) {
        await audit("failed", ConnectError.from(err).rawMessage);
        throw err;
      }
      await audit("succeeded");
      return create(InvokeMcpToolResponseSchema, {
        result,
        actor: { agentSubject: p.agentSubject ?? "", onBehalfOfSub: person },
      });
    },
  };
}
