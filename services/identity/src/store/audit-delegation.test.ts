import { describe, expect, it } from "vitest";
import { specFieldsOf, type NewAuditEvent } from "./audit-trail.repository.js";

const act = (details: NewAuditEvent["details"]): NewAuditEvent => ({
  id: "a-1",
  occurred_at: "2026-11-28T10:00:00.000Z",
  service: "identity",
  action: "mcp.tool.get_bot",
  outcome: "succeeded",
  resource: "mcp_tool/get_bot",
  actor: {
    subject: "agent|research-chat",
    actor_type: "agent",
    internal_user_id: "usr-alice",
    agent_subject: "agent|research-chat",
    on_behalf_of: "auth0|alice",
  },
  request_id: "r-1",
  trace_id: "",
  details,
});

// The agent and the person an agent acted for live only in details.delegation since the audit
// table took the spec's columns: the block is the chain's, made from the act's actor.
describe("a delegated act's audit row", () => {
  it("names the agent and the person from the act, whatever block the service wrote", () => {
    const row = specFieldsOf(
      act({
        tool: "get_bot",
        delegation: {
          agent_subject: "agent|someone-else",
          on_behalf_of_user_id: "usr-mallory",
          scopes: "read:bots",
        },
      }),
    );
    expect(row.details).toEqual({
      tool: "get_bot",
      delegation: {
        agent_subject: "agent|research-chat",
        on_behalf_of_user_id: "usr-alice",
        on_behalf_of_sub: "auth0|alice",
        profile: "svc-agent-delegation",
        scopes: "read:bots",
      },
    });
  });

  it("gets the block when the service wrote none, and a person's own act gets none", () => {
    expect(specFieldsOf(act({})).details.delegation).toMatchObject({
      agent_subject: "agent|research-chat",
      on_behalf_of_user_id: "usr-alice",
    });
    const own = act({ tool: "x" });
    own.actor = { ...own.actor, agent_subject: "", on_behalf_of: "", actor_type: "user" };
    expect(specFieldsOf(own).details).toEqual({ tool: "x" });
  });
});
