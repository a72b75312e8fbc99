import { sql, type Kysely, type Transaction } from "kysely";
import { keysetAfter } from "@svc/lib/paging";
import type { BotsDatabase } from "./bots.table.js";

type Db = Kysely<BotsDatabase> | Transaction<BotsDatabase>;

/** A paper session running now, with its bot's slug and what its version declares of its pace. */
export interface RunningPaperRow {
  bot_id: string;
  slug: string;
  task_id: string;
  version: number;
  high_frequency: boolean;
  timeframe: string;
}

/** The sort key of the bots with a running paper session: the bot's id. */
export const RUNNING_PAPER_KEYS = ["uuid"] as const;

/**
 * The running paper sessions of the next `limit` bots that have one, after bot `after`, by bot
 * id then task id: one statement, the page's bot ids read in order off the partial index
 * bot_deployments_running_paper_idx, then their sessions and the spec of the version each runs.
 */
export function listRunningPaper(
  db: Db,
  page: { limit: number; after?: readonly string[] },
): Promise<RunningPaperRow[]> {
  const running = (q: Db) =>
    q.selectFrom("bot_deployments").where("target", "=", "paper").where("status", "=", "running");
  let bots = running(db).select("bot_id").distinct();
  if (page.after)
    bots = bots.where((eb) =>
      keysetAfter([eb.ref("bot_id")], page.after!, RUNNING_PAPER_KEYS, "asc"),
    );
  return db
    .with("page", () => bots.orderBy("bot_id").limit(page.limit))
    .selectFrom("page")
    .innerJoin("bot_deployments as d", "d.bot_id", "page.bot_id")
    .innerJoin("bots as b", "b.id", "d.bot_id")
    .leftJoin("bot_versions as v", (j) =>
      j.onRef("v.bot_id", "=", "d.bot_id").onRef("v.version", "=", "d.version"),
    )
    .where("d.target", "=", "paper")
    .where("d.status", "=", "running")
    .select([
      "d.bot_id",
      "b.slug",
      "d.task_id",
      "d.version",
      sql<boolean>`coalesce((v.spec->'engine'->>'high_frequency')::boolean, false)`.as(
        "high_frequency",
      ),
      sql<string>`coalesce(v.spec->'universe'->>'timeframe', '')`.as("timeframe"),
    ])
    .orderBy("d.bot_id")
    .orderBy("d.task_id")
    .execute();
}
