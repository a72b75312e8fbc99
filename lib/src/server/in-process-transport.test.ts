import { create } from "@bufbuild/protobuf";
import {
  Code,
  ConnectError,
  createClient,
  createRouterTransport,
  type ConnectRouter,
  type HandlerContext,
  type Interceptor,
  type ServiceImpl,
  type Transport,
} from "@connectrpc/connect";
import { describe, expect, it } from "vitest";
import { BotSchema, BotsService, type GetBotRequest } from "@svc/gen/svc/bots/v1/bots_pb.js";
import { ErrorDetailSchema } from "@svc/gen/svc/api/v1/errors_pb.js";
import { errorDetailOf } from "../errors/index.js";
import { createInProcessTransport } from "./in-process-transport.js";

/** Stamps a request header into the context and a response header on the way out. */
const stamp: Interceptor = (next) => async (req) => {
  req.header.set("x-stamped", "yes");
  const res = await next(req);
  res.header.set("x-outer", req.header.get("x-caller") ?? "none");
  return res;
};

function routesWith(getBot: (req: GetBotRequest, ctx: HandlerContext) => unknown) {
  return (router: ConnectRouter) =>
    router.service(BotsService, { getBot } as unknown as Partial<ServiceImpl<typeof BotsService>>);
}

/** The same routes through Connect's own in-memory protocol stack, which encodes and decodes. */
function bothTransports(routes: (router: ConnectRouter) => void): [string, Transport][] {
  return [
    ["in-process", createInProcessTransport(routes, { interceptors: [stamp] })],
    ["wire", createRouterTransport(routes, { router: { interceptors: [stamp] } })],
  ];
}

async function failure(p: Promise<unknown>): Promise<ConnectError> {
  try {
    await p;
  } catch (err) {
    return ConnectError.from(err);
  }
  throw new Error("the call succeeded");
}

describe("createInProcessTransport", () => {
  it("answers as the wire does: message, response header and trailer, headers seen by the handler", async () => {
    const routes = routesWith((req, ctx) => {
      ctx.responseHeader.set("x-handler", `${ctx.requestHeader.get("x-stamped")}`);
      ctx.responseTrailer.set("x-trailer", "t");
      return { id: "b1", slug: req.botRef, name: "Alpha" };
    });
    for (const [name, transport] of bothTransports(routes)) {
      const res = await transport.unary(
        BotsService.method.getBot,
        undefined,
        5_000,
        { "x-caller": "gw" },
        { botRef: "alpha" },
      );
      expect({ name, slug: res.message.slug, bot: res.message.name }).toEqual({
        name,
        slug: "alpha",
        bot: "Alpha",
      });
      expect(res.header.get("x-handler")).toBe("yes");
      expect(res.header.get("x-outer")).toBe("gw");
      expect(res.trailer.get("x-trailer")).toBe("t");
    }
  });

  it("raises the same ConnectError as the wire: code, message, details, metadata with the handler's headers, no cause", async () => {
    const routes = routesWith((_req, ctx) => {
      ctx.responseHeader.set("set-cookie", "a=1");
      throw new ConnectError(
        'bot "x" not found',
        Code.NotFound,
        { "www-authenticate": "Bearer" },
        [{ desc: ErrorDetailSchema, value: { code: "bot_not_found", details: { bot_ref: "x" } } }],
        new Error("SELECT secret FROM internals"),
      );
    });
    const seen = [];
    for (const [, transport] of bothTransports(routes)) {
      const err = await failure(
        createClient(BotsService, transport).getBot({ botRef: "x" }, { timeoutMs: 5_000 }),
      );
      seen.push({
        code: err.code,
        message: err.rawMessage,
        detail: errorDetailOf(err),
        challenge: err.metadata.get("www-authenticate"),
        cookie: err.metadata.get("set-cookie"),
        cause: err.cause,
      });
    }
    expect(seen[0]).toEqual(seen[1]);
    expect(seen[0]).toMatchObject({
      code: Code.NotFound,
      detail: { code: "bot_not_found", details: { bot_ref: "x" } },
      challenge: "Bearer",
      cookie: "a=1",
      cause: undefined,
    });
  });

  it("turns an error that is not a ConnectError into a bare internal one, as a server does", async () => {
    const routes = routesWith(() => {
      throw new Error("connection to 10.0.0.5 refused");
    });
    for (const [, transport] of bothTransports(routes)) {
      const err = await failure(createClient(BotsService, transport).getBot({ botRef: "x" }));
      expect(err.code).toBe(Code.Internal);
      expect(err.rawMessage).toBe("internal error");
    }
  });

  it("stops the caller at its deadline and aborts the handler's signal with DeadlineExceeded", async () => {
    let handlerSignal: AbortSignal | undefined;
    let remaining: number | undefined;
    const routes = routesWith((_req, ctx) => {
      handlerSignal = ctx.signal;
      remaining = ctx.timeoutMs();
      return new Promise(() => {}); // never answers
    });
    const transport = createInProcessTransport(routes, { interceptors: [] });
    const err = await failure(
      createClient(BotsService, transport).getBot({ botRef: "x" }, { timeoutMs: 30 }),
    );
    expect(err.code).toBe(Code.DeadlineExceeded);
    expect(remaining).toBeGreaterThan(0);
    expect(remaining).toBeLessThanOrEqual(30);
    expect(handlerSignal?.aborted).toBe(true);
    expect(ConnectError.from(handlerSignal?.reason).code).toBe(Code.DeadlineExceeded);
  });

  it("stops the caller when the caller aborts, as Canceled", async () => {
    let handlerSignal: AbortSignal | undefined;
    const routes = routesWith((_req, ctx) => {
      handlerSignal = ctx.signal;
      return new Promise(() => {});
    });
    const transport = createInProcessTransport(routes, { interceptors: [] });
    const caller = new AbortController();
    const pending = failure(
      createClient(BotsService, transport).getBot({ botRef: "x" }, { signal: caller.signal }),
    );
    caller.abort();
    expect((await pending).code).toBe(Code.Canceled);
    expect(handlerSignal?.aborted).toBe(true);
  });

  it("leaves the handler's signal alone when a call ends well", async () => {
    let handlerSignal: AbortSignal | undefined;
    const transport = createInProcessTransport(
      routesWith((_req, ctx) => {
        handlerSignal = ctx.signal;
        return { id: "b1" };
      }),
      { interceptors: [] },
    );
    await createClient(BotsService, transport).getBot({ botRef: "x" }, { timeoutMs: 1_000 });
    expect(handlerSignal?.aborted).toBe(false);
  });

  it("by default gives each side its own copy of the messages", async () => {
    const kept = create(BotSchema, { id: "b1", name: "Alpha" });
    const transport = createInProcessTransport(
      routesWith((req) => {
        req.botRef = "changed by the handler";
        return kept;
      }),
      { interceptors: [] },
    );
    const input = create(BotsService.method.getBot.input, { botRef: "alpha" });
    const res = await transport.unary(BotsService.method.getBot, undefined, 1_000, {}, input);
    res.message.name = "changed by the caller";
    expect(input.botRef).toBe("alpha");
    expect(kept.name).toBe("Alpha");
  });

  it("shares the messages when asked to (a caller that only reads)", async () => {
    const kept = create(BotSchema, { id: "b1" });
    let received: unknown;
    const transport = createInProcessTransport(
      routesWith((req) => {
        received = req;
        return kept;
      }),
      { interceptors: [], messages: "share" },
    );
    const input = create(BotsService.method.getBot.input, { botRef: "alpha" });
    const res = await transport.unary(BotsService.method.getBot, undefined, 1_000, {}, input);
    expect(received).toBe(input);
    expect(res.message).toBe(kept);
  });

  it("answers Unimplemented for a method the routes do not serve, and for one left unbuilt", async () => {
    const transport = createInProcessTransport(
      routesWith(() => ({})),
      { interceptors: [] },
    );
    const client = createClient(BotsService, transport);
    expect((await failure(client.listBots({}))).code).toBe(Code.Unimplemented);
    const other = createInProcessTransport(() => {}, { interceptors: [] });
    expect((await failure(createClient(BotsService, other).getBot({}))).code).toBe(
      Code.Unimplemented,
    );
  });
});
