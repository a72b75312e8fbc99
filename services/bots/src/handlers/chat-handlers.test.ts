import { randomUUID } from "node:crypto";
import { create } from "@bufbuild/protobuf";
import {
  createClient,
  createContextValues,
  createHandlerContext,
  createRouterTransport,
} from "@connectrpc/connect";
import type { Kysely } from "kysely";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { BotsService, ChatBotRequestSchema } from "@svc/gen/svc/bots/v1/bots_pb.js";
import { localPrincipal, principalKey } from "@svc/lib/auth";
import { loadConfig } from "@svc/lib/config";
import { schemaDb } from "@svc/lib/db";
import { openPlatform, type Platform } from "@svc/lib/server";
import { startStandInLlm, type StandInLlm } from "../../../../dev/llm/stand-in-llm.js";
import { eventually } from "../../../../test/support/until.js";
import { createBotsModule } from "../index.js";
import { chatLimits } from "../chat/chat-limits.js";
import * as conversations from "../store/conversations.repository.js";
import type { BotsDatabase } from "../store/bots.table.js";
import { createChatHandlers } from "./chat-handlers.js";

/** The MCP sessions the handler opened and has not closed (the endpoint is a stand-in here). */
const mcpOpen = vi.hoisted(() => ({ sessions: 0 }));
vi.mock("../chat/mcp-tools.js", () => ({
  openMcpSession: () => {
    mcpOpen.sessions++;
    return Promise.resolve({
      tools: [],
      call: () => Promise.resolve({ isError: true, text: "no tools here" }),
      close: () => {
        mcpOpen.sessions--;
        return Promise.resolve();
      },
    });
  },
}));

/**
 * A reader that leaves a research chat, at whatever point (the first event, before it, mid-answer)
 * and however Connect tells the handler (its signal aborted, the stream given up by return()),
 * ends the answer at once: the model's request cancelled, the switches' watch stopped, the MCP
 * session closed, and the conversation's budget let go for its next answer.
 */
describe("research chat when the reader goes", () => {
  let llm: StandInLlm;
  let platform: Platform;
  let db: Kysely<BotsDatabase>;
  let watching = 0;
  let chat: ReturnType<typeof createChatHandlers>["chatBot"];
  const principal = localPrincipal(new Headers());

  beforeAll(async () => {
    llm = await startStandInLlm();
    platform = await openPlatform(
      loadConfig({ SVC_DATA_DIR: "memory://", SVC_LOG_LEVEL: "silent" }),
      "bots",
    );
    await createBotsModule(platform);
    db = schemaDb<BotsDatabase>(platform.db.db, "bots") as Kysely<BotsDatabase>;
    await db
      .insertInto("bots")
      .values({
        id: randomUUID(),
        slug: "lab",
        name: "Lab",
        kind: "research",
        status: "active",
        fleet: null,
        current_version: 1,
        spec_hash: "",
        spec: "{}",
        created_by: principal.sub,
      })
      .execute();
    chat = createChatHandlers({
      db,
      log: platform.log,
      // Long: an answer that ends within the waits below was stopped, not timed out.
      llm: { baseUrl: llm.baseUrl, model: "stand-in", timeoutMs: 60_000 },
      mcpUrl: () => "http://127.0.0.1:1/mcp",
      halts: {
        engaged: () => Promise.resolve(null),
        watch: () => {
          watching++;
          return {
            stop: () => {
              watching--;
              return Promise.resolve();
            },
          };
        },
      },
      limits: chatLimits({ kv: platform.kv, perMinute: 1_000, tokenBudget: 1_000_000 }),
      timeoutMs: 5_000,
    }).chatBot;
  }, 60_000);
  afterAll(async () => {
    await platform?.close();
    await llm?.close();
  });

  const start = (message: string, conversationId = "") => {
    const ctx = createHandlerContext({
      service: BotsService,
      method: BotsService.method.chatBot,
      protocolName: "connect",
      requestMethod: "POST",
      url: "http://in-test/svc.bots.v1.BotsService/ChatBot",
      requestSignal: new AbortController().signal,
      contextValues: createContextValues().set(principalKey, principal),
    });
    const stream = chat(
      create(ChatBotRequestSchema, { botRef: "lab", message, conversationId }),
      ctx,
    );
    return { ctx, stream: stream[Symbol.asyncIterator]() };
  };
  const conversationOf = async (message: string) => {
    const { stream } = start(message);
    const first = await stream.next();
    for (let e = first; !e.done; e = await stream.next());
    return (first.value as { kind: { value: { conversationId: string } } }).kind.value
      .conversationId;
  };
  /** Everything the answer ran on is let go, and the conversation takes another answer. */
  const expectLetGo = async (conversationId: string, cancelledBefore: number, asked: boolean) => {
    await eventually(
      "the switches' watch stops and the MCP session closes",
      () => [watching, mcpOpen.sessions],
      ([w, m]) => w === 0 && m === 0,
    );
    if (asked)
      await eventually(
        "the model's request is cancelled",
        () => llm.cancelled(),
        (n) => n > cancelledBefore,
      );
    expect(await conversations.answerHeldUntil(db, conversationId)).toBeNull();
    const next = start("hi", conversationId);
    const events = [];
    for (let e = await next.stream.next(); !e.done; e = await next.stream.next())
      events.push(e.value);
    expect(events.at(-1)).toMatchObject({ kind: { case: "final" } });
  };

  it("over Connect, the caller aborts after the first event: the stream parked there is let go", async () => {
    const conversationId = await conversationOf("hi");
    const transport = createRouterTransport(
      (r) => r.service(BotsService, { chatBot: chat } as never),
      {
        router: {
          interceptors: [
            (next) => (req) => {
              req.contextValues.set(principalKey, principal);
              return next(req);
            },
          ],
        },
      },
    );
    const leave = new AbortController();
    const events = createClient(BotsService, transport)
      .chatBot(
        { botRef: "lab", message: "Think slowly about leaving", conversationId },
        { signal: leave.signal },
      )
      [Symbol.asyncIterator]();
    expect((await events.next()).value).toMatchObject({ kind: { case: "started" } });
    leave.abort();
    await expectLetGo(conversationId, llm.cancelled(), false);
  });

  it("the reader gives the stream up at its first event (return(), no abort)", async () => {
    const conversationId = await conversationOf("hi");
    const { stream } = start("Think slowly about leaving", conversationId);
    expect((await stream.next()).value).toMatchObject({ kind: { case: "started" } });
    expect([watching, mcpOpen.sessions]).toEqual([1, 1]);
    await stream.return?.(undefined);
    await expectLetGo(conversationId, llm.cancelled(), false);
  });

  it("the person is gone at the first event, and the reader asks on (the signal aborted)", async () => {
    const conversationId = await conversationOf("hi");
    const { ctx, stream } = start("Think slowly about leaving", conversationId);
    const asked = llm.requests.length;
    const cancelledBefore = llm.cancelled();
    await stream.next();
    ctx.abort(new Error("the person left"));
    await stream.next().catch(() => undefined);
    expect(llm.requests.length).toBe(asked);
    await expectLetGo(conversationId, cancelledBefore, false);
  });

  it("the person was gone before the first event (a signal aborted before the handler listened)", async () => {
    const conversationId = await conversationOf("hi");
    const { ctx, stream } = start("Think slowly about leaving", conversationId);
    const cancelledBefore = llm.cancelled();
    ctx.abort(new Error("the person left"));
    let ended = false;
    void (async () => {
      for (let e = await stream.next(); !e.done; e = await stream.next());
    })()
      .catch(() => undefined)
      .then(() => (ended = true));
    await eventually("the stream ends", () => ended, Boolean);
    await expectLetGo(conversationId, cancelledBefore, false);
  });

  it("the reader gives the stream up mid-answer: the model's request is cancelled", async () => {
    const conversationId = await conversationOf("hi");
    const { stream } = start("Think slowly about leaving", conversationId);
    const cancelledBefore = llm.cancelled();
    await stream.next();
    expect((await stream.next()).value).toMatchObject({ kind: { case: "token" } });
    await stream.return?.(undefined);
    await expectLetGo(conversationId, cancelledBefore, true);
  });
});
