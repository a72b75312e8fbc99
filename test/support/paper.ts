import { sql } from "kysely";
import { expect } from "vitest";
import type { RunningPlatform } from "@svc/all-in-one";
import { call } from "./test-platform.js";
import { eventually } from "./until.js";

export const as = (user: string) => ({ "x-svc-local-user": user });

/**
 * A bot through promotion (alice submits, bob approves) into a running paper session; returns its
 * task id. It waits for what each step needs: the promotion and killswitch services to know the
 * bot (from the bots service's events), and the live plane to activate the artifact. `spec` adds
 * to the bot's spec (engine, universe...), `start` to the paper start's body (data_source...).
 */
export async function approvedSession(
  p: RunningPlatform,
  slug: string,
  fleet: string,
  speed = 20,
  spec: Record<string, unknown> = {},
  start: Record<string, unknown> = {},
): Promise<string> {
  const token = await approvedToken(p, slug, fleet, spec);
  const started = await call(p.url, "POST", `/bots/${slug}/paper/start`, {
    approved_promotion: token,
    speed,
    ...start,
  });
  expect(started.status, JSON.stringify(started.body)).toBe(202);
  return started.body.task_id;
}

/**
 * A bot created by alice and promoted with four eyes (alice submits, bob approves); answers the
 * ApprovedPromotion token. `spec` adds to the bot's spec; `before` runs between the bot's
 * creation and its promotion (a backtest, say).
 */
export async function approvedToken(
  p: RunningPlatform,
  slug: string,
  fleet: string,
  spec: Record<string, unknown> = {},
  before?: () => Promise<void>,
): Promise<string> {
  const bot = (
    await call(
      p.url,
      "POST",
      "/bots",
      {
        name: slug,
        slug,
        kind: "trading",
        fleet,
        strategy: { family: "ma_crossover", parameters: { fast: 3, slow: 8 } },
        ...spec,
      },
      as("alice"),
    )
  ).body;
  await eventually(
    `the promotion and killswitch services learn of bot ${slug}`,
    async () =>
      (
        await sql<{
          versions: number;
          bots: number;
        }>`select (select count(*)::int from promotion.known_bot_versions where slug = ${slug}) as versions,
                  (select count(*)::int from killswitch.known_bots where slug = ${slug}) as bots`.execute(
          p.platform.db.db,
        )
      ).rows[0]!,
    (r) => r.versions > 0 && r.bots > 0,
  );
  await before?.();
  const submitted = await call(
    p.url,
    "POST",
    "/promotion/requests",
    {
      request_id: `ks-${slug}`,
      kind: "strategy",
      artifact: { bot_ref: slug, version: 1, version_hash: bot.spec_hash },
      validation: { verdict: "PASS" },
      risk: { decision: "APPROVE" },
    },
    as("alice"),
  );
  expect(submitted.body.status).toBe("pending");
  const token = (await call(p.url, "POST", `/promotion/requests/ks-${slug}/approve`, {}, as("bob")))
    .body.approved_promotion;
  await eventually(
    `promotion request ks-${slug} is promoted`,
    () => call(p.url, "GET", `/promotion/requests/ks-${slug}`),
    (r) => r.body.status === "promoted",
  );
  return token as string;
}

export const statusOf = async (p: RunningPlatform, slug: string) =>
  (await call(p.url, "GET", `/bots/${slug}/deployments`)).body.items[0].status as string;
export const phaseOf = async (p: RunningPlatform, slug: string) =>
  (await call(p.url, "GET", `/bots/${slug}/state/snapshot`)).body.metrics.phase as string;
