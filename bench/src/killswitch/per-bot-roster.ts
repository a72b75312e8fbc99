// The drill roster as it was read before ListRunningPaperBots (commit c5ff8b0), kept as the
// bench's reference: every bot page by page (ListBots), then each bot's deployments and, for a
// bot with a running paper session, its versions, `concurrency` bots at a time.
import type { Client } from "@connectrpc/connect";
import {
  DeploymentStatus,
  DeploymentTarget,
  type BotsService,
  type BotSummary,
} from "@svc/gen/svc/bots/v1/bots_pb.js";
import { allPages, MAX_PAGE_SIZE } from "@svc/lib/paging";

export interface PerBotEntry {
  taskId: string;
  botId: string;
  slug: string;
  highFrequencyFlag: boolean;
  timeframe: string;
}

export function perBotRoster(
  client: Client<typeof BotsService>,
  timeoutMs: number,
  concurrency: number,
): () => Promise<PerBotEntry[]> {
  const sessionsOf = async (bot: BotSummary): Promise<PerBotEntry[]> => {
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
    return running.map((d) => {
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
    const out: PerBotEntry[][] = new Array(bots.length);
    let next = 0;
    const worker = async () => {
      while (next < bots.length) {
        const i = next++;
        out[i] = await sessionsOf(bots[i]!);
      }
    };
    await Promise.all(Array.from({ length: Math.min(concurrency, bots.length) }, worker));
    return out.flat();
  };
}
