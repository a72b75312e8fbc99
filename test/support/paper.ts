import { sql } from "kysely";
import { expect } from "vitest";
import type { RunningPlatform } from "@svc/all-in-one";
import { call } from "./test-platform.js";
import { until } from "./until.js";

export const as = (user: string) => ({ "x-svc-local-user": user });

/** A bot through promotion (alice submits, bob approves) into a running paper session; returns its task id. */
export async function approvedSession(
  p: RunningPlatform,
  slug: string,
  fleet: string,
  speed = 20,
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
      },
      as("alice"),
    )
  ).body;
  await until(
    () =>
      sql<{
        n: number;
      }>`select count(*)::int as n from killswitch.known_bots where slug = ${slug}`.execute(
        p.platform.db.db,
      ),
    (r) => r.rows[0]!.n > 0,
  );
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
  const started = await call(p.url, "POST", `/bots/${slug}/paper/start`, {
    approved_promotion: token,
    speed,
  });
  expect(started.status).toBe(202);
  return started.body.task_id;
}

export const statusOf = async (p: RunningPlatform, slug: string) =>
  (await call(p.url, "GET", `/bots/${slug}/deployments`)).body.items[0].status as string;
export const phaseOf = async (p: RunningPlatform, slug: string) =>
  (await call(p.url, "GET", `/bots/${slug}/state/snapshot`)).body.metrics.phase as string;
