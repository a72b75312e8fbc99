import { fromJson, toJson, type DescService, type JsonObject } from "@bufbuild/protobuf";
import { ConnectError, createClient, type Transport } from "@connectrpc/connect";
import Fastify, {
  LogController,
  type FastifyBaseLogger,
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
} from "fastify";
import { Health, HealthCheckResponse_ServingStatus } from "@svc/gen/grpc/health/v1/health_pb.js";
import {
  REQUEST_ID_HEADER,
  requestIdFrom,
  injectTraceHeaders,
  tracer,
  extractTraceContext,
  type Logger,
} from "@svc/lib/telemetry";
import { context, SpanKind, trace } from "@opentelemetry/api";
import { CALL_DEADLINES_MS, callDeadlineMs } from "@svc/lib/deadline";
import { notBuiltCapability } from "@svc/lib/server";
import { buildRouteTable, type RouteBinding } from "./routes/route-table.js";
import { requestInput } from "./transcode/request-input.js";
import {
  bodyLimitFor,
  rawTextInput,
  RawTextBody,
  registerRawTextBodies,
  UnsupportedTextBody,
} from "./transcode/raw-text-body.js";
import { parseJsonBody } from "./transcode/parse-json-body.js";
import {
  EVENT_STREAM_HEADER,
  resumeInput,
  transcodeServerStream,
  wantsEventStream,
} from "./transcode/server-stream.js";
import { registerMcpEndpoint } from "./mcp/mcp-endpoint.js";
import { McpService } from "@svc/gen/svc/identity/v1/identity_pb.js";
import { protoJsonToWire } from "@svc/lib/validate";
import { WireInputError } from "./transcode/wire-json.js";
import { errorBody, httpErrorFromConnect, type HttpError } from "./errors/error-body.js";
import { buildOpenApi } from "./openapi/build-openapi.js";
import { registerDocs } from "./openapi/docs-page.js";
import { DEFAULT_CONSOLE_DIR, registerConsole } from "./console/serve-console.js";
import { registerRequestGuard, type RequestGuardOptions } from "./guard/request-guard.js";

/** A service the gateway routes to, and how to reach it (in-process or over gRPC). */
export interface GatewayBackend {
  service: DescService;
  transport: Transport;
}

export interface GatewayOptions {
  backends: GatewayBackend[];
  bodyLimitBytes: number;
  /** Largest raw text/csv body (a data set upload: SVC_DATASET_MAX_BYTES); unset, bodyLimitBytes. */
  textBodyLimitBytes?: number;
  log: Logger;
  /** Deadline of every backend call (tests); unset, each call's kind's (lib/src/deadline). */
  timeoutMs?: number;
  /** Deadline of one streamed answer (a research chat), whole (default 300 s). */
  streamTimeoutMs?: number;
  /** Folder of the built operator console, served at / (default: console/dist of this checkout). */
  consoleDir?: string;
  /**
   * Which requests the edge refuses before routing (request-guard.ts): the auth provider and
   * SVC_PUBLIC_URL. Unset: local auth's rules, the strictest.
   */
  requestGuard?: RequestGuardOptions;
}

/** Request headers a backend needs from the caller; everything else stays at the edge. */
// The cookie and the Host reach only the browser sign-in routes' logic (login CSRF binding, the
// loopback origin to return to); every other handler ignores them.
const FORWARDED = ["authorization", "x-svc-local-user", "cookie"];
const PASSED_BACK = [
  "x-service-license-status",
  "www-authenticate",
  "set-cookie",
  "cache-control",
  // The SHA-256 of a validation report's YAML, so a signed copy can be checked against it.
  "x-report-sha256",
];
const ALL_METHODS = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"] as const;

/**
 * The REST edge: a generic REST <-> Connect transcoder built at start from the proto annotations
 * of the backends' services, with one error body, request ids, body limits, 404/405, health and
 * an OpenAPI 3.1 document generated from the same descriptors.
 */
export async function createGateway(opts: GatewayOptions): Promise<FastifyInstance> {
  const transports = new Map(opts.backends.map((b) => [b.service.typeName, b.transport]));
  const bindings = buildRouteTable(opts.backends.map((b) => b.service));
  const app = Fastify({
    loggerInstance: opts.log as unknown as FastifyBaseLogger,
    // One log line per request comes from our onResponse hook; fastify's two would double it.
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: opts.bodyLimitBytes,
    // Not requestIdHeader: fastify would then take the caller's header verbatim and ask genReqId
    // only when it is absent; every id must pass requestIdFrom, and the one it gives is then
    // echoed, logged and sent on to the service, which keeps it.
    requestIdHeader: false,
    genReqId: (req) => requestIdFrom(req.headers[REQUEST_ID_HEADER]),
    // Path values reach the proto's own length rules (a Kubernetes name may be 253 characters),
    // rather than fastify's default cap of 100 with a bare 414.
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 1024 },
  });

  app.removeContentTypeParser("application/json");
  app.addContentTypeParser("application/json", { parseAs: "string" }, (_req, body, done) => {
    const text = body as string;
    if (text.trim() === "") return done(null, undefined);
    try {
      done(null, parseJsonBody(text));
    } catch (err) {
      done(err as Error, undefined);
    }
  });

  registerRawTextBodies(app, opts.textBodyLimitBytes ?? opts.bodyLimitBytes);
  registerRequestGuard(app, opts.requestGuard ?? { provider: "local" });

  // Once a shutdown has begun, an answer closes its connection: the close then waits for the
  // requests in flight, not for their clients' idle keep-alive connections (closeGateway).
  let closing = false;
  app.addHook("preClose", async () => {
    closing = true;
  });
  app.addHook("onSend", async (req, reply) => {
    reply.header(REQUEST_ID_HEADER, req.id);
    if (closing) reply.header("connection", "close");
  });
  app.addHook("onResponse", async (req, reply) => {
    opts.log.info(
      {
        request_id: req.id,
        method: req.method,
        url: req.url,
        status: reply.statusCode,
        ms: Math.round(reply.elapsedTime * 100) / 100,
      },
      "http",
    );
  });

  app.setErrorHandler(
    (err: Error & { statusCode?: number; code?: string; field?: string }, req, reply) => {
      if (err instanceof WireInputError)
        return sendError(reply, {
          status: 400,
          body: errorBody("invalid_argument", err.message, { field: err.field, ...err.extra }),
          headers: {},
        });
      if (err instanceof ConnectError) return sendError(reply, httpErrorFromConnect(err));
      const status =
        err.statusCode && err.statusCode >= 400 && err.statusCode < 500 ? err.statusCode : 500;
      if (status === 500) opts.log.error({ err, request_id: req.id }, "gateway error");
      const code =
        status === 413
          ? "payload_too_large"
          : status === 415
            ? "unsupported_media_type"
            : status === 500
              ? "internal"
              : "invalid_request";
      const limit = bodyLimitFor(
        req.headers["content-type"],
        opts.bodyLimitBytes,
        opts.textBodyLimitBytes ?? opts.bodyLimitBytes,
      );
      const message =
        status === 413
          ? `request body is larger than the limit of ${limit} bytes`
          : status === 500
            ? "internal error; the request id in the x-request-id header finds it in the logs"
            : err.message;
      return sendError(reply, {
        status,
        body: errorBody(code, message, status === 413 ? { limit_bytes: limit } : {}),
        headers: {},
      });
    },
  );

  app.setNotFoundHandler((req, reply) =>
    sendError(reply, {
      status: 404,
      body: errorBody(
        "route_not_found",
        `no route ${req.method} ${req.url.split("?")[0]}; the API is described at /openapi.json`,
      ),
      headers: {},
    }),
  );

  const byPath = new Map<string, RouteBinding[]>();
  for (const b of bindings)
    byPath.set(b.path.routerPath, [...(byPath.get(b.path.routerPath) ?? []), b]);
  for (const [routerPath, group] of byPath) {
    const allow = [...new Set(group.map((b) => b.httpMethod))].join(", ");
    app.route({
      method: [...ALL_METHODS],
      url: routerPath,
      handler: async (req, reply) => {
        const wanted = req.method === "HEAD" ? "GET" : req.method;
        const binding = group.find((b) => b.httpMethod === wanted);
        if (!binding) {
          reply.header("allow", allow);
          return sendError(reply, {
            status: 405,
            body: errorBody(
              "method_not_allowed",
              `${req.method} is not allowed on ${group[0]!.path.template}; allowed: ${allow}`,
              { allowed: allow.split(", ") },
            ),
            headers: {},
          });
        }
        return transcode(
          binding,
          transports.get(binding.service.typeName)!,
          req,
          reply,
          binding.method.methodKind === "server_streaming"
            ? (opts.streamTimeoutMs ?? 300_000)
            : (opts.timeoutMs ?? callDeadlineMs(binding.method)),
        );
      },
    });
  }

  const mcpTransport = transports.get(McpService.typeName);
  if (mcpTransport)
    registerMcpEndpoint(app, {
      transport: mcpTransport,
      // A tool call may be any kind of call: it gets a write's deadline.
      timeoutMs: opts.timeoutMs ?? CALL_DEADLINES_MS.write,
      log: opts.log,
    });

  // Built when first asked for (most starts never are): it walks every route's messages.
  let openapi: Record<string, unknown> | undefined;
  const openapiDocument = () =>
    (openapi ??= buildOpenApi(bindings, { notBuilt: notBuiltCapability }));
  app.get("/openapi.json", async () => openapiDocument());
  registerDocs(app, openapiDocument);
  await registerConsole(app, { dir: opts.consoleDir ?? DEFAULT_CONSOLE_DIR, log: opts.log });
  app.get("/healthz", async () => ({ status: "ok" }));
  app.get("/readyz", async (_req, reply) => {
    const results = await Promise.all(
      [...new Set(transports.values())].map((t) => backendServing(t)),
    );
    const ready = results.every(Boolean);
    return reply.code(ready ? 200 : 503).send({
      status: ready ? "ready" : "not_ready",
      backends: results.length,
      serving: results.filter(Boolean).length,
    });
  });
  return app;
}

async function transcode(
  binding: RouteBinding,
  transport: Transport,
  req: FastifyRequest,
  reply: FastifyReply,
  timeoutMs: number,
) {
  const parent = extractTraceContext(new Headers(req.headers as Record<string, string>));
  const span = tracer().startSpan(
    `${req.method} ${binding.path.template}`,
    { kind: SpanKind.SERVER, attributes: { "http.route": binding.path.template } },
    parent,
  );
  return context.with(trace.setSpan(parent, span), async () => {
    try {
      const [params, query] = [
        req.params as Record<string, string>,
        req.query as Record<string, string | string[]>,
      ];
      const input =
        req.body instanceof RawTextBody
          ? rawTextInput(binding, params, query, req.body)
          : requestInput(binding, params, query, req.body);
      let message;
      try {
        message = fromJson(binding.method.input, resumeInput(binding, req, input));
      } catch (err) {
        throw new WireInputError(`invalid request: ${(err as Error).message}`, "body");
      }
      const headers = new Headers();
      for (const name of FORWARDED) {
        const v = req.headers[name];
        if (typeof v === "string") headers.set(name, v);
      }
      if (req.headers.host) headers.set("x-forwarded-host", req.headers.host);
      headers.set(REQUEST_ID_HEADER, req.id);
      injectTraceHeaders(headers);
      if (binding.method.methodKind === "server_streaming") {
        // A stream that never ends by itself (the event stream) tells from this whether its
        // caller reads events as they come or waits for one JSON answer.
        if (wantsEventStream(req)) headers.set(EVENT_STREAM_HEADER, "1");
        span.setAttribute("http.response.status_code", binding.rule.successStatus || 200);
        return await transcodeServerStream(
          binding,
          transport,
          req,
          reply,
          headers,
          message,
          timeoutMs,
        );
      }
      const res = await transport.unary(binding.method, undefined, timeoutMs, headers, message);
      for (const name of PASSED_BACK) {
        const v = res.header.get(name);
        if (v) reply.header(name, v);
      }
      span.setAttribute("http.response.status_code", binding.rule.successStatus || 200);
      return sendSuccess(binding, res.message as never, reply);
    } catch (err) {
      if (err instanceof WireInputError || err instanceof UnsupportedTextBody) throw err;
      const ce = ConnectError.from(err);
      span.setAttribute("http.response.status_code", httpErrorFromConnect(ce).status);
      return sendError(reply, relativeToBody(binding, httpErrorFromConnect(ce)));
    } finally {
      span.end();
    }
  });
}

function sendSuccess(binding: RouteBinding, message: Record<string, unknown>, reply: FastifyReply) {
  const { rule } = binding;
  if (rule.redirectField) {
    return reply
      .code(302)
      .header("location", String(message[camel(rule.redirectField)] ?? ""))
      .send();
  }
  if (rule.responseBody) {
    return reply
      .code(rule.successStatus || 200)
      .header("content-type", rule.responseContentType || "text/plain; charset=utf-8")
      .send(String(message[camel(rule.responseBody)] ?? ""));
  }
  const json = toJson(binding.method.output, message as never, {
    useProtoFieldName: true,
    alwaysEmitImplicit: true,
  });
  return reply.code(rule.successStatus || 200).send(protoJsonToWire(binding.method.output, json));
}

function sendError(reply: FastifyReply, err: HttpError) {
  for (const [k, v] of Object.entries(err.headers)) reply.header(k, v);
  return reply.code(err.status).type("application/json").send(err.body);
}

/** A body bound to one field (POST /bots takes the BotSpec itself): name fields from the body's root. */
function relativeToBody(binding: RouteBinding, err: HttpError): HttpError {
  const prefix = binding.rule.body && binding.rule.body !== "*" ? `${binding.rule.body}.` : "";
  const field = err.body.error.details.field;
  if (!prefix || typeof field !== "string" || !field.startsWith(prefix)) return err;
  const details: JsonObject = { ...err.body.error.details, field: field.slice(prefix.length) };
  const message = err.body.error.message.split(field).join(field.slice(prefix.length));
  return { ...err, body: errorBody(err.body.error.code, message, details) };
}

function camel(name: string): string {
  return name.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());
}

async function backendServing(transport: Transport): Promise<boolean> {
  try {
    const res = await createClient(Health, transport).check({ service: "" }, { timeoutMs: 2_000 });
    return res.status === HealthCheckResponse_ServingStatus.SERVING;
  } catch {
    return false;
  }
}
