import { create } from "@bufbuild/protobuf";
import {
  Code,
  ConnectError,
  createClient,
  createRouterTransport,
  type HandlerContext,
} from "@connectrpc/connect";
import { describe, expect, it } from "vitest";
import {
  BotsService,
  ListRunningPaperBotsResponseSchema,
  type ListRunningPaperBotsRequest,
} from "@svc/gen/svc/bots/v1/bots_pb.js";
import { drillRosterFrom } from "./drill-roster.js";

/**
 * A bots service with `count` bots that run a paper session, paged by a token that is the next
 * index; page `failOn` cannot be read. It records the pages asked and the calls without a
 * deadline, and whether anything else was asked of it.
 */
function botsService(count: number, failOn?: number) {
  const seen = { undeadlined: 0, pages: 0, limits: [] as number[] };
  const deadlined = (ctx: HandlerContext) => {
    if (ctx.timeoutMs() === undefined) seen.undeadlined++;
  };
  const transport = createRouterTransport((r) =>
    r.service(BotsService, {
      listRunningPaperBots: (req: ListRunningPaperBotsRequest, ctx) => {
        deadlined(ctx);
        const page = seen.pages++;
        seen.limits.push(req.limit);
        if (page === failOn)
          throw new ConnectError("the bots service's database is gone", Code.Unavailable);
        const from = req.pageToken ? Number(req.pageToken) : 0;
        const to = Math.min(count, from + req.limit);
        return create(ListRunningPaperBotsResponseSchema, {
          items: Array.from({ length: to - from }, (_, k) => ({
            botId: `bot-${from + k}`,
            slug: `b${from + k}`,
            sessions: [
              {
                taskId: `pt-${from + k}`,
                version: 2,
                highFrequency: (from + k) % 2 === 1,
                timeframe: "15s",
              },
            ],
          })),
          nextPageToken: to < count ? String(to) : "",
        });
      },
    }),
  );
  return { client: createClient(BotsService, transport), seen };
}

describe("a drill's roster, asked of the bots service", () => {
  it("reads 2,500 running bots in three pages of 1,000, each call with its deadline, every session with its pace", async () => {
    const { client, seen } = botsService(2_500);
    const roster = await drillRosterFrom(client, 5_000)();
    expect(roster).toHaveLength(2_500);
    expect(new Set(roster.map((e) => e.taskId)).size).toBe(2_500);
    expect(roster.slice(0, 2)).toEqual([
      { taskId: "pt-0", botId: "bot-0", slug: "b0", highFrequencyFlag: false, timeframe: "15s" },
      { taskId: "pt-1", botId: "bot-1", slug: "b1", highFrequencyFlag: true, timeframe: "15s" },
    ]);
    expect(seen.pages).toBe(3);
    expect(seen.limits).toEqual([1_000, 1_000, 1_000]);
    expect(seen.undeadlined).toBe(0);
  });

  it("fails, rather than answering a roster with bots left out, when a page cannot be read", async () => {
    const { client, seen } = botsService(2_500, 1);
    await expect(drillRosterFrom(client, 5_000)()).rejects.toThrow(/database is gone/);
    expect(seen.pages).toBe(2);
  });
});
