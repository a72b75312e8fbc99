import { randomUUID } from "node:crypto";
import { auditOriginOf } from "@svc/lib/audit";
import { recordWorkloadRun } from "../audit/workload-run.js";
import { create, type JsonObject, type MessageInitShape } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import type { HandlerContext, ServiceImpl } from "@connectrpc/connect";
import type { Kysely } from "kysely";
import {
  ConversationDetailSchema,
  DeleteConversationResponseSchema,
  ListConversationsResponseSchema,
  type BotsService,
  type ChatEventSchema,
  type Conversation,
} from "@svc/gen/svc/bots/v1/bots_pb.js";
import { bearerOf, hasScope, principalOf, type Principal } from "@svc/lib/auth";
import { Code, ConnectError, svcError } from "@svc/lib/errors";
import { decodePageToken, pageOf, pageSize, type PagedList } from "@svc/lib/paging";
import type { Logger } from "@svc/lib/telemetry";
import * as bots from "../store/bots.repository.js";
import * as repo from "../store/conversations.repository.js";
import type { BotsDatabase } from "../store/bots.table.js";
import type { ConversationRow, NewChatMessage } from "../store/chat.table.js";
import { botNotFound } from "./bot-errors.js";
import type { AgentHalt, AgentHalts } from "../chat/agent-halts.js";
import { runAgent, type AgentEvent } from "../chat/chat-agent.js";
import type { ChatDelegation } from "../chat/delegation.js";
import { eventQueue } from "../chat/event-queue.js";
import { createLlmClient, LlmError, type LlmSettings } from "../chat/llm-client.js";
import { openMcpSession, type McpSession } from "../chat/mcp-tools.js";
import type { ChatLimits } from "../chat/chat-limits.js";
import { answerHoldMs, holdBudget, releaseBudget, type AnswerHold } from "../chat/answer-hold.js";

type Event = MessageInitShape<typeof ChatEventSchema>;

/** What research chat needs; the model and the delegation are optional settings. */
export interface ChatDeps {
  db: Kysely<BotsDatabase>;
  log: Logger;
  llm?: LlmSettings;
  /** Set when the platform delegates (SVC_AUTH_PROVIDER=oidc, a broker, the agent's client). */
  delegation?: ChatDelegation;
  /** The platform's MCP endpoint (SVC_MCP_URL, or the gateway of this process once it listens). */
  mcpUrl: () => string | undefined;
  halts: AgentHalts;
  limits: ChatLimits;
  /** Deadline of one MCP call, of the delegation and of the database calls. */
  timeoutMs: number;
}

const CONVERSATIONS: Omit<PagedList, "filters"> = {
  list: "chat_conversations",
  keys: ["timestamp", "uuid"],
};
const MCP_SCOPES = ["read:mcp:data", "write:mcp:data"];

/**
 * POST /bots/{bot_ref}/chat and the conversations. Everything that can refuse a chat is asked
 * before its first event (a plain HTTP error at the edge); then the agent streams, watched by
 * the agent switches, and what it said is stored with the tokens it used.
 */
export function createChatHandlers(
  deps: ChatDeps,
): Pick<
  ServiceImpl<typeof BotsService>,
  "chatBot" | "listConversations" | "getConversation" | "deleteConversation"
> {
  const { db } = deps;
  const llmClient = deps.llm ? createLlmClient(deps.llm) : undefined;

  async function researchBot(ref: string) {
    const bot = await bots.findBot(db, ref);
    if (!bot) throw botNotFound(ref);
    if (bot.kind !== "research")
      throw svcError(
        Code.FailedPrecondition,
        "bot_not_research",
        `bot "${bot.slug}" is a ${bot.kind} bot; only research bots chat`,
        { bot_ref: ref, kind: bot.kind },
      );
    return bot;
  }

  async function ownConversation(botId: string, sub: string, id: string) {
    const row = /^[0-9a-f-]{36}$/i.test(id)
      ? await repo.findConversation(db, botId, sub, id.toLowerCase())
      : undefined;
    if (!row)
      throw svcError(
        Code.NotFound,
        "conversation_not_found",
        `no conversation "${id}" of yours with this bot`,
        { conversation_id: id },
      );
    return row;
  }

  return {
    async *chatBot(req, ctx) {
      const p = principalOf(ctx);
      if (p.actorType === "agent")
        throw svcError(
          Code.PermissionDenied,
          "agent_not_allowed",
          "a research bot chats with a person, whose token it delegates; an agent's token cannot chat",
        );
      const bot = await researchBot(req.botRef);
      if (!deps.llm || !llmClient)
        throw svcError(
          Code.FailedPrecondition,
          "llm_not_configured",
          "research chat needs a model: set SVC_LLM_BASE_URL and SVC_LLM_MODEL (and SVC_LLM_API_KEY if the provider wants one)",
          { settings: ["SVC_LLM_BASE_URL", "SVC_LLM_MODEL", "SVC_LLM_API_KEY"] },
        );
      await refuseWhileHalted(deps.halts);
      // A conversation whose budget is spent or held by an answer in flight is refused before the
      // chat is counted: a person asked to try again in a few seconds would otherwise use up the
      // chats of the minute by waiting. holdBudget below still refuses one that raced this look.
      const existing = req.conversationId
        ? await ownConversation(bot.id, p.sub, req.conversationId)
        : undefined;
      if (existing) {
        const heldUntil = await repo.answerHeldUntil(db, existing.id);
        if (heldUntil || Number(existing.tokens_used) >= deps.limits.tokenBudget)
          throw deps.limits.budgetRefusal(existing, heldUntil);
      }
      await deps.limits.takeChat(p.sub);
      const conversation =
        existing ?? (await openConversation(p, bot.id, req.conversationId, req.message));
      // Of two answers started at once in this conversation, one holds its budget and runs; the
      // other is refused here. The hold is let go when the answer is stored, or on any way out.
      const hold = await holdBudget(
        db,
        deps.limits,
        conversation,
        answerHoldMs(deps.llm.timeoutMs),
      );
      // Everything the answer runs on stops with `stop`: the person gone (before the first event
      // too: an aborted signal fires no more events), a switch engaged, or the stream given up
      // by its reader (return() at any yield, the first included, without the signal aborting).
      const stop = new AbortController();
      let mcp: Awaited<ReturnType<typeof openTools>> | undefined;
      let watch: { stop(): Promise<void> } | undefined;
      let work: Promise<void> | undefined;
      let halt: AgentHalt | undefined;
      const transcript: NewChatMessage[] = [];
      let tokens = 0;
      let finalEvent: Event | undefined;
      let total: number | undefined;
      // Waiting at a yield for a reader who may never ask again: Connect aborts the signal of a
      // caller gone but neither resumes nor returns a stream parked there.
      let parked = false;
      let letGoOnce: Promise<void> | undefined;
      /** Stops what is left of the answer and lets go of all it holds, once, whoever asks first. */
      const letGo = () =>
        (letGoOnce ??= (async () => {
          stop.abort(new Error("the answer's stream ended"));
          await work;
          await watch?.stop();
          ctx.signal.removeEventListener("abort", onGone);
          await mcp?.session.close().catch(() => undefined);
          // What was said is kept (a halted or abandoned answer's completed steps included), with
          // the tokens of the model calls that finished; the hold goes with it or, failing, below.
          if (transcript.length > 0 || tokens > 0)
            total = await store(conversation, hold, transcript, tokens).catch((err: unknown) => {
              deps.log.warn({ err, conversation_id: conversation.id }, "chat not stored");
              return undefined;
            });
          await releaseBudget(db, hold).catch((err: unknown) =>
            deps.log.warn(
              { err, conversation_id: conversation.id },
              "chat budget hold not released",
            ),
          );
        })());
      function onGone() {
        stop.abort(ctx.signal.reason);
        // Nobody awaits this one: a failure is logged, never left to end the process.
        if (parked)
          letGo().catch((err: unknown) =>
            deps.log.warn({ err, conversation_id: conversation.id }, "chat not let go"),
          );
      }
      if (ctx.signal.aborted) onGone();
      else ctx.signal.addEventListener("abort", onGone, { once: true });
      // The answer is a workload: its start and stop are workload_run entries, the person's.
      const audit = (op: "start" | "stop", reason?: string) =>
        db.transaction().execute((trx) =>
          recordWorkloadRun(trx, auditOriginOf(ctx), {
            workload: "chat_session",
            op,
            outcome: reason?.startsWith("failed") ? "failed" : "succeeded",
            taskId: hold.answerId,
            bot: { id: bot.id, version: bot.current_version },
            ...(reason !== undefined ? { reason } : {}),
            details: { conversation_id: conversation.id },
          }),
        );
      let failure: string | undefined;
      try {
        await audit("start");
        const history = await repo.listMessages(db, conversation.id);
        mcp = await openTools(p, ctx, stop.signal);
        watch = deps.halts.watch((h) => {
          halt = h;
          stop.abort(new Error(`halted: ${h.reason}`));
        });
        const queue = eventQueue<Event>();
        const agentSubject = mcp?.agentSubject ?? "";
        // Nobody to yield to: the person left while the answer was being set up.
        if (ctx.signal.aborted) return;
        parked = true;
        yield {
          kind: { case: "started", value: { conversationId: conversation.id, agentSubject } },
        };
        parked = false;
        // Gone before the answer began (a switch, the person): the model is not asked.
        if (!stop.signal.aborted) {
          work = runAgent({
            llm: llmClient,
            settings: deps.llm,
            botName: bot.name,
            history,
            message: req.message,
            ...(mcp ? { mcp: mcp.session } : {}),
            emit: (e) => queue.push(toEvent(e, conversation.id)),
            record: (m) => transcript.push(m),
            count: (n) => (tokens += n),
            signal: stop.signal,
          }).then(
            () => queue.end(),
            (err: unknown) => queue.end(err),
          );
          try {
            for await (const e of queue.drain()) {
              if (e.kind?.case === "final") finalEvent = e;
              else {
                if (ctx.signal.aborted) break;
                parked = true;
                yield e;
                parked = false;
              }
            }
          } catch (err) {
            if (!halt) throw chatFailure(err);
          }
        }
      } catch (err) {
        failure = (err as Error)?.message ?? String(err);
        throw err;
      } finally {
        parked = false;
        await letGo();
        const why = halt
          ? `halted: ${halt.reason}`
          : failure !== undefined
            ? `failed: ${failure}`
            : finalEvent
              ? "finished"
              : "stopped: the person left before the answer ended";
        await audit("stop", why).catch((err: unknown) =>
          deps.log.warn({ err, conversation_id: conversation.id }, "chat stop not audited"),
        );
        if (finalEvent?.kind?.case === "final") {
          finalEvent.kind.value.tokensUsed = BigInt(tokens);
          finalEvent.kind.value.conversationTokens = BigInt(total ?? 0);
        }
      }
      if (halt) {
        deps.log.info(
          { conversation_id: conversation.id, bot_id: bot.id, scope: halt.scope },
          "research chat halted",
        );
        yield { kind: { case: "halted", value: { scope: halt.scope, reason: halt.reason } } };
        return;
      }
      if (finalEvent) yield finalEvent;
    },

    async listConversations(req, ctx) {
      const p = principalOf(ctx);
      const bot = await researchBot(req.botRef);
      const size = pageSize(req.limit);
      const list = { ...CONVERSATIONS, filters: { bot: bot.id, user: p.sub } };
      const after = decodePageToken(list, req.pageToken);
      const rows = await repo.listConversations(db, {
        botId: bot.id,
        userSub: p.sub,
        limit: size + 1,
        ...(after ? { after } : {}),
      });
      const page = pageOf(rows, size, list, (r) => [r.updated_key, r.id]);
      return create(ListConversationsResponseSchema, {
        items: page.items.map(toConversation),
        nextPageToken: page.nextPageToken,
      });
    },

    async getConversation(req, ctx) {
      const p = principalOf(ctx);
      const bot = await researchBot(req.botRef);
      const row = await ownConversation(bot.id, p.sub, req.conversationId);
      const messages = await repo.listMessages(db, row.id);
      return create(ConversationDetailSchema, {
        conversation: toConversation(row),
        messages: messages.map((m) => ({
          role: m.role,
          text: m.text,
          tool: m.tool,
          callId: m.call_id,
          citations: m.citations.map((c) => ({ callId: c.call_id, tool: c.tool })),
          createdAt: timestampFromDate(new Date(m.created_at)),
        })),
      });
    },

    async deleteConversation(req, ctx) {
      const p = principalOf(ctx);
      const bot = await researchBot(req.botRef);
      const row = await ownConversation(bot.id, p.sub, req.conversationId);
      await db.transaction().execute((trx) => repo.deleteConversation(trx, row.id));
      return create(DeleteConversationResponseSchema, {
        conversationId: row.id,
        deleted: true,
      });
    },
  };

  async function openConversation(
    p: Principal,
    botId: string,
    id: string,
    message: string,
  ): Promise<ConversationRow> {
    if (id) return ownConversation(botId, p.sub, id);
    return db.transaction().execute((trx) =>
      repo.insertConversation(trx, {
        id: randomUUID(),
        bot_id: botId,
        user_sub: p.sub,
        title: message.slice(0, 80),
      }),
    );
  }

  /**
   * The MCP session the agent reads through. With a provider, the person's token is exchanged
   * for one naming the agent (only the MCP scopes the person holds); locally, the tools run as
   * the local user (there is no provider to delegate through, and no agent to name).
   */
  async function openTools(
    p: Principal,
    ctx: HandlerContext,
    signal: AbortSignal,
  ): Promise<{ session: McpSession; agentSubject: string } | undefined> {
    const url = deps.mcpUrl();
    const scopes = MCP_SCOPES.filter((s) => hasScope(p, s));
    if (!url || scopes.length === 0) return undefined;
    let headers: Record<string, string>;
    let agentSubject = "";
    if (p.actorType === "local") {
      headers = { "x-svc-local-user": p.sub.replace(/^local\|/, "") };
    } else {
      if (!deps.delegation)
        throw svcError(
          Code.FailedPrecondition,
          "chat_delegation_failed",
          "research chat acts through delegated tokens: set SVC_AUTH_AGENT_TOKEN_EXCHANGE_ENABLED=true, SVC_AUTH_AGENT_BROKER_CLIENT_ID/_SECRET and SVC_CHAT_AGENT_CLIENT_ID/_SECRET",
          {
            settings: [
              "SVC_AUTH_AGENT_TOKEN_EXCHANGE_ENABLED",
              "SVC_AUTH_AGENT_BROKER_CLIENT_ID",
              "SVC_AUTH_AGENT_BROKER_CLIENT_SECRET",
              "SVC_CHAT_AGENT_CLIENT_ID",
              "SVC_CHAT_AGENT_CLIENT_SECRET",
            ],
          },
        );
      const personToken = bearerOf(ctx.requestHeader.get("authorization")) ?? "";
      try {
        agentSubject = await deps.delegation.agentSubject();
        const delegated = await deps.delegation.delegate(personToken, scopes);
        headers = { authorization: `Bearer ${delegated.accessToken}` };
      } catch (err) {
        throw svcError(
          Code.Unavailable,
          "chat_delegation_failed",
          `the agent could not get a delegated token for you: ${(err as Error).message}`,
          {},
          { cause: err },
        );
      }
    }
    try {
      const session = await openMcpSession(
        url,
        headers,
        deps.timeoutMs,
        AbortSignal.any([signal, ctx.signal]),
      );
      return { session, agentSubject };
    } catch (err) {
      throw svcError(
        Code.Unavailable,
        "mcp_tool_unavailable",
        `the platform's MCP endpoint (${url}) did not answer: ${(err as Error).message}`,
        {},
        { cause: err },
      );
    }
  }

  async function store(
    c: ConversationRow,
    hold: AnswerHold,
    messages: NewChatMessage[],
    tokens: number,
  ) {
    return db.transaction().execute(async (trx) => {
      const locked = await repo.lockConversation(trx, c.id);
      if (!locked) return undefined;
      await repo.appendMessages(trx, locked, messages, tokens);
      // The tokens counted and the budget let go together: no answer starts in between.
      await repo.releaseAnswer(trx, c.id, hold.answerId);
      return Number(locked.tokens_used) + tokens;
    });
  }
}

const HALTED_BY: Record<AgentHalt["scope"], string> = {
  agents: "POST /agents/halt",
  quant_agents: "POST /quant-agents/halt",
  platform: "the platform kill switch",
};

async function refuseWhileHalted(halts: AgentHalts) {
  let h: AgentHalt | null;
  try {
    h = await halts.engaged();
  } catch (err) {
    // Fail safe: a switch that cannot be read may be engaged.
    throw svcError(
      Code.Unavailable,
      "killswitch_store_unreachable",
      "the agent switches cannot be read (key-value store); no chat starts until they can",
      {},
      { cause: err },
    );
  }
  if (h)
    throw svcError(
      Code.Unavailable,
      "agents_halted",
      `agents are halted (${HALTED_BY[h.scope]}): ${h.reason || "no reason given"}; no chat starts until the switch is released`,
      { scope: h.scope, reason: h.reason },
    );
}

function chatFailure(err: unknown): ConnectError {
  if (err instanceof LlmError)
    return svcError(
      err.code === "llm_timeout" ? Code.DeadlineExceeded : Code.Unavailable,
      err.code,
      err.message,
      {},
      { cause: err },
    );
  return ConnectError.from(err);
}

function toEvent(e: AgentEvent, conversationId: string): Event {
  switch (e.kind) {
    case "token":
      return { kind: { case: "token", value: { text: e.text } } };
    case "tool_call":
      return {
        kind: {
          case: "toolCall",
          value: { callId: e.callId, tool: e.tool, arguments: e.arguments as JsonObject },
        },
      };
    case "tool_result":
      return {
        kind: {
          case: "toolResult",
          value: { callId: e.callId, tool: e.tool, isError: e.isError, text: e.text },
        },
      };
    case "final":
      return {
        kind: {
          case: "final",
          value: {
            conversationId,
            text: e.text,
            citations: e.citations.map((c) => ({ callId: c.call_id, tool: c.tool })),
          },
        },
      };
  }
}

function toConversation(r: ConversationRow): Conversation {
  return {
    $typeName: "svc.bots.v1.Conversation",
    id: r.id,
    botId: r.bot_id,
    userSub: r.user_sub,
    title: r.title,
    tokensUsed: BigInt(r.tokens_used),
    messageCount: r.message_count,
    createdAt: timestampFromDate(new Date(r.created_at)),
    updatedAt: timestampFromDate(new Date(r.updated_at)),
  };
}
