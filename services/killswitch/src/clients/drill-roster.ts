import type { Client } from "@connectrpc/connect";
import {
  DeploymentStatus,
  DeploymentTarget,
  type BotsService,
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

/** More bots than this and the roster is refused rather than silently cut short. */
const MAX_BOTS = 1_000;

/**
 * The sessions a drill halts and judges, asked of the bots service over Connect (each call with
 * its deadline): every bot, its running paper deployments, and the spec of the version each one
 * runs, which says whether it is high-frequency. A session that announces phases but is missing
 * here is not judged; one listed here that never announces a phase fails its bounds, which is the
 * point: the drill's roster does not depend on the runners it is testing.
 */
export function drillRosterFrom(
  client: Client<typeof BotsService>,
  timeoutMs: number,
): DrillRoster {
  return async () => {
    const bots = (await client.listBots({ limit: MAX_BOTS }, { timeoutMs })).items;
    if (bots.length >= MAX_BOTS)
      throw new Error(
        `the bots service lists ${MAX_BOTS} bots or more; a drill judges every running bot and cannot list them all`,
      );
    const perBot = await Promise.all(
      bots.map(async (bot) => {
        const running = (
          await allPages((pageToken) =>
            client.listBotDeployments(
              { botRef: bot.id, limit: MAX_PAGE_SIZE, pageToken },
              { timeoutMs },
            ),
          )
        ).filter(
          (d) =>
            d.target === DeploymentTarget.PAPER &&
            d.status === DeploymentStatus.RUNNING &&
            d.taskId,
        );
        if (running.length === 0) return [];
        const versions = await allPages((pageToken) =>
          client.listBotVersions(
            { botRef: bot.id, limit: MAX_PAGE_SIZE, pageToken },
            { timeoutMs },
          ),
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
      }),
    );
    return perBot.flat();
  };
}
