import OpenAI from "openai";
import type {
  ChatCompletionMessageParam,
  ChatCompletionTool,
} from "openai/resources/chat/completions";

/** The model provider: any OpenAI-compatible chat-completions endpoint (SVC_LLM_*). */
export interface LlmSettings {
  baseUrl: string;
  model: string;
  apiKey?: string;
  timeoutMs: number;
}

/** A tool call the model asked for, whole. */
export interface ModelToolCall {
  id: string;
  name: string;
  arguments: string;
}

/** What one streamed completion gave. */
export interface ModelTurn {
  text: string;
  toolCalls: ModelToolCall[];
  tokens: number;
}

/** Why a model call failed: it hung past its deadline, or answered with an error. */
export class LlmError extends Error {
  constructor(
    readonly code: "llm_timeout" | "llm_failed",
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

export type { ChatCompletionMessageParam, ChatCompletionTool };

/**
 * Streams one completion through the `openai` client, handing each piece of text to `onText`
 * as it comes and gathering the tool calls (their arguments arrive in pieces, by index). The
 * whole call, stream included, has `timeoutMs`; `signal` ends it sooner (a halt, a caller gone).
 *
 * @example const turn = await streamCompletion(llm, settings, messages, tools, (t) => send(t), signal);
 */
export async function streamCompletion(
  client: OpenAI,
  settings: LlmSettings,
  messages: ChatCompletionMessageParam[],
  tools: ChatCompletionTool[],
  onText: (text: string) => void,
  signal: AbortSignal,
): Promise<ModelTurn> {
  const deadline = AbortSignal.timeout(settings.timeoutMs);
  const both = AbortSignal.any([signal, deadline]);
  const turn: ModelTurn = { text: "", toolCalls: [], tokens: 0 };
  const calls: Array<{ id: string; name: string; arguments: string }> = [];
  try {
    const stream = await client.chat.completions.create(
      {
        model: settings.model,
        messages,
        ...(tools.length > 0 ? { tools } : {}),
        stream: true,
        stream_options: { include_usage: true },
      },
      { signal: both, maxRetries: 0, timeout: settings.timeoutMs },
    );
    for await (const chunk of stream) {
      if (chunk.usage) turn.tokens += chunk.usage.total_tokens;
      const delta = chunk.choices[0]?.delta;
      if (!delta) continue;
      if (delta.content) {
        turn.text += delta.content;
        onText(delta.content);
      }
      for (const tc of delta.tool_calls ?? []) {
        const c = (calls[tc.index] ??= { id: "", name: "", arguments: "" });
        if (tc.id) c.id = tc.id;
        if (tc.function?.name) c.name += tc.function.name;
        if (tc.function?.arguments) c.arguments += tc.function.arguments;
      }
    }
  } catch (err) {
    if (signal.aborted) throw signal.reason ?? err;
    if (deadline.aborted || err instanceof OpenAI.APIConnectionTimeoutError)
      throw new LlmError(
        "llm_timeout",
        `the model at SVC_LLM_BASE_URL did not finish within SVC_LLM_TIMEOUT_MS (${settings.timeoutMs} ms)`,
        { cause: err },
      );
    const status = err instanceof OpenAI.APIError ? ` (${err.status ?? "no status"})` : "";
    throw new LlmError(
      "llm_failed",
      `the model at SVC_LLM_BASE_URL failed${status}: ${(err as Error).message}`,
      { cause: err },
    );
  }
  turn.toolCalls = calls.filter((c) => c.name);
  return turn;
}

/** The client of the configured provider; no retries (every call has its own deadline). */
export function createLlmClient(settings: LlmSettings): OpenAI {
  return new OpenAI({
    baseURL: settings.baseUrl,
    // A local server may need no key; the client insists on one.
    apiKey: settings.apiKey ?? "not-needed",
    maxRetries: 0,
    timeout: settings.timeoutMs,
  });
}
