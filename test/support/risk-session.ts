import { sql } from "kysely";
import { expect } from "vitest";
import type { RunningPlatform } from "@svc/all-in-one";
import { as } from "./paper.js";
import { call } from "./test-platform.js";
import { eventually } from "./until.js";

export interface StoredEvent {
  seq: string;
  type: string;
  data: Record<string, unknown>;
}

/**
 * A trading bot with the given risk limits (and engine settings), through an approved promotion
 * (alice submits, bob approves), into a running paper session over the bundled daily BTC-USD
 * bars; returns the task id. `speed` 0 runs at full speed.
 */
export async function riskSession(
  p: RunningPlatform,
  slug: string,
  risk: Record<string, unknown>,
  opts: {
    fleet?: string;
    engine?: Record<string, unknown>;
    speed?: number;
    /** Goes short when the fast average is below the slow one: always in the market, a flip two orders. */
    allowShort?: boolean;
  } = {},
): Promise<string> {
  const created = await call(
    p.url,
    "POST",
    "/bots",
    {
      name: slug,
      slug,
      kind: "trading",
      ...(opts.fleet ? { fleet: opts.fleet } : {}),
      universe: { symbols: ["BTC-USD"] },
      strategy: {
        family: "ma_crossover",
        parameters: { fast: 3, slow: 8, allow_short: opts.allowShort === true },
      },
      engine: { initial_cash: 100000, position_size: 1, ...opts.engine },
      risk,
    },
    as("alice"),
  );
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  await eventually(
    `the promotion service learns of bot ${slug}`,
    async () =>
      (
        await sql<{
          n: number;
        }>`select count(*)::int as n from promotion.known_bot_versions where slug = ${slug}`.execute(
          p.platform.db.db,
        )
      ).rows[0]!.n,
    (n) => n > 0,
  );
  await call(
    p.url,
    "POST",
    "/promotion/requests",
    {
      request_id: `risk-${slug}`,
      kind: "strategy",
      artifact: { bot_ref: slug, version: 1, version_hash: created.body.spec_hash },
      validation: { verdict: "PASS" },
      risk: { decision: "APPROVE" },
    },
    as("alice"),
  );
  const token = (
    await call(p.url, "POST", `/promotion/requests/risk-${slug}/approve`, {}, as("bob"))
  ).body.approved_promotion;
  await eventually(
    `promotion request risk-${slug} is promoted`,
    () => call(p.url, "GET", `/promotion/requests/risk-${slug}`),
    (r) => r.body.status === "promoted",
  );
  const started = await call(p.url, "POST", `/bots/${slug}/paper/start`, {
    approved_promotion: token,
    speed: opts.speed ?? 5000,
  });
  expect(started.status, JSON.stringify(started.body)).toBe(202);
  return started.body.task_id;
}

/** Every event the bot recorded so far, in order. */
export async function eventsOf(p: RunningPlatform, slug: string): Promise<StoredEvent[]> {
  const all: StoredEvent[] = [];
  for (let after = 0; ;) {
    const page = await call(
      p.url,
      "GET",
      `/bots/${slug}/state/events?after_seq=${after}&limit=1000`,
    );
    const items = page.body.items as StoredEvent[];
    all.push(...items);
    if (items.length < 1000) return all;
    after = Number(items.at(-1)!.seq);
  }
}

/** Waits for the bot's first order_rejected record of `control` and returns it. */
export async function rejectionBy(
  p: RunningPlatform,
  slug: string,
  control: string,
  ms = 30_000,
): Promise<StoredEvent> {
  const events = await eventually(
    `bot ${slug} records an order refused by ${control}`,
    () => eventsOf(p, slug),
    (es) => es.some((e) => e.type === "order_rejected" && e.data.check === control),
    ms,
  );
  return events.find((e) => e.type === "order_rejected" && e.data.check === control)!;
}
