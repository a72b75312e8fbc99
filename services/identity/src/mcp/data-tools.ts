import { type DescMessage, type JsonObject, type MessageShape } from "@bufbuild/protobuf";
import type { Client } from "@connectrpc/connect";
import {
  BotDeploymentSchema,
  BotKind,
  BotSchema,
  DeploymentTarget,
  ListBotTrialsResponseSchema,
  ListBotsResponseSchema,
  StateSnapshotSchema,
  StrategySourceSchema,
  type BotsService,
} from "@svc/gen/svc/bots/v1/bots_pb.js";
import {
  PromotionRequestSchema,
  type PromotionService,
} from "@svc/gen/svc/promotion/v1/promotion_pb.js";
import { Code, ConnectError, errorDetailOf, invalidField, svcError } from "@svc/lib/errors";
import type { LicenseFeature } from "@svc/lib/license";
import { toWireJson } from "@svc/lib/validate";

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
  /** The licensed feature it needs where license enforcement is on (a self-hosted install). */
  license?: LicenseFeature;
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

// The REST API's JSON, so a model reads what the docs and a person's curl show.
const json = <D extends DescMessage>(schema: D, msg: MessageShape<D>) => toWireJson(schema, msg);

function text(args: JsonObject, name: string): string {
  const v = args[name];
  if (typeof v !== "string" || v === "" || v.includes("\u0000"))
    throw invalidField(`arguments.${name}`, `arguments.${name} must be a non-empty string`);
  return v;
}

/** The paging arguments every list tool takes, as the REST list routes take them. */
const PAGE_ARGS = {
  limit: {
    required: false,
    doc: "at most this many per page (1-1000, default 100)",
    type: "integer",
  },
  page_token: {
    required: false,
    doc: "next_page_token of the previous answer, exactly as it came, to read the next page; unset for the first page",
  },
} as const;

/** The longest page token the services accept (their page_token rule). */
const MAX_PAGE_TOKEN_CHARS = 512;

/**
 * `limit` and `page_token` of a list tool's arguments, checked before any call: a token that
 * cannot be one of ours (not a string, too long, not base64url) is refused naming it.
 */
function pageArgs(args: JsonObject): { limit: number; pageToken: string } {
  const limit = args.limit ?? 100;
  if (typeof limit !== "number" || !Number.isInteger(limit) || limit < 1 || limit > 1000)
    throw invalidField("arguments.limit", "arguments.limit must be a whole number from 1 to 1000");
  const pageToken = args.page_token ?? "";
  if (
    typeof pageToken !== "string" ||
    pageToken.length > MAX_PAGE_TOKEN_CHARS ||
    !/^[A-Za-z0-9_-]*$/.test(pageToken)
  )
    throw malformedToken();
  return { limit, pageToken };
}

const malformedToken = () =>
  invalidField(
    "arguments.page_token",
    "arguments.page_token is malformed: pass next_page_token exactly as the previous answer gave it, or leave it unset for the first page",
  );

/**
 * One page from the owning service. Its refusal of a token (malformed, another list's, other
 * filters') names the service's own field; the caller of the tool named `arguments.page_token`.
 */
async function page<T>(read: () => Promise<T>): Promise<T> {
  try {
    return await read();
  } catch (err) {
    const e = ConnectError.from(err);
    if (e.code === Code.InvalidArgument && errorDetailOf(e).details.field === "page_token")
      throw svcError(
        Code.InvalidArgument,
        "invalid_argument",
        `arguments.${e.rawMessage}`,
        { field: "arguments.page_token" },
        { cause: e },
      );
    throw err;
  }
}

/**
 * A page with its next_page_token (empty on the last page) as its first key: a client that cuts
 * a long answer short (the research chat gives the model 16,000 characters) keeps the token.
 */
const firstTheToken = (nextPageToken: string, page: JsonObject): JsonObject => ({
  next_page_token: nextPageToken,
  ...page,
});

/** The read tools of the MCP data endpoint, by name. */
export const DATA_TOOLS: readonly DataTool[] = [
  {
    name: "bots.list",
    description:
      "The bots on the platform, oldest first: id, slug, kind, status, current version. One page per call: pass next_page_token back as page_token until it is empty to read every bot.",
    args: PAGE_ARGS,
    async run(c, args, timeoutMs) {
      const res = await page(() => c.bots.listBots(pageArgs(args), { timeoutMs }));
      return firstTheToken(res.nextPageToken, json(ListBotsResponseSchema, res));
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
    description:
      "A bot's backtests, newest first, with their status and result summary (PnL, Sharpe...). One page of the bot's deployments per call, its backtests kept (a page may hold fewer than limit, or none): pass next_page_token back as page_token until it is empty to read every backtest.",
    args: { bot_ref: { required: true, doc: "the bot's id or slug" }, ...PAGE_ARGS },
    async run(c, args, timeoutMs) {
      const botRef = text(args, "bot_ref");
      const { items, nextPageToken } = await page(() =>
        c.bots.listBotDeployments({ botRef, ...pageArgs(args) }, { timeoutMs }),
      );
      return firstTheToken(nextPageToken, {
        backtests: items
          .filter((d) => d.target === DeploymentTarget.BACKTEST)
          .map((d) => json(BotDeploymentSchema, d)),
      });
    },
  },
  {
    name: "trials.ledger",
    description:
      "A bot's TrialLedger: every backtest recorded as a trial (version, parameters, Sharpe) and N, the count the promotion gates deflate by. One page of trials per call: pass next_page_token back as page_token until it is empty to read every trial.",
    args: { bot_ref: { required: true, doc: "the bot's id or slug" }, ...PAGE_ARGS },
    async run(c, args, timeoutMs) {
      const botRef = text(args, "bot_ref");
      const ledger = await page(() =>
        c.bots.listBotTrials({ botRef, ...pageArgs(args) }, { timeoutMs }),
      );
      // N = 0 is an answer a model must see, not an absent field.
      return firstTheToken(ledger.nextPageToken, json(ListBotTrialsResponseSchema, ledger));
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
    name: "codebase.strategy_source",
    description:
      "A bot version's strategy source as it was uploaded (entry file first), with its digest and the bundle's. Needs read:mcp:codebase; on a self-hosted install, a lease entitling kb_federation.",
    args: {
      bot_ref: { required: true, doc: "the bot's id or slug" },
      version: { required: true, doc: "the version number (1, 2, ...)", type: "integer" },
    },
    scopes: ["read:mcp:codebase"],
    license: "kb_federation",
    async run(c, args, timeoutMs) {
      const botRef = text(args, "bot_ref");
      const version = args.version;
      if (typeof version !== "number" || !Number.isSafeInteger(version) || version < 1)
        throw invalidField("arguments.version", "arguments.version must be a whole number from 1");
      const source = await c.bots.getStrategySource({ botRef, version }, { timeoutMs });
      return json(StrategySourceSchema, source);
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
