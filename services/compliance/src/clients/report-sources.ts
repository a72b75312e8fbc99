import { Code, ConnectError, type Client } from "@connectrpc/connect";
import type { Bot, BotsService, ComplianceRun } from "@svc/gen/svc/bots/v1/bots_pb.js";
import type { DrillResult, KillSwitchService } from "@svc/gen/svc/killswitch/v1/killswitch_pb.js";
import type { Config } from "@svc/lib/config";
import { svcError } from "@svc/lib/errors";
import { allPages, MAX_PAGE_SIZE } from "@svc/lib/paging";

/** What a report is made of, asked of the services that own it. */
export interface ReportSources {
  bot(botRef: string): Promise<Bot>;
  /** Every bot of the platform, with its spec and creation time. */
  allBots(): Promise<Bot[]>;
  /** The bot's conformance and stress runs created in `year`, oldest first. */
  runs(botRef: string, year: number): Promise<ComplianceRun[]>;
  /** The drills started in `year`, oldest first. */
  drills(year: number): Promise<DrillResult[]>;
}

/** A report reads the bot, a year of its runs (cases and stress results) and a year of drills. */
export const reportDeadlineMs = (config: Pick<Config, "timeouts">) => config.timeouts.dbMs * 3;

/** Codes that mean the service did not answer, as opposed to answering no. */
const UNANSWERED = new Set([Code.Unavailable, Code.DeadlineExceeded, Code.Unknown, Code.Internal]);

/** Bots asked for per ListBots page (its most). */
export const BOTS_PAGE = 1_000;
/** GetBot calls in flight at once while the platform report gathers its bots. */
const GATHER = 16;

function guarded<T>(who: "bots" | "killswitch", call: () => Promise<T>): Promise<T> {
  return call().catch((err: unknown) => {
    if (err instanceof ConnectError && !UNANSWERED.has(err.code)) throw err;
    throw svcError(
      Code.Unavailable,
      who === "bots" ? "bots_unreachable" : "killswitch_unreachable",
      `the ${who} service, which holds the report's ${who === "bots" ? "bots and compliance runs" : "kill-switch drills"}, did not answer; try again shortly`,
      {},
      { cause: err, headers: { "retry-after": "5" } },
    );
  });
}

/**
 * Asks the bots service (bots, runs) and the killswitch service (drills) over Connect, each call
 * with a deadline. Refusals (unknown bot) pass through; a service that does not answer in time
 * is a 503 with Retry-After, since a report is only ever read and may be asked for again.
 */
export function reportSourcesFrom(
  bots: Client<typeof BotsService>,
  killswitch: Client<typeof KillSwitchService>,
  timeoutMs: number,
  pageSize = BOTS_PAGE,
): ReportSources {
  const bot = (botRef: string) => guarded("bots", () => bots.getBot({ botRef }, { timeoutMs }));
  return {
    bot,
    async allBots() {
      // Page by page until a short page: a platform report that silently left bots out would be
      // a false statement to a regulator.
      const ids: string[] = [];
      for (;;) {
        const page = await guarded("bots", () =>
          bots.listBots({ limit: pageSize, after: ids.at(-1) ?? "" }, { timeoutMs }),
        );
        ids.push(...page.items.map((b) => b.id));
        if (page.items.length < pageSize) break;
      }
      const out: Bot[] = [];
      for (let i = 0; i < ids.length; i += GATHER)
        out.push(...(await Promise.all(ids.slice(i, i + GATHER).map(bot))));
      return out;
    },
    // Every page: a report that left runs or drills out would be a false statement too.
    runs(botRef, year) {
      return allPages((pageToken) =>
        guarded("bots", () =>
          bots.listComplianceRuns({ botRef, year, limit: MAX_PAGE_SIZE, pageToken }, { timeoutMs }),
        ),
      );
    },
    drills(year) {
      return allPages((pageToken) =>
        guarded("killswitch", () =>
          killswitch.listDrills({ year, limit: MAX_PAGE_SIZE, pageToken }, { timeoutMs }),
        ),
      );
    },
  };
}
