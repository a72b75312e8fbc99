import type { Client } from "@connectrpc/connect";
import {
  DeploymentStatus,
  DeploymentTarget,
  type BotsService,
  type BotSummary,
} from "@svc/gen/svc/bots/v1/bots_pb.js";
import { allPages, MAX_PAGE_SIZE } from "@svc/lib/paging";
import type { PaceFacts } from "../domain/drill-verdict.js";

/** One running paper session a drill must judge, with the pace its running version declares. */
export interface RosterEntry extends PaceFacts {
  taskId: string;
  botId: string;
  slug: string;
}

/** Asks the bots service, the owner of the sessions, what runs right now. */
export type DrillRoster = () => Promise<RosterEntry[]>;

/**
 * Bots asked about at once. The bots service answers each from its database pool, so a platform
 * of thousands of bots must not open thousands of calls (each its own deadline running) at once.
 */
export const ROSTER_CONCURRENCY = 16;

/**
 * The sessions a drill halts and judges, asked of the bots service over Connect (each call with
 * its deadline): every bot, page by page, then each bot's running paper deployments and the spec
 * of the version each one runs, which says whether it is high-frequency, `concurrency` bots at a
 * time. A session that announces phases but is missing here is not judged; one listed here that
 * never announces a phase fails its bounds, which is the point: the drill's roster does not
 * depend on the runners it is testing. For that reason no bot is skipped on its listed runtime
 * phase: the phase comes from the runner's own events, and a session marked running whose runner
 * never wrote one (a runner process down) is exactly what a drill must catch.
 */
export function drillRosterFrom(
  client: Client<typeof BotsService>,
  timeoutMs: number,
  concurrency = ROSTER_CONCURRENCY,
): DrillRoster {
  const sessionsOf = async (bot: BotSummary): Promise<RosterEntry[]> => {
    const running = (
      await allPages((pageToken) =>
        client.listBotDeployments(
          { botRef: bot.id, limit: MAX_PAGE_SIZE, pageToken },
          { timeoutMs },
        ),
      )
    ).filter(
      (d) =>
        d.target === DeploymentTarget.PAPER && d.status === DeploymentStatus.RUNNING && d.taskId,
    );
    if (running.length === 0) return [];
    const versions = await allPages((pageToken) =>
      client.listBotVersions({ botRef: bot.id, limit: MAX_PAGE_SIZE, pageToken }, { timeoutMs }),
    );
    return running.map((d): RosterEntry => {
      const spec = versions.find((v) => v.version === d.version)?.spec;
      return {
        taskId: d.taskId,
        botId: bot.id,
        slug: bot.slug,
        highFrequencyFlag: spec?.engine?.highFrequency ?? false,
        timeframe: spec?.universe?.timeframe ?? "",
      };
    });
  };
  return async () => {
    const bots = await allPages((pageToken) =>
      client.listBots({ limit: MAX_PAGE_SIZE, pageToken }, { timeoutMs }),
    );
    return (await mapBounded(bots, concurrency, sessionsOf)).flat();
  };
}

/**
 * `work` over every item, at most `limit` at a time, answers in the items' order. The first
 * failure rejects at once and no further item is started (those in flight finish on their own
 * deadlines).
 */
async function mapBounded<T, R>(
  items: readonly T[],
  limit: number,
  work: (item: T) => Promise<R>,
): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  let failed = false;
  const worker = async () => {
    while (!failed && next < items.length) {
      const i = next++;
      try {
        out[i] = await work(items[i]!);
      } catch (err) {
        failed = true;
        throw err;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return out;
}
