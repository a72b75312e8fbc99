import type { Command } from "commander";
import type { Io } from "../io.js";
import { routeCommand } from "../route-command.js";

const REQUEST: [string, string] = ["request", "the promotion request's id"];

/** Promotion requests beyond the four-eyes path (promote, approvals, approve, reject). */
export function registerPromotionRequests(program: Command, io: Io): void {
  const promotion = program
    .command("promotion")
    .description("promotion requests: list, show, revoke");
  routeCommand(
    promotion,
    {
      name: "list",
      summary: "promotion requests, newest first (every page)",
      route: "GET /promotion/requests",
      query: [["--status", "status", "only requests in this status (pending, approved, ...)"]],
      allPages: true,
      columns: [
        "request_id",
        "kind",
        "status",
        "artifact.bot_ref",
        "artifact.version",
        "requested_by",
        "created_at",
      ],
    },
    io,
  );
  routeCommand(
    promotion,
    {
      name: "show",
      summary: "one promotion request with its gates and decisions",
      route: "GET /promotion/requests/{request_id}",
      args: [REQUEST],
    },
    io,
  );
  routeCommand(
    promotion,
    {
      name: "revoke",
      summary: "revoke an approved promotion: its token no longer starts anything",
      route: "POST /promotion/requests/{request_id}/revoke",
      args: [REQUEST],
      body: [{ flag: "--reason", field: "reason", help: "why", required: true }],
    },
    io,
  );
}
