import type { Client } from "@connectrpc/connect";
import type { BotsService } from "@svc/gen/svc/bots/v1/bots_pb.js";
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
 * The sessions a drill halts and judges, asked of the bots service over Connect: the bots with a
 * paper session running now (ListRunningPaperBots), a page of up to 1000 bots a call, each call
 * with its deadline, each session with the pace of the version it runs (high-frequency or not,
 * its timeframe). A platform of 10,000 bots is a handful of calls, not one per bot. A session
 * that announces phases but is missing here is not judged; one listed here that never announces
 * a phase fails its bounds, which is the point: the drill's roster does not depend on the runners
 * it is testing. For that reason no session is skipped on its runtime phase: the phase comes from
 * the runner's own events, and a session marked running whose runner never wrote one (a runner
 * process down) is exactly what a drill must catch.
 */
export function drillRosterFrom(
  client: Client<typeof BotsService>,
  timeoutMs: number,
): DrillRoster {
  return async () => {
    const bots = await allPages((pageToken) =>
      client.listRunningPaperBots({ limit: MAX_PAGE_SIZE, pageToken }, { timeoutMs }),
    );
    return bots.flatMap((bot) =>
      bot.sessions.map((s): RosterEntry => ({
        taskId: s.taskId,
        botId: bot.botId,
        slug: bot.slug,
        highFrequencyFlag: s.highFrequency,
        timeframe: s.timeframe,
      })),
    );
  };
}
