import { Code, ConnectError, createClient, createRouterTransport } from "@connectrpc/connect";
import { describe, expect, it } from "vitest";
import { create } from "@bufbuild/protobuf";
import {
  BotSchema,
  BotsService,
  BotSummarySchema,
  ListBotsResponseSchema,
  type ListBotsRequest,
} from "@svc/gen/svc/bots/v1/bots_pb.js";
import { KillSwitchService } from "@svc/gen/svc/killswitch/v1/killswitch_pb.js";
import { svcError } from "@svc/lib/errors";
import { reportSourcesFrom } from "./report-sources.js";

const never = () => new Promise<never>(() => {});

function sources(bots: { getBot?: () => Promise<never> }, listDrills?: () => Promise<never>) {
  return reportSourcesFrom(
    createClient(
      BotsService,
      createRouterTransport((r) => r.service(BotsService, bots)),
    ),
    createClient(
      KillSwitchService,
      createRouterTransport((r) => r.service(KillSwitchService, listDrills ? { listDrills } : {})),
    ),
    50,
  );
}

const failure = (p: Promise<unknown>) =>
  p.then(
    () => null,
    (e: unknown) => e as ConnectError,
  );

describe("what a report is made of, asked over Connect", () => {
  it("answers 503 with Retry-After when the bots service does not answer within the deadline", async () => {
    const err = await failure(sources({ getBot: never }).bot("b1"));
    expect(err).toBeInstanceOf(ConnectError);
    expect(err!.code).toBe(Code.Unavailable);
    expect(err!.metadata.get("retry-after")).toBe("5");
    expect(err!.rawMessage).toMatch(/bots service.*did not answer/);
  });

  it("answers 503 killswitch_unreachable when the killswitch service does not answer", async () => {
    const err = await failure(sources({}, never).drills(2025));
    expect(err!.code).toBe(Code.Unavailable);
    expect(err!.metadata.get("retry-after")).toBe("5");
    expect(err!.rawMessage).toMatch(/killswitch service.*did not answer/);
  });

  it("passes the bots service's refusals through as they are", async () => {
    const err = await failure(
      sources({
        getBot: async () => {
          throw svcError(Code.NotFound, "bot_not_found", 'no bot with id or slug "b1"');
        },
      }).bot("b1"),
    );
    expect(err!.code).toBe(Code.NotFound);
  });

  it("gathers every bot of the platform page by page, none left out or twice", async () => {
    const ids = ["b1", "b2", "b3", "b4", "b5"];
    const pages: string[] = [];
    const s = reportSourcesFrom(
      createClient(
        BotsService,
        createRouterTransport((r) =>
          r.service(BotsService, {
            async listBots(req: ListBotsRequest) {
              pages.push(req.after);
              const from = req.after ? ids.indexOf(req.after) + 1 : 0;
              return create(ListBotsResponseSchema, {
                items: ids
                  .slice(from, from + req.limit)
                  .map((id) => create(BotSummarySchema, { id })),
              });
            },
            getBot: async (req) => create(BotSchema, { id: req.botRef, slug: req.botRef }),
          }),
        ),
      ),
      createClient(
        KillSwitchService,
        createRouterTransport(() => {}),
      ),
      1_000,
      2,
    );
    expect((await s.allBots()).map((b) => b.id)).toEqual(ids);
    expect(pages).toEqual(["", "b2", "b4"]);
  });
});
