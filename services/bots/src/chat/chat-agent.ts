import type OpenAI from "openai";
import type { ChatMessageRow, NewChatMessage, StoredCitation } from "../store/chat.table.js";
import {
  streamCompletion,
  type ChatCompletionMessageParam,
  type ChatCompletionTool,
  type LlmSettings,
} from "./llm-client.js";
import type { McpSession } from "./mcp-tools.js";

/** Tool rounds one answer may take before the agent stops asking the model. */
export const MAX_TOOL_ROUNDS = 4;

/** What the agent tells the person as it works (the handler turns these into ChatEvents). */
export type AgentEvent =
  | { kind: "token"; text: string }
  | { kind: "tool_call"; callId: string; tool: string; arguments: Record<string, unknown> }
  | { kind: "tool_result"; callId: string; tool: string; isError: boolean; text: string }
  | { kind: "final"; text: string; citations: StoredCitation[] };

export interface AgentInput {
  llm: OpenAI;
  settings: LlmSettings;
  botName: string;
  history: ChatMessageRow[];
  message: string;
  /** The MCP session with the person's delegated token; absent: the model gets no tools. */
  mcp?: McpSession;
  emit(e: AgentEvent): void;
  /** Each message the moment it is complete, to store (the person's first). */
  record(m: NewChatMessage): void;
  /** Tokens each model call used, as the provider counted them. */
  count(tokens: number): void;
  signal: AbortSignal;
}

// OpenAI function names allow [a-zA-Z0-9_-] only; MCP tool names carry dots.
const fnName = (tool: string) => tool.replace(/[^a-zA-Z0-9_-]/g, "_");

/**
 * The research agent's loop: stream a completion; when the model asks for tools, call them
 * through the MCP session (the person's delegated token) and feed the results back; stop when it
 * answers in text (or after MAX_TOOL_ROUNDS). The answer cites every tool result it was given.
 */
export async function runAgent(a: AgentInput): Promise<void> {
  const byFn = new Map((a.mcp?.tools ?? []).map((t) => [fnName(t.name), t.name]));
  const tools: ChatCompletionTool[] = (a.mcp?.tools ?? []).map((t) => ({
    type: "function",
    function: { name: fnName(t.name), description: t.description, parameters: t.inputSchema },
  }));
  const messages: ChatCompletionMessageParam[] = [
    {
      role: "system",
      content: `You are ${a.botName}, a research bot of an algorithmic trading platform. You read the platform only through your tools, acting for the person you talk with. Cite each tool result you use by its call id in brackets.`,
    },
    ...historyForModel(a.history),
    { role: "user", content: a.message },
  ];
  a.record({ role: "user", text: a.message });
  const citations: StoredCitation[] = [];
  for (let round = 0; ; round++) {
    const lastRound = round >= MAX_TOOL_ROUNDS;
    const turn = await streamCompletion(
      a.llm,
      a.settings,
      messages,
      lastRound ? [] : tools,
      (text) => a.emit({ kind: "token", text }),
      a.signal,
    );
    a.count(turn.tokens);
    if (turn.toolCalls.length === 0 || lastRound) {
      a.record({ role: "assistant", text: turn.text, citations });
      a.emit({ kind: "final", text: turn.text, citations });
      return;
    }
    const calls = turn.toolCalls.map((c) => ({ ...c, tool: byFn.get(c.name) ?? c.name }));
    messages.push({
      role: "assistant",
      content: turn.text || null,
      tool_calls: calls.map((c) => ({
        id: c.id,
        type: "function",
        function: { name: c.name, arguments: c.arguments },
      })),
    });
    a.record({
      role: "assistant",
      text: turn.text,
      tool_calls: calls.map((c) => ({ id: c.id, name: c.tool, arguments: c.arguments })),
    });
    for (const c of calls) {
      const args = parseArguments(c.arguments);
      a.emit({ kind: "tool_call", callId: c.id, tool: c.tool, arguments: args ?? {} });
      const outcome =
        args === undefined
          ? { isError: true, text: `the arguments of ${c.tool} are not a JSON object` }
          : a.mcp && byFn.has(c.name)
            ? await a.mcp.call(c.tool, args)
            : { isError: true, text: `no tool ${c.tool}` };
      a.emit({ kind: "tool_result", callId: c.id, tool: c.tool, ...outcome });
      messages.push({ role: "tool", tool_call_id: c.id, content: outcome.text });
      a.record({ role: "tool", text: outcome.text, tool: c.tool, call_id: c.id });
      citations.push({ call_id: c.id, tool: c.tool });
    }
  }
}

function parseArguments(text: string): Record<string, unknown> | undefined {
  try {
    const v = JSON.parse(text || "{}") as unknown;
    return v && typeof v === "object" && !Array.isArray(v)
      ? (v as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The stored history as the model reads it. A halt can stop an answer between a tool call and
 * its result: a call with no stored result is left out (a provider refuses an unanswered call).
 */
export function historyForModel(history: ChatMessageRow[]): ChatCompletionMessageParam[] {
  const answered = new Set(history.filter((m) => m.role === "tool").map((m) => m.call_id));
  return history.flatMap((m) => {
    if (m.role !== "assistant" || m.tool_calls.length === 0) return [toModelMessage(m)];
    const calls = m.tool_calls.filter((c) => answered.has(c.id));
    if (calls.length === 0) return m.text ? [{ role: "assistant" as const, content: m.text }] : [];
    return [toModelMessage({ ...m, tool_calls: calls })];
  });
}

function toModelMessage(m: ChatMessageRow): ChatCompletionMessageParam {
  if (m.role === "tool") return { role: "tool", tool_call_id: m.call_id, content: m.text };
  if (m.role === "assistant")
    return m.tool_calls.length > 0
      ? {
          role: "assistant",
          content: m.text || null,
          tool_calls: m.tool_calls.map((c) => ({
            id: c.id,
            type: "function",
            function: { name: fnName(c.name), arguments: c.arguments },
          })),
        }
      : { role: "assistant", content: m.text };
  return { role: "user", content: m.text };
}
