/** One tool the model may call, as the MCP endpoint lists it. */
export interface ListedTool {
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
}

/** What a tool call answered, as the model reads it. */
export interface ToolOutcome {
  isError: boolean;
  text: string;
}

/** A session with the platform's MCP endpoint as the person's delegated agent. */
export interface McpSession {
  tools: ListedTool[];
  call(name: string, args: Record<string, unknown>): Promise<ToolOutcome>;
  close(): Promise<void>;
}

const MAX_RESULT_CHARS = 16_000;

/**
 * Connects a standard MCP client (streamable HTTP) to the platform's endpoint with the given
 * headers (the delegated bearer token), lists the tools and calls them, each within
 * `timeoutMs`. The endpoint applies the tools' scopes and writes the audit rows.
 *
 * @example const s = await openMcpSession(url, { authorization: `Bearer ${t}` }, 10_000);
 */
export async function openMcpSession(
  url: string,
  headers: Record<string, string>,
  timeoutMs: number,
  signal?: AbortSignal,
): Promise<McpSession> {
  // Loaded at the first chat, not at every start: the SDK and zod cost a start about 140 ms.
  const [{ Client }, { StreamableHTTPClientTransport }] = await Promise.all([
    import("@modelcontextprotocol/sdk/client/index.js"),
    import("@modelcontextprotocol/sdk/client/streamableHttp.js"),
  ]);
  const client = new Client({ name: "svc-research-chat", version: "1.0.0" });
  const transport = new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } });
  await whileAsked(signal, (s) => client.connect(transport, { timeout: timeoutMs, signal: s }));
  try {
    const { tools } = await whileAsked(signal, (s) =>
      client.listTools({}, { timeout: timeoutMs, signal: s }),
    );
    return {
      tools: tools.map((t) => ({
        name: t.name,
        description: t.description ?? "",
        inputSchema: t.inputSchema as Record<string, unknown>,
      })),
      async call(name, args) {
        const r = await whileAsked(signal, (s) =>
          client.callTool({ name, arguments: args }, undefined, { timeout: timeoutMs, signal: s }),
        );
        const text = (r.content as Array<{ type: string; text?: string }>)
          .map((c) => (c.type === "text" ? (c.text ?? "") : `[${c.type}]`))
          .join("\n");
        return {
          isError: r.isError === true,
          text: text.length > MAX_RESULT_CHARS ? `${text.slice(0, MAX_RESULT_CHARS)}...` : text,
        };
      },
      close: () => client.close(),
    };
  } catch (err) {
    await client.close();
    throw err;
  }
}

/**
 * Runs one request under a signal of its own that follows `signal` only while the request is
 * out. The SDK never stops listening to a request's signal: given the session's, an abort after
 * the answer sent a notifications/cancelled for every request the session had ever made.
 */
async function whileAsked<T>(
  signal: AbortSignal | undefined,
  request: (signal: AbortSignal | undefined) => Promise<T>,
): Promise<T> {
  if (!signal) return request(undefined);
  const own = new AbortController();
  const follow = () => own.abort(signal.reason);
  if (signal.aborted) follow();
  else signal.addEventListener("abort", follow, { once: true });
  try {
    return await request(own.signal);
  } finally {
    signal.removeEventListener("abort", follow);
  }
}
