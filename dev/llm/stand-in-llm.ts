import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/**
 * A stand-in for an OpenAI-compatible model: `POST /v1/chat/completions`, streaming (`data:`
 * chunks with delta.content and delta.tool_calls, usage, `[DONE]`) or not, with tool calling.
 * It answers deterministically from the last user message, so tests and the demo never depend
 * on the network or on a model's mood:
 * - no tool result yet and the message asks to launch or run a backtest of `<slug>`: it calls
 *   the backtests.launch tool with that bot_ref;
 * - no tool result yet and the message mentions bots: it calls bots.list;
 * - a tool result is present: it answers from it, citing the tool and the call id;
 * - the message says "slowly": a long answer, one word every 100 ms (to halt mid-stream);
 * - the message says "hang": it accepts the request and never answers (to test deadlines);
 * - anything else: it says what it heard.
 */
export interface StandInLlm {
  /** The base URL to configure as SVC_LLM_BASE_URL (ends in /v1). */
  baseUrl: string;
  /** The request bodies received, in order (tests read the tools and history sent). */
  requests: ChatRequest[];
  /** How many requests the caller went away from before their answer ended (cancelled). */
  cancelled(): number;
  close(): Promise<void>;
}

interface ChatMessage {
  role: string;
  content?: string | null;
  tool_call_id?: string;
  tool_calls?: Array<{ id: string; function: { name: string; arguments: string } }>;
}

export interface ChatRequest {
  model: string;
  messages: ChatMessage[];
  stream?: boolean;
  stream_options?: { include_usage?: boolean };
  tools?: Array<{ function: { name: string; description?: string } }>;
}

type Plan =
  | { kind: "tool"; name: string; args: Record<string, unknown> }
  | { kind: "text"; text: string; delayMs: number }
  | { kind: "hang" };

/** Starts the stand-in on a loopback port (0: any free one). */
export async function startStandInLlm(port = 0, host = "127.0.0.1"): Promise<StandInLlm> {
  const requests: ChatRequest[] = [];
  const hanging = new Set<ServerResponse>();
  let cancelled = 0;
  let closing = false;
  const server = createServer((req, res) => {
    void handle(req, res).catch((err: unknown) => {
      if (!res.headersSent) res.writeHead(500, { "content-type": "application/json" });
      res.end(JSON.stringify({ error: { message: String(err), type: "server_error" } }));
    });
  });

  async function handle(req: IncomingMessage, res: ServerResponse) {
    if (req.method !== "POST" || !req.url?.endsWith("/chat/completions")) {
      res.writeHead(404, { "content-type": "application/json" });
      res.end(JSON.stringify({ error: { message: "only POST /v1/chat/completions" } }));
      return;
    }
    let raw = "";
    for await (const chunk of req) raw += String(chunk);
    const body = JSON.parse(raw) as ChatRequest;
    requests.push(body);
    res.on("close", () => {
      if (!res.writableFinished && !closing) cancelled++;
    });
    const plan = planFor(body);
    if (plan.kind === "hang") {
      hanging.add(res);
      res.on("close", () => hanging.delete(res));
      return;
    }
    const usage = {
      prompt_tokens: Math.ceil(raw.length / 4),
      completion_tokens: plan.kind === "text" ? Math.ceil(plan.text.length / 4) : 8,
      total_tokens: 0,
    };
    usage.total_tokens = usage.prompt_tokens + usage.completion_tokens;
    const id = `chatcmpl-${requests.length}`;
    const base = { id, object: "chat.completion.chunk", created: 0, model: body.model };
    const callId = `call_${requests.length}`;
    if (!body.stream) {
      res.writeHead(200, { "content-type": "application/json" });
      const message =
        plan.kind === "tool"
          ? {
              role: "assistant",
              content: null,
              tool_calls: [
                {
                  id: callId,
                  type: "function",
                  function: { name: plan.name, arguments: JSON.stringify(plan.args) },
                },
              ],
            }
          : { role: "assistant", content: plan.text };
      res.end(
        JSON.stringify({
          id,
          object: "chat.completion",
          created: 0,
          model: body.model,
          choices: [
            {
              index: 0,
              message,
              finish_reason: plan.kind === "tool" ? "tool_calls" : "stop",
            },
          ],
          usage,
        }),
      );
      return;
    }
    res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
    const send = (choices: unknown[], extra: Record<string, unknown> = {}) =>
      res.write(`data: ${JSON.stringify({ ...base, choices, ...extra })}\n\n`);
    if (plan.kind === "tool") {
      const args = JSON.stringify(plan.args);
      const half = Math.ceil(args.length / 2);
      send([
        {
          index: 0,
          delta: {
            role: "assistant",
            tool_calls: [
              {
                index: 0,
                id: callId,
                type: "function",
                function: { name: plan.name, arguments: args.slice(0, half) },
              },
            ],
          },
          finish_reason: null,
        },
      ]);
      send([
        {
          index: 0,
          delta: { tool_calls: [{ index: 0, function: { arguments: args.slice(half) } }] },
          finish_reason: null,
        },
      ]);
      send([{ index: 0, delta: {}, finish_reason: "tool_calls" }]);
    } else {
      const words = plan.text.split(/(?<= )/);
      for (const [i, w] of words.entries()) {
        if (res.destroyed) return;
        send([
          {
            index: 0,
            delta: i === 0 ? { role: "assistant", content: w } : { content: w },
            finish_reason: null,
          },
        ]);
        if (plan.delayMs) await new Promise((r) => setTimeout(r, plan.delayMs));
      }
      send([{ index: 0, delta: {}, finish_reason: "stop" }]);
    }
    if (body.stream_options?.include_usage) send([], { usage });
    res.end("data: [DONE]\n\n");
  }

  await new Promise<void>((resolve) => server.listen(port, host, resolve));
  const { port: bound } = server.address() as AddressInfo;
  return {
    baseUrl: `http://${host}:${bound}/v1`,
    requests,
    cancelled: () => cancelled,
    async close() {
      closing = true;
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** What the stand-in does with a request: see the rules on StandInLlm. */
export function planFor(body: ChatRequest): Plan {
  const lastUser = body.messages.map((m) => m.role).lastIndexOf("user");
  const said = String(body.messages[lastUser]?.content ?? "");
  const results = body.messages.slice(lastUser + 1).filter((m) => m.role === "tool");
  if (/\bhang\b/i.test(said)) return { kind: "hang" };
  if (results.length > 0) return { kind: "text", text: answerFrom(body, results), delayMs: 0 };
  const tools = (body.tools ?? []).map((t) => t.function.name);
  const tool = (pattern: RegExp) => tools.find((n) => pattern.test(n));
  const launch = /\b(?:launch|run)\b.*\bbacktest\b.*?\bof\s+([a-z0-9][a-z0-9-]*)/i.exec(said);
  const launcher = tool(/^backtests[._]launch$/);
  if (launch && launcher)
    return { kind: "tool", name: launcher, args: { bot_ref: launch[1]!.toLowerCase() } };
  const lister = tool(/^bots[._]list$/);
  if (/\bbots?\b/i.test(said) && lister) return { kind: "tool", name: lister, args: {} };
  if (/\bslowly\b/i.test(said))
    return {
      kind: "text",
      text: Array.from({ length: 300 }, (_, i) => `word${i} `).join(""),
      delayMs: 100,
    };
  return { kind: "text", text: `You said: ${said.slice(0, 200)}`, delayMs: 0 };
}

function answerFrom(body: ChatRequest, results: ChatMessage[]): string {
  const calls = new Map(
    body.messages.flatMap((m) => m.tool_calls ?? []).map((c) => [c.id, c.function.name]),
  );
  return results
    .map((r) => {
      const tool = calls.get(r.tool_call_id ?? "") ?? "a tool";
      return `According to ${tool} [${r.tool_call_id}]: ${summarise(String(r.content ?? ""))}`;
    })
    .join(" ");
}

function summarise(content: string): string {
  try {
    const v = JSON.parse(content) as { items?: Array<{ slug?: string }> } & Record<string, unknown>;
    if (Array.isArray(v.items))
      return `${v.items.length} bot(s): ${v.items.map((b) => b.slug).join(", ")}.`;
  } catch {
    // Not JSON: quoted as it is.
  }
  return content.length > 300 ? `${content.slice(0, 300)}...` : content;
}
