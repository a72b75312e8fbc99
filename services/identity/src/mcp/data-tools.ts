import { toJson, type DescMessage, type JsonObject, type MessageShape } from "@bufbuild/protobuf";
import type { Client } from "@connectrpc/connect";
import {
  BotDeploymentSchema,
  BotKind,
  BotSchema,
  ListBotTrialsResponseSchema,
  ListBotsResponseSchema,
  StateSnapshotSchema,
  type BotsService,
} from "@svc/gen/svc/bots/v1/bots_pb.js";
import {
  PromotionRequestSchema,
  type PromotionService,
} from "@svc/gen/svc/promotion/v1/promotion_pb.js";
import { Code, invalidField, svcError } from "@svc/lib/errors";

/** The services the data tools read through: each tool asks the owner, never its tables. */
export interface McpClients {
  bots: Client<typeof BotsService>;
  promotion: Client<typeof PromotionService>;
}

/** One tool over the platform's data. */
export interface DataTool {
  name: string;
  description: string;
  /** Argument names with what each means; the required ones are checked before any call. */
  args: Record<string, { required: boolean; doc: string; type?: "string" | "integer" }>;
  /** Scopes a call needs beyond read:mcp:data (write:mcp:data for a tool that changes things). */
  scopes?: string[];
  /** Only a delegated agent may call it: a person uses the REST route instead. */
  agentOnly?: boolean;
  run(clients: McpClients, args: JsonObject, timeoutMs: number): Promise<JsonObject>;
}

/** JSON Schema of a tool's arguments, as an MCP client lists it. */
export function inputSchemaOf(tool: DataTool): JsonObject {
  const entries = Object.entries(tool.args);
  return {
    type: "object",
    properties: Object.fromEntries(
      entries.map(([k, a]) => [k, { type: a.type ?? "string", description: a.doc }]),
    ),
    required: entries.filter(([, a]) => a.required).map(([k]) => k),
  };
}

const json = <D extends DescMessage>(schema: D, msg: MessageShape<D>) =>
  toJson(schema, msg, { useProtoFieldName: true }) as JsonObject;

function text(args: JsonObject, name: string): string {
  const v = args[name];
  if (typeof v !== "string" || v === "" || v.includes("\u0000"))
    throw invalidField(`arguments.${name}`, `arguments.${name} must be a non-empty string`);
  return v;
}

/** The read tools of the MCP data endpoint, by name. */
export const DATA_TOOLS: readonly DataTool[] = [
  {
    name: "bots.list",
    description: "The bots on the platform: id, slug, kind, status, current version.",
    args: {
      limit: { required: false, doc: "at most this many (1-1000, default 100)", type: "integer" },
    },
    async run(c, args, timeoutMs) {
      const limit = typeof args.limit === "number" ? args.limit : 100;
      if (!Number.isInteger(limit) || limit < 1 || limit > 1000)
        throw invalidField(
          "arguments.limit",
          "arguments.limit must be a whole number from 1 to 1000",
        );
      return json(ListBotsResponseSchema, await c.bots.listBots({ limit }, { timeoutMs }));
    },
  },
  {
    name: "bots.get",
    description:
      "One bot's detail and its latest event-sourced state (positions, exposures, metrics).",
    args: { bot_ref: { required: true, doc: "the bot's id or slug" } },
    async run(c, args, timeoutMs) {
      const botRef = text(args, "bot_ref");
      const [bot, state] = await Promise.all([
        c.bots.getBot({ botRef }, { timeoutMs }),
        c.bots.getStateSnapshot({ botRef }, { timeoutMs }),
      ]);
      return { bot: json(BotSchema, bot), state: json(StateSnapshotSchema, state) };
    },
  },
  {
    name: "backtests.results",
    description: "A bot's backtests with their status and result summary (PnL, Sharpe...).",
    args: { bot_ref: { required: true, doc: "the bot's id or slug" } },
    async run(c, args, timeoutMs) {
      const { items } = await c.bots.listBotDeployments(
        { botRef: text(args, "bot_ref") },
        { timeoutMs },
      );
      return {
        backtests: items
          .map((d) => json(BotDeploymentSchema, d))
          .filter((d) => d.target === "backtest" || d.target === "DEPLOYMENT_TARGET_BACKTEST"),
      };
    },
  },
  {
    name: "trials.ledger",
    description:
      "A bot's TrialLedger: every backtest recorded as a trial (version, parameters, Sharpe) and N, the count the promotion gates deflate by.",
    args: { bot_ref: { required: true, doc: "the bot's id or slug" } },
    async run(c, args, timeoutMs) {
      const ledger = await c.bots.listBotTrials({ botRef: text(args, "bot_ref") }, { timeoutMs });
      // N = 0 is an answer a model must see, not an absent field.
      return toJson(ListBotTrialsResponseSchema, ledger, {
        useProtoFieldName: true,
        alwaysEmitImplicit: true,
      }) as JsonObject;
    },
  },
  {
    name: "promotion.request",
    description: "A promotion request's status, gate outcomes and decision log.",
    args: { request_id: { required: true, doc: "the promotion request id" } },
    async run(c, args, timeoutMs) {
      const r = await c.promotion.getPromotionRequest(
        { requestId: text(args, "request_id") },
        { timeoutMs },
      );
      const out = json(PromotionRequestSchema, r);
      // A tool answer is read by a model: the token that starts live trading never goes there.
      delete out.approved_promotion;
      return out;
    },
  },
  {
    name: "backtests.launch",
    description:
      "Starts a backtest of a research bot's current version on its default data; answers the pending deployment (follow it with backtests.results). Agents only, with write:mcp:data.",
    args: {
      bot_ref: { required: true, doc: "the research bot's id or slug" },
      data_source: { required: false, doc: "csv:<data set> or synthetic:<seed>; unset: default" },
    },
    scopes: ["write:mcp:data"],
    agentOnly: true,
    async run(c, args, timeoutMs) {
      const botRef = text(args, "bot_ref");
      const dataSource = args.data_source === undefined ? "" : text(args, "data_source");
      const bot = await c.bots.getBot({ botRef }, { timeoutMs });
      // A research agent experiments on research bots; a trading bot's backtests are a person's.
      if (bot.kind !== BotKind.RESEARCH)
        throw svcError(
          Code.FailedPrecondition,
          "bot_not_research",
          `bot "${botRef}" is a trading bot; backtests.launch runs research bots only`,
          { bot_ref: botRef, kind: "trading" },
        );
      const d = await c.bots.backtestBot({ botRef, dataSource }, { timeoutMs });
      return json(BotDeploymentSchema, d);
    },
  },
];
