import { sql } from "kysely";
import type { RunningPlatform } from "@svc/all-in-one";
import { call } from "./test-platform.js";
import { eventually } from "./until.js";

/**
 * Creates an ma_crossover trading bot in `fleet` and waits until the killswitch service has
 * heard of it (its events reach that service through the outbox), so a fleet or bot switch
 * covers it from the first engage.
 */
export async function createBotTheKillSwitchKnows(
  p: RunningPlatform,
  slug: string,
  fleet: string,
): Promise<void> {
  await call(p.url, "POST", "/bots", {
    name: slug,
    slug,
    kind: "trading",
    fleet,
    strategy: { family: "ma_crossover", parameters: { fast: 3, slow: 8 } },
  });
  await eventually(
    "the killswitch service knows the bot",
    () =>
      sql<{
        n: number;
      }>`select count(*)::int as n from killswitch.known_bots where slug = ${slug}`.execute(
        p.platform.db.db,
      ),
    (r) => r.rows[0]!.n > 0,
  );
}
