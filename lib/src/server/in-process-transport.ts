import {
  clone,
  create,
  type DescMessage,
  type DescMethod,
  type DescMethodStreaming,
  type DescMethodUnary,
  type DescService,
  type MessageInitShape,
  type MessageShape,
} from "@bufbuild/protobuf";
import {
  Code,
  ConnectError,
  createContextKey,
  createContextValues,
  createMethodImplSpec,
  createRouterTransport,
  createServiceImplSpec,
  type ConnectRouter,
  type HandlerContext,
  type Interceptor,
  type MethodImplSpec,
  type Transport,
  type UnaryRequest,
  type UnaryResponse,
} from "@connectrpc/connect";

/** How the transport treats the messages it hands across. */
export interface InProcessTransportOptions {
  /** The server interceptor chain, outermost first, as a Connect router would run it. */
  interceptors: Interceptor[];
  /**
   * `"clone"` (the default) gives the handler a copy of the input and the caller a copy of the
   * output, as the wire would. `"share"` passes the objects themselves: only for a caller that
   * builds each input afresh, never touches it after the call, and only reads the output (the
   * gateway), since no handler keeps or changes a message it returned.
   */
  messages?: "clone" | "share";
}

type AnyFn = (req: UnaryRequest) => Promise<UnaryResponse>;
/** What Transport.unary takes as headers (the DOM's HeadersInit, not in this package's types). */
type HeaderInit = ConstructorParameters<typeof Headers>[0];

/** The call's handler context, handed from the transport to the innermost function of the chain. */
const callContextKey = createContextKey<HandlerContext | undefined>(undefined, {
  description: "in-process handler context",
});

const PROTOCOL = "in-process";
const BASE_URL = "https://in-process";

/**
 * A Transport to services mounted in this process that runs a unary call through the same server
 * interceptors (auth policy, license, validation, request id, trace, logging) and the same
 * handler as a Connect server would, without encoding or decoding the messages: one deadline
 * timer, and no abort (so no DOMException) when the call ends well. What a caller sees matches
 * the wire: response headers and trailers, ConnectError code, message, details and metadata
 * (the handler's response headers included), no `cause`, and a non-ConnectError as `internal`.
 * The one effect of encoding it skips is rounding a `float` field to 32 bits (no field of the
 * contract is a float). Streaming calls go through Connect's own in-memory router transport.
 *
 * @example
 * const transport = createInProcessTransport(bots.routes, { interceptors: platform.interceptors });
 * await createClient(BotsService, transport).getBot({ botRef: "alpha" });
 */
export function createInProcessTransport(
  routes: (router: ConnectRouter) => void,
  opts: InProcessTransportOptions,
): Transport {
  const share = opts.messages === "share";
  const served = collectImplementations(routes, opts.interceptors);
  const chains = new Map<DescMethod, AnyFn>();
  const chainOf = (method: DescMethod): AnyFn | undefined => {
    let chain = chains.get(method);
    if (chain) return chain;
    const entry = served.get(method);
    if (!entry || entry.spec.kind !== "unary") return undefined;
    chain = buildChain(entry.spec.impl as UnaryFn, method, entry.interceptors);
    chains.set(method, chain);
    return chain;
  };
  let streaming: Transport | undefined;

  return {
    async unary<I extends DescMessage, O extends DescMessage>(
      method: DescMethodUnary<I, O>,
      signal: AbortSignal | undefined,
      timeoutMs: number | undefined,
      header: HeaderInit | undefined,
      input: MessageInitShape<I>,
    ): Promise<UnaryResponse<I, O>> {
      const chain = chainOf(method);
      if (!chain)
        throw new ConnectError(
          `${method.parent.typeName}/${method.name} is not served in this process`,
          Code.Unimplemented,
        );
      const message = share
        ? create(method.input, input)
        : clone(method.input, create(method.input, input));
      const res = await runCall(chain, method, message, signal, timeoutMs, header);
      return (
        share ? res : { ...res, message: clone(method.output, res.message as MessageShape<O>) }
      ) as UnaryResponse<I, O>;
    },
    stream<I extends DescMessage, O extends DescMessage>(
      method: DescMethodStreaming<I, O>,
      signal: AbortSignal | undefined,
      timeoutMs: number | undefined,
      header: HeaderInit | undefined,
      input: AsyncIterable<MessageInitShape<I>>,
    ) {
      streaming ??= createRouterTransport(routes, {
        router: { interceptors: opts.interceptors },
      });
      return streaming.stream(method, signal, timeoutMs, header, input);
    },
  };
}

type UnaryFn = (req: unknown, ctx: HandlerContext) => unknown;

interface Served {
  spec: MethodImplSpec;
  interceptors: Interceptor[];
}

/**
 * Runs the routes against a router that records each method's implementation (and the
 * interceptors it is mounted with: a service's own replace the router's, as in Connect).
 */
function collectImplementations(
  routes: (router: ConnectRouter) => void,
  interceptors: Interceptor[],
): Map<DescMethod, Served> {
  const served = new Map<DescMethod, Served>();
  const router: ConnectRouter = {
    handlers: [],
    service(service: DescService, impl: object, options?: { interceptors?: Interceptor[] }) {
      const spec = createServiceImplSpec(service, impl);
      for (const m of Object.values(spec.methods))
        served.set(m.method, { spec: m, interceptors: options?.interceptors ?? interceptors });
      return router;
    },
    rpc(method: DescMethod, impl: never, options?: { interceptors?: Interceptor[] }) {
      served.set(method, {
        spec: createMethodImplSpec(method, impl),
        interceptors: options?.interceptors ?? interceptors,
      });
      return router;
    },
  } as unknown as ConnectRouter;
  routes(router);
  return served;
}

/** The interceptors around the handler, composed once per method (Connect composes per call). */
function buildChain(impl: UnaryFn, method: DescMethod, interceptors: Interceptor[]): AnyFn {
  const innermost: AnyFn = async (req) => {
    const ctx = req.contextValues.get(callContextKey)!;
    // What an interceptor changed reaches the handler, as Connect's mergeRequest does it.
    const handlerCtx: HandlerContext = {
      ...ctx,
      service: req.service,
      requestHeader: req.header,
      signal: req.signal,
      values: req.contextValues,
    };
    const out = await impl(req.message, handlerCtx);
    return {
      stream: false,
      service: method.parent,
      method: req.method,
      header: ctx.responseHeader,
      trailer: ctx.responseTrailer,
      message: create(req.method.output, out as MessageInitShape<DescMessage>),
    };
  };
  let chain = innermost;
  for (let i = interceptors.length - 1; i >= 0; i--)
    chain = interceptors[i]!(chain as Parameters<Interceptor>[0]) as AnyFn;
  return chain;
}

async function runCall(
  chain: AnyFn,
  method: DescMethodUnary,
  message: UnaryRequest["message"],
  signal: AbortSignal | undefined,
  timeoutMs: number | undefined,
  header: HeaderInit | undefined,
): Promise<UnaryResponse> {
  // As Connect's transports: no timeout, or one of 0 or less, means no deadline.
  const deadlineMs = timeoutMs !== undefined && timeoutMs > 0 ? timeoutMs : undefined;
  const deadline = deadlineMs !== undefined ? Date.now() + deadlineMs : undefined;
  const controller = new AbortController();
  const values = createContextValues();
  const ctx: HandlerContext = {
    method,
    service: method.parent,
    signal: controller.signal,
    timeoutMs: () => (deadline === undefined ? undefined : deadline - Date.now()),
    requestMethod: "POST",
    requestHeader: new Headers(header),
    responseHeader: new Headers(),
    responseTrailer: new Headers(),
    protocolName: PROTOCOL,
    values,
    url: `${BASE_URL}/${method.parent.typeName}/${method.name}`,
  };
  values.set(callContextKey, ctx);

  let timer: NodeJS.Timeout | undefined;
  let onCallerAbort: (() => void) | undefined;
  // The caller stops waiting at the deadline or its own abort, as over the wire; the handler's
  // signal says so too, with the same reason.
  const stopped = new Promise<never>((_, reject) => {
    const stop = (reason: ConnectError) => {
      controller.abort(reason);
      reject(reason);
    };
    if (deadlineMs !== undefined) {
      timer = setTimeout(
        () => stop(new ConnectError("the operation timed out", Code.DeadlineExceeded)),
        deadlineMs,
      );
    }
    if (signal) {
      onCallerAbort = () => stop(ConnectError.from(signal.reason, Code.Canceled));
      if (signal.aborted) onCallerAbort();
      else signal.addEventListener("abort", onCallerAbort, { once: true });
    }
  });
  const call = chain({
    stream: false,
    service: method.parent,
    method,
    requestMethod: "POST",
    url: ctx.url,
    signal: controller.signal,
    header: ctx.requestHeader,
    contextValues: values,
    message,
  }).catch((err: unknown) => {
    throw asWireError(err, ctx);
  });
  try {
    if (timer === undefined && onCallerAbort === undefined) return await call;
    // A handler that ends after the caller stopped waiting must not leave an unhandled rejection.
    call.catch(() => undefined);
    return await Promise.race([call, stopped]);
  } finally {
    clearTimeout(timer);
    if (onCallerAbort) signal!.removeEventListener("abort", onCallerAbort);
  }
}

/**
 * The error a caller would read off the wire: code, message, details and metadata (the handler's
 * response headers and trailers with the error's own), without the cause; anything else is
 * `internal`, as a Connect server sends it.
 */
function asWireError(err: unknown, ctx: HandlerContext): ConnectError {
  const known = err instanceof ConnectError;
  const metadata = new Headers(ctx.responseHeader);
  if (known) err.metadata.forEach((value, key) => metadata.set(key, value));
  ctx.responseTrailer.forEach((value, key) => metadata.append(key, value));
  if (!known) return new ConnectError("internal error", Code.Internal, metadata);
  const out = new ConnectError(err.rawMessage, err.code, metadata);
  out.details.push(...err.details);
  return out;
}
