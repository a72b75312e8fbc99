import { Readable } from "node:stream";
import {
  toJson,
  type DescMessage,
  type DescMethodServerStreaming,
  type JsonObject,
  type JsonValue,
  type Message,
} from "@bufbuild/protobuf";
import { ConnectError, type Transport } from "@connectrpc/connect";
import type { FastifyReply, FastifyRequest } from "fastify";
import type { RouteBinding } from "../routes/route-table.js";
import { httpErrorFromConnect } from "../errors/error-body.js";
import { protoJsonToWire } from "@svc/lib/validate";

/** The media type that asks a streaming route for server-sent events. */
export const EVENT_STREAM = "text/event-stream";

/** Set (to "1") on a streaming call whose HTTP caller reads server-sent events. */
export const EVENT_STREAM_HEADER = "x-svc-event-stream";

/** Whether the caller asked for server-sent events (Accept: text/event-stream). */
export function wantsEventStream(req: FastifyRequest): boolean {
  const accept = req.headers.accept;
  return typeof accept === "string" && accept.toLowerCase().includes(EVENT_STREAM);
}

const wire = (schema: DescMessage, message: Message): JsonValue =>
  protoJsonToWire(
    schema,
    toJson(schema, message as never, { useProtoFieldName: true, alwaysEmitImplicit: true }),
  );

/**
 * One server-sent event for one streamed message. A message made of one oneof (ChatEvent) is
 * named by the case that is set and carries that case's value, so a client listens for
 * `token` or `final`; any other message is a `message` event carrying the whole message.
 */
export function sseFrame(schema: DescMessage, message: Message): string {
  const oneof = schema.oneofs.length === 1 ? schema.oneofs[0]! : undefined;
  if (oneof && oneof.fields.length === schema.fields.length) {
    const group = (message as unknown as Record<string, { case?: string; value?: unknown }>)[
      oneof.localName
    ];
    const field = oneof.fields.find((f) => f.localName === group?.case);
    if (field?.message) return frame(field.name, wire(field.message, group!.value as Message));
  }
  return frame("message", wire(schema, message));
}

/**
 * A streamed message that carries a `stream_id` names its event's SSE id, so a client that
 * reconnects sends it back as Last-Event-ID and the stream resumes after it.
 */
const frame = (event: string, data: JsonValue) => {
  const id =
    data && typeof data === "object" && !Array.isArray(data) && typeof data.stream_id === "string"
      ? `id: ${data.stream_id}\n`
      : "";
  return `${id}event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
};

/**
 * The Last-Event-ID header of a reconnecting EventSource, as the `last_event_id` field of a
 * streaming RPC that has one (a query parameter of the same name wins).
 */
export function resumeInput(
  binding: RouteBinding,
  req: FastifyRequest,
  input: JsonObject,
): JsonObject {
  const header = req.headers["last-event-id"];
  if (
    binding.method.methodKind !== "server_streaming" ||
    typeof header !== "string" ||
    input.last_event_id !== undefined ||
    !binding.method.input.fields.some((f) => f.name === "last_event_id")
  )
    return input;
  return { ...input, last_event_id: header };
}

/**
 * Transcodes a server-streaming RPC. The first message is awaited before anything is sent, so a
 * refusal (409, 412, 429...) is a plain HTTP error. Then, with Accept: text/event-stream, each
 * message is an event as it comes and a later failure is an `error` event with the one error
 * body; otherwise the messages are gathered into `{"events": [...]}`, or the error answered.
 * A caller that goes away cancels the backend call.
 */
export async function transcodeServerStream(
  binding: RouteBinding,
  transport: Transport,
  req: FastifyRequest,
  reply: FastifyReply,
  headers: Headers,
  input: Message,
  timeoutMs: number,
): Promise<unknown> {
  const abort = new AbortController();
  reply.raw.on("close", () => {
    if (!reply.raw.writableFinished) abort.abort();
  });
  const schema = binding.method.output;
  const res = await transport.stream(
    binding.method as DescMethodServerStreaming,
    abort.signal,
    timeoutMs,
    headers,
    (async function* () {
      yield input as never;
    })(),
  );
  const messages = res.message[Symbol.asyncIterator]();
  const first = await messages.next();
  if (!wantsEventStream(req)) {
    const events: JsonValue[] = [];
    for (let m = first; !m.done; m = await messages.next()) events.push(wire(schema, m.value));
    return reply.code(binding.rule.successStatus || 200).send({ events });
  }
  async function* frames() {
    try {
      for (let m = first; !m.done; m = await messages.next()) yield sseFrame(schema, m.value);
    } catch (err) {
      if (abort.signal.aborted) return;
      yield frame("error", httpErrorFromConnect(ConnectError.from(err)).body as never);
    }
  }
  return reply
    .code(binding.rule.successStatus || 200)
    .header("content-type", `${EVENT_STREAM}; charset=utf-8`)
    .header("cache-control", "no-cache")
    .header("x-accel-buffering", "no")
    .send(Readable.from(frames()));
}
