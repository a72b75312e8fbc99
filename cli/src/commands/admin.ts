import type { Command } from "commander";
import type { Io } from "../io.js";
import { routeCommand, type BodyFlag } from "../route-command.js";
import { declareRoutes } from "../routes/declare.js";

/** Who you are, credentials, fleet limits, org mappings, licenses, scaling, data tools. */
export function registerAdmin(program: Command, io: Io): void {
  const whoami = routeCommand(
    program,
    {
      name: "whoami",
      summary: "who the platform takes you for: subject, org, roles, scopes",
      route: "GET /auth/whoami",
    },
    io,
  );
  declareRoutes(whoami, "GET /whoami");

  const credentials = program
    .command("credentials")
    .description("exchange and broker credentials in the vault: list, add, rotate, delete, rewrap");
  routeCommand(
    credentials,
    {
      name: "list",
      summary: "stored credentials (names and scope, never secrets)",
      route: "GET /credentials",
    },
    io,
  );
  routeCommand(
    credentials,
    {
      name: "add",
      summary:
        "store a credential: --file with {name, fleet|bot, secret} (the secret from a file, not a flag)",
      route: "POST /credentials",
      bodyFile:
        "the credential as JSON: {name, fleet or bot, secret: {exchange_api: {...}}} (- reads stdin)",
      body: [
        { flag: "--name", field: "name", help: "the credential's name" },
        { flag: "--fleet", field: "fleet", help: "the fleet that may use it" },
        { flag: "--bot", field: "bot", help: "the bot that may use it" },
      ],
    },
    io,
  );
  routeCommand(
    credentials,
    {
      name: "rotate",
      summary: "replace a credential's secret: --file with the secret as JSON",
      route: "POST /credentials/{name}/rotate",
      bodyFile: "the new secret as JSON: {exchange_api: {...}} (- reads stdin)",
    },
    io,
  );
  routeCommand(
    credentials,
    { name: "delete", summary: "delete a credential", route: "DELETE /credentials/{name}" },
    io,
  );
  routeCommand(
    credentials,
    {
      name: "rewrap",
      summary: "re-encrypt every credential under the current key-encryption key",
      route: "POST /admin/credentials/rewrap",
    },
    io,
  );

  const fleets = program.command("fleets").description("a fleet's shared risk limits");
  routeCommand(
    fleets,
    {
      name: "risk-limits",
      summary: "the capital and credit limits a fleet's bots share",
      route: "GET /fleets/{fleet}/risk-limits",
    },
    io,
  );
  routeCommand(
    fleets,
    {
      name: "set-risk-limits",
      summary: "set a fleet's capital and credit limits (both replaced)",
      route: "PUT /fleets/{fleet}/risk-limits",
      body: [
        {
          flag: "--capital-limit",
          field: "capital_limit",
          help: "capital limit",
          type: "number",
          required: true,
        },
        {
          flag: "--credit-limit",
          field: "credit_limit",
          help: "credit limit",
          type: "number",
          required: true,
        },
      ],
    },
    io,
  );

  const org = program
    .command("org")
    .description("an organisation's identity-provider group mappings");
  const mappings = org.command("mappings").description("which IdP group gets which role where");
  routeCommand(
    mappings,
    {
      name: "list",
      summary: "an org's group mappings",
      route: "GET /tenancy/orgs/{org_id}/idp-group-mappings",
      args: [["org", "the org's id"]],
    },
    io,
  );
  routeCommand(
    mappings,
    {
      name: "add",
      summary: "map an IdP group to a role on a scope",
      route: "POST /tenancy/orgs/{org_id}/idp-group-mappings",
      args: [["org", "the org's id"]],
      body: [
        { flag: "--connection-kind", field: "connection_kind", help: "oidc or saml" },
        {
          flag: "--external-group",
          field: "external_group",
          help: "the group's name at the IdP",
          required: true,
        },
        {
          flag: "--scope-kind",
          field: "scope_kind",
          help: "org, workspace or fleet",
          required: true,
        },
        { flag: "--scope-id", field: "scope_id", help: "the scope's id", required: true },
        { flag: "--role", field: "role", help: "the role granted", required: true },
      ],
    },
    io,
  );
  routeCommand(
    mappings,
    {
      name: "delete",
      summary: "delete a group mapping",
      route: "DELETE /tenancy/orgs/{org_id}/idp-group-mappings/{mapping_id}",
      args: [
        ["org", "the org's id"],
        ["mapping", "the mapping's id"],
      ],
    },
    io,
  );

  registerInvites(org, io);
  registerFleetInfrastructure(fleets, io);

  const license = program.command("license").description("bot runtime licenses");
  routeCommand(
    license,
    {
      name: "revoke",
      summary: "revoke a deployment's license leases: its runtime stops at the next renewal",
      route: "POST /admin/license/deployments/{deployment_id}/revoke",
      args: [["deployment", "the deployment's id"]],
      body: [{ flag: "--reason", field: "reason", help: "why", required: true }],
    },
    io,
  );

  routeCommand(
    program,
    {
      name: "scale",
      summary: "scale a platform deployment (Kubernetes) to a number of replicas",
      route: "PATCH /manage/deployments/{deployment_name}/scale",
      args: [["deployment", "the deployment's name"]],
      query: [["--replicas", "replicas", "the number of replicas"]],
    },
    io,
  );

  const tools = program.command("tools").description("the data tools agents call over MCP");
  routeCommand(
    tools,
    {
      name: "list",
      summary: "the data tools and who may call them",
      route: "GET /mcp/data/tools",
      columns: ["name", "agent_only", "scopes", "description"],
    },
    io,
  );
  routeCommand(
    tools,
    {
      name: "invoke",
      summary: "call a data tool with arguments from --file (JSON)",
      route: "POST /mcp/data/tools/{tool_name}/invoke",
      args: [["tool", "the tool's name"]],
      bodyFile: "the tool's arguments as JSON (- reads stdin)",
    },
    io,
  );
}

const ORG: [string, string] = ["org", "the org's id"];

/** An org's invites and its tenancy strategy (how its people become members). */
function registerInvites(org: Command, io: Io): void {
  const invites = org.command("invites").description("single-use invites into an org");
  routeCommand(
    invites,
    {
      name: "list",
      summary: "an org's invites and their state (the tokens are never shown again)",
      route: "GET /tenancy/orgs/{org_id}/invites",
      args: [ORG],
    },
    io,
  );
  routeCommand(
    invites,
    {
      name: "issue",
      summary: "issue an invite; its token is shown once; needs step-up",
      route: "POST /tenancy/orgs/{org_id}/invites",
      args: [ORG],
      body: [
        { flag: "--role", field: "role", help: "the role the invitee gets (default member)" },
        { flag: "--email", field: "email", help: "who it is for (a note; the token admits)" },
        {
          flag: "--ttl-seconds",
          field: "ttl_seconds",
          help: "how long it stays valid (300 to 2592000; default 7 days)",
          type: "number",
        },
      ],
    },
    io,
  );
  routeCommand(
    invites,
    {
      name: "revoke",
      summary: "revoke an invite not yet accepted; needs step-up",
      route: "POST /tenancy/orgs/{org_id}/invites/{invite_id}/revoke",
      args: [ORG, ["invite", "the invite's id"]],
    },
    io,
  );
  routeCommand(
    invites,
    {
      name: "accept",
      summary: "accept an invite with its token: you become a member of the org",
      route: "POST /tenancy/orgs/{org_id}/invites/accept",
      args: [ORG],
      body: [{ flag: "--token", field: "token", help: "the invite's token", required: true }],
    },
    io,
  );
  const strategy = org
    .command("tenancy-strategy")
    .description("how an org's people become members: hybrid, invite_only or group_mapped");
  const to: BodyFlag = {
    flag: "--strategy",
    field: "strategy",
    help: "hybrid, invite_only or group_mapped",
    required: true,
  };
  routeCommand(
    strategy,
    {
      name: "plan",
      summary: "the memberships a move to another strategy would add and remove (changes nothing)",
      route: "POST /tenancy/orgs/{org_id}/tenancy-strategy/dry-run",
      args: [ORG],
      body: [to],
    },
    io,
  );
  routeCommand(
    strategy,
    {
      name: "migrate",
      summary: "move the org to another strategy, applying the plan in one step; needs step-up",
      route: "POST /tenancy/orgs/{org_id}/tenancy-strategy/migrate",
      args: [ORG],
      body: [to],
    },
    io,
  );
}

/** A fleet's BYOC runtime: render and apply, or delete, its Kubernetes objects. */
function registerFleetInfrastructure(fleets: Command, io: Io): void {
  const infra = fleets
    .command("infrastructure")
    .description("a fleet's runtime on Kubernetes: plan, apply, destroy (BYOC)");
  routeCommand(
    infra,
    {
      name: "plan",
      summary: "the objects an apply (or a destroy) would write or delete (changes nothing)",
      route: "POST /manage/fleets/{fleet}/infrastructure/dry-run",
      body: [{ flag: "--operation", field: "operation", help: "apply (default) or destroy" }],
    },
    io,
  );
  routeCommand(
    infra,
    {
      name: "apply",
      summary: "render the fleet's runner Deployments and apply them; needs step-up",
      route: "POST /manage/fleets/{fleet}/infrastructure/apply",
    },
    io,
  );
  routeCommand(
    infra,
    {
      name: "destroy",
      summary: "delete the fleet's Bot resources and runners; needs step-up",
      route: "POST /manage/fleets/{fleet}/infrastructure/destroy",
    },
    io,
  );
}
