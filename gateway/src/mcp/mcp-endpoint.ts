import { toJson, type JsonObject } from "@bufbuild/protobuf";
import { ConnectError, createClient, type Transport } from "@connectrpc/connect";
import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { InvokeMcpToolResponseSchema, McpService } from "@svc/gen/svc/identity/v1/identity_pb.js";
import { lazily } from "@svc/lib/lazy";
import { REQUEST_ID_HEADER, type Logger } from "@svc/lib/telemetry";
import { errorBody, httpErrorFromConnect, type HttpError } from "../errors/error-body.js";

/** Where standard MCP clients connect (streamable HTTP, stateless). */
export const MCP_PATH = "/mcp";

// The SDK (with zod, which it builds its schemas with as it loads) took about 140 ms of every
// start's main thread; it loads at the first MCP request instead.
const loadSdk = lazily(() =>
  Promise.all([
    import("@modelcontextprotocol/sdk/server/index.js"),
    import("@modelcontextprotocol/sdk/server/streamableHttp.js"),
    import("@modelcontextprotocol/sdk/types.js"),
  ]),
);

/**
 * The platform's MCP endpoint: the SDK's streamable HTTP server transport, stateless (a server
 * per request), bridging tools/list and tools/call to identity's McpService over Connect with
 * the caller's own bearer token, so the proto's policies and the audit rows apply unchanged.
 *
 * A token that is missing, invalid or lacks read:mcp:data is refused with the HTTP status (401,
 * 403) before any JSON-RPC is read, as OAuth-protected MCP servers do, so a standard client
 * sees it. A tool that refuses or fails (a missing write:mcp:data, an agent-only tool called with
 * a person's own token, a bad argument) is a tool result with isError and the error body as text,
 * which is what a model reads and can act on.
 */
export function registerMcpEndpoint(
  app: FastifyInstance,
  opts: { transport: Transport; timeoutMs: number; log: Logger },
): void {
  const client = createClient(McpService, opts.transport);

  app.post(MCP_PATH, async (req, reply) => {
    const headers = new Headers();
    const authorization = req.headers.authorization;
    if (typeof authorization === "string") headers.set("authorization", authorization);
    const localUser = req.headers["x-svc-local-user"];
    if (typeof localUser === "string") headers.set("x-svc-local-user", localUser);
    headers.set(REQUEST_ID_HEADER, req.id);
    try {
      // The route's own policy (token, read:mcp:data, agents allowed) before any JSON-RPC.
      await client.listMcpTools({}, { headers, timeoutMs: opts.timeoutMs });
    } catch (err) {
      return send(reply, httpErrorFromConnect(ConnectError.from(err)));
    }
    const [{ Server }, { StreamableHTTPServerTransport }, types] = await loadSdk();
    const server = mcpServer(
      new Server({ name: "svc-platform-data", version: "1.0.0" }, { capabilities: { tools: {} } }),
      types,
      client,
      headers,
      opts.timeoutMs,
    );
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
    });
    reply.hijack();
    reply.raw.on("close", () => {
      void transport.close();
      void server.close();
    });
    reply.raw.setHeader(REQUEST_ID_HEADER, req.id);
    try {
      await server.connect(transport);
      await transport.handleRequest(req.raw, reply.raw, req.body);
    } catch (err) {
      opts.log.error({ err, request_id: req.id }, "mcp endpoint failed");
      if (!reply.raw.headersSent) {
        reply.raw.writeHead(500, { "content-type": "application/json" });
        reply.raw.end(JSON.stringify(errorBody("internal", "the MCP request failed")));
      }
    }
  });

  // Stateless: no session to resume over GET, none to end with DELETE.
  const notAllowed = (req: FastifyRequest, reply: FastifyReply) =>
    send(reply.header("allow", "POST"), {
      status: 405,
      body: errorBody(
        "method_not_allowed",
        `${req.method} is not allowed on ${MCP_PATH}: the endpoint is stateless; POST JSON-RPC`,
        { allowed: ["POST"] },
      ),
      headers: {},
    });
  app.get(MCP_PATH, notAllowed);
  app.delete(MCP_PATH, notAllowed);
}

function mcpServer(
  server: Server,
  {
    CallToolRequestSchema,
    ListToolsRequestSchema,
  }: typeof import("@modelcontextprotocol/sdk/types.js"),
  client: ReturnType<typeof createClient<typeof McpService>>,
  headers: Headers,
  timeoutMs: number,
): Server {
  server.setRequestHandler(ListToolsRequestSchema, async () => {
    const { tools } = await client.listMcpTools({}, { headers, timeoutMs });
    return {
      tools: tools.map((t) => ({
        name: t.name,
        description: t.description,
        inputSchema: (t.inputSchema ?? { type: "object" }) as { type: "object" },
        annotations: { readOnlyHint: !t.scopes.includes("write:mcp:data") },
      })),
    };
  });
  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    try {
      const res = await client.invokeMcpTool(
        {
          toolName: request.params.name,
          arguments: (request.params.arguments ?? {}) as JsonObject,
        },
        { headers, timeoutMs },
      );
      const out = toJson(InvokeMcpToolResponseSchema, res, {
        useProtoFieldName: true,
      }) as JsonObject;
      return {
        content: [{ type: "text" as const, text: JSON.stringify(out.result ?? {}) }],
        structuredContent: out,
      };
    } catch (err) {
      const { status, body } = httpErrorFromConnect(ConnectError.from(err));
      return {
        isError: true,
        content: [{ type: "text" as const, text: JSON.stringify({ status, ...body }) }],
      };
    }
  });
  return server;
}

function send(reply: FastifyReply, err: HttpError) {
  for (const [k, v] of Object.entries(err.headers)) reply.header(k, v);
  return reply.code(err.status).type("application/json").send(err.body);
}
