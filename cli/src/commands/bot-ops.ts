import type { Command } from "commander";
import type { Io } from "../io.js";
import { routeCommand } from "../route-command.js";

const BOT: [string, string] = ["bot", "slug or id"];

/** A bot's operations that are one call each: halt, re-enable, replay, deploy, trials, chat. */
export function registerBotOps(bots: Command, io: Io): void {
  routeCommand(
    bots,
    {
      name: "halt",
      summary: "halt a bot: its paper sessions and backtests stop",
      route: "POST /bots/{bot_ref}/halt",
      args: [BOT],
      body: [{ flag: "--reason", field: "reason", help: "why (kept with the halt)" }],
    },
    io,
  );
  routeCommand(
    bots,
    {
      name: "re-enable",
      summary: "let a bot that a risk throttle disabled trade again (a named person, fresh MFA)",
      route: "POST /bots/{bot_ref}/risk/re-enable",
      args: [BOT],
      body: [{ flag: "--reason", field: "reason", help: "why it may trade again", required: true }],
    },
    io,
  );
  routeCommand(
    bots,
    {
      name: "replay",
      summary: "rebuild a bot's state from its events, as of a seq or a time",
      route: "POST /bots/{bot_ref}/replay",
      args: [BOT],
      body: [
        {
          flag: "--as-of-seq",
          field: "as_of_seq",
          help: "replay up to this event seq",
          type: "number",
        },
        { flag: "--as-of-time", field: "as_of_time", help: "replay up to this time (ISO 8601)" },
        {
          flag: "--rerun-strategy",
          field: "rerun_strategy",
          help: "run the strategy again on the events",
          type: "boolean",
        },
      ],
    },
    io,
  );
  routeCommand(
    bots,
    {
      name: "deploy",
      summary: "deploy a bot version to a target (k8s) with its ApprovedPromotion token",
      route: "POST /bots/{bot_ref}/deploy",
      args: [BOT],
      body: [
        { flag: "--target", field: "target", help: "backtest, paper or k8s", required: true },
        {
          flag: "--approved-promotion",
          field: "approved_promotion",
          help: "the ApprovedPromotion token",
        },
      ],
    },
    io,
  );
  routeCommand(
    bots,
    {
      name: "trials",
      summary: "every trial of a bot (each backtest of a sweep), for the promotion gate's count",
      route: "GET /bots/{bot_ref}/trials",
      args: [BOT],
      allPages: true,
    },
    io,
  );
  routeCommand(
    bots,
    {
      name: "chat",
      summary: "ask the bot's research agent a question (gathered into one answer)",
      route: "POST /bots/{bot_ref}/chat",
      args: [BOT],
      body: [
        { flag: "--message", field: "message", help: "the question", required: true },
        { flag: "--conversation", field: "conversation_id", help: "continue this conversation" },
      ],
    },
    io,
  );
  const conversations = bots
    .command("conversations")
    .description("a bot's research conversations: list, show, delete");
  routeCommand(
    conversations,
    {
      name: "list",
      summary: "a bot's conversations, newest first",
      route: "GET /bots/{bot_ref}/conversations",
      args: [BOT],
      allPages: true,
    },
    io,
  );
  routeCommand(
    conversations,
    {
      name: "show",
      summary: "one conversation with its messages",
      route: "GET /bots/{bot_ref}/conversations/{conversation_id}",
      args: [BOT, ["conversation", "the conversation's id"]],
    },
    io,
  );
  routeCommand(
    conversations,
    {
      name: "delete",
      summary: "delete one conversation",
      route: "DELETE /bots/{bot_ref}/conversations/{conversation_id}",
      args: [BOT, ["conversation", "the conversation's id"]],
    },
    io,
  );
}
