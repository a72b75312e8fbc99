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
  DeploymentStatus,
  DeploymentTarget,
  ListBotDeploymentsResponseSchema,
  ListBotsResponseSchema,
  ListBotVersionsResponseSchema,
  type ListBotDeploymentsRequest,
  type ListBotsRequest,
  type ListBotVersionsRequest,
} from "@svc/gen/svc/bots/v1/bots_pb.js";
import { drillRosterFrom, ROSTER_CONCURRENCY } from "./drill-roster.js";

/**
 * A bots service of `count` bots, paged by a token that is the next index, where only the bots
 * in `running` have a paper session. It records what a roster asks of it: the calls without a
 * deadline, the most calls in flight at once, and the bots whose deployments were asked.
 */
function botsService(count: number, running: Set<number>, failOn?: number) {
  const seen = { undeadlined: 0, inFlight: 0, maxInFlight: 0, asked: [] as string[], pages: 0 };
  const id = (i: number) => `bot-${i}`;
  const timed = async <T>(ctx: HandlerContext, answer: () => T): Promise<T> => {
    if (ctx.timeoutMs() === undefined) seen.undeadlined++;
    seen.inFlight++;
    seen.maxInFlight = Math.max(seen.maxInFlight, seen.inFlight);
    try {
      // A turn of the event loop, so calls started together are in flight together.
      await new Promise((r) => setTimeout(r, 1));
      return answer();
    } finally {
      seen.inFlight--;
    }
  };
  const transport = createRouterTransport((r) =>
    r.service(BotsService, {
      listBots: (req: ListBotsRequest, ctx) =>
        timed(ctx, () => {
          seen.pages++;
          const from = req.pageToken ? Number(req.pageToken) : 0;
          const to = Math.min(count, from + req.limit);
          return create(ListBotsResponseSchema, {
            items: Array.from({ length: to - from }, (_, k) => ({
              id: id(from + k),
              slug: `b${from + k}`,
            })),
            nextPageToken: to < count ? String(to) : "",
          });
        }),
      listBotDeployments: (req: ListBotDeploymentsRequest, ctx) => {
        seen.asked.push(req.botRef);
        return timed(ctx, () => {
          const i = Number(req.botRef.slice(4));
          if (i === failOn)
            throw new ConnectError("the bots service's database is gone", Code.Unavailable);
          return create(ListBotDeploymentsResponseSchema, {
            items: running.has(i)
              ? [
                  {
                    target: DeploymentTarget.PAPER,
                    status: DeploymentStatus.RUNNING,
                    taskId: `pt-${i}`,
                    version: 2,
                  },
                  // An ended session of the same bot is not judged.
                  {
                    target: DeploymentTarget.PAPER,
                    status: DeploymentStatus.HALTED,
                    taskId: `old-${i}`,
                    version: 1,
                  },
                ]
              : [],
          });
        });
      },
      listBotVersions: (req: ListBotVersionsRequest, ctx) =>
        timed(ctx, () =>
          create(ListBotVersionsResponseSchema, {
            items: [
              { version: 1, spec: { universe: { timeframe: "1d" } } },
              { version: 2, spec: { universe: { timeframe: "15s" } } },
            ],
          }),
        ),
    }),
  );
  return { client: createClient(BotsService, transport), seen };
}

describe("a drill's roster, asked of the bots service", () => {
  it("judges a session on the last of 2,500 bots: every page read, every bot asked once, a bounded number at a time, each call with its deadline", async () => {
    const { client, seen } = botsService(2_500, new Set([0, 2_499]));
    const roster = await drillRosterFrom(client, 5_000)();
    expect(roster).toEqual([
      { taskId: "pt-0", botId: "bot-0", slug: "b0", highFrequencyFlag: false, timeframe: "15s" },
      {
        taskId: "pt-2499",
        botId: "bot-2499",
        slug: "b2499",
        highFrequencyFlag: false,
        timeframe: "15s",
      },
    ]);
    expect(seen.pages).toBe(3);
    expect(seen.asked).toHaveLength(2_500);
    expect(new Set(seen.asked).size).toBe(2_500);
    expect(seen.maxInFlight).toBeLessThanOrEqual(ROSTER_CONCURRENCY);
    expect(seen.undeadlined).toBe(0);
  });

  it("fails, rather than answering a roster with a bot left out, when one bot cannot be read, and asks about no more bots after it", async () => {
    const { client, seen } = botsService(200, new Set([199]), 10);
    await expect(drillRosterFrom(client, 5_000, 4)()).rejects.toThrow(/database is gone/);
    await new Promise((r) => setTimeout(r, 50));
    // Bots 0 to 10, and at most the three other workers' next bots: none is started after.
    expect(seen.asked.length).toBeLessThanOrEqual(14);
  });
});
