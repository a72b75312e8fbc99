import { create } from "@bufbuild/protobuf";
import type { ServiceImpl } from "@connectrpc/connect";
import type { Kysely } from "kysely";
import {
  ListRunningPaperBotsResponseSchema,
  type BotsService,
  type RunningPaperBot,
} from "@svc/gen/svc/bots/v1/bots_pb.js";
import { decodePageToken, pageOf, pageSize, type PagedList } from "@svc/lib/paging";
import type { BotsDatabase } from "../store/bots.table.js";
import {
  listRunningPaper,
  RUNNING_PAPER_KEYS,
  type RunningPaperRow,
} from "../store/running-paper.repository.js";

const RUNNING_PAPER: PagedList = {
  list: "running_paper_bots",
  filters: {},
  keys: [...RUNNING_PAPER_KEYS],
};

/**
 * GET /paper/running-bots: the bots with a paper session running now, a page of bots at a time
 * (a drill's roster, in pages rather than a call per bot).
 */
export function createRunningPaperHandlers(
  db: Kysely<BotsDatabase>,
): Pick<ServiceImpl<typeof BotsService>, "listRunningPaperBots"> {
  return {
    async listRunningPaperBots(req) {
      const size = pageSize(req.limit);
      const after = decodePageToken(RUNNING_PAPER, req.pageToken);
      const rows = await listRunningPaper(db, { limit: size + 1, ...(after ? { after } : {}) });
      const page = pageOf(byBot(rows), size, RUNNING_PAPER, (b) => [b.botId]);
      return create(ListRunningPaperBotsResponseSchema, {
        items: page.items,
        nextPageToken: page.nextPageToken,
      });
    },
  };
}

/** The rows (sorted by bot, then task) as one item per bot. */
function byBot(rows: RunningPaperRow[]): Array<Omit<RunningPaperBot, "$typeName">> {
  const bots: Array<Omit<RunningPaperBot, "$typeName">> = [];
  for (const r of rows) {
    let bot = bots.at(-1);
    if (bot?.botId !== r.bot_id) {
      bot = { botId: r.bot_id, slug: r.slug, sessions: [] };
      bots.push(bot);
    }
    bot.sessions.push({
      $typeName: "svc.bots.v1.RunningPaperSession",
      taskId: r.task_id,
      version: r.version,
      highFrequency: r.high_frequency,
      timeframe: r.timeframe,
    });
  }
  return bots;
}
