import { afterAll, describe, expect, it } from "vitest";
import { sql } from "kysely";
import type { RunningPlatform } from "@svc/all-in-one";
import { deleteTestStream } from "@svc/lib/bus/testing-streams";
import { ephemeralStatementKeyPem } from "@svc/lib/signed-statement";
import {
  call,
  createTestDatabase,
  startTestPlatform,
  testNatsNamespace,
  testNatsUrl,
} from "../support/test-platform.js";
import { eventually } from "../support/until.js";

const as = (user: string) => ({ "x-svc-local-user": user });

// The promotion service dies after committing an approval and before relaying it; after the
// restart the event is delivered once and the live plane activates the artifact exactly once.
describe("outbox across a crash, on the real Postgres and NATS JetStream", () => {
  const namespace = testNatsNamespace();
  const keys = ephemeralStatementKeyPem();
  let db: Awaited<ReturnType<typeof createTestDatabase>>;
  let platform: RunningPlatform | undefined;
  const start = async () =>
    startTestPlatform("postgres", {
      SVC_DATABASE_URL: db.url,
      SVC_NATS_URL: testNatsUrl(),
      SVC_NATS_NAMESPACE: namespace,
      SVC_PROMOTION_SIGNING_KEY_PEM: keys.privateKeyPem,
      SVC_PROMOTION_PUBLIC_KEY_PEM: keys.publicKeyPem,
    });

  afterAll(async () => {
    await platform?.close();
    await deleteTestStream(testNatsUrl(), `${namespace.toUpperCase()}_EVENTS`);
    await db?.drop();
  });

  it("delivers promotion.approved once after the restart and activates once", async () => {
    db = await createTestDatabase();
    const first = await start();
    const count = (q: ReturnType<typeof sql<{ n: number }>>) =>
      q.execute(first.platform.db.db).then((r) => r.rows[0]!.n);
    const bot = (
      await call(first.url, "POST", "/bots", { name: "Crash", kind: "trading" }, as("alice"))
    ).body;
    await eventually(
      "the promotion service learns of the bot",
      () => count(sql`select count(*)::int as n from promotion.known_bot_versions`),
      (n) => n > 0,
    );
    await call(
      first.url,
      "POST",
      "/promotion/requests",
      {
        request_id: "crash-1",
        kind: "strategy",
        artifact: { bot_ref: "crash", version: 1, version_hash: bot.spec_hash },
        validation: { verdict: "PASS" },
        risk: { decision: "APPROVE" },
      },
      as("alice"),
    );
    // The crash: the promotion service's relay is gone before the approval commits.
    await first.modules.find((m) => m.name === "promotion")!.stop();
    const approved = await call(
      first.url,
      "POST",
      "/promotion/requests/crash-1/approve",
      {},
      as("bob"),
    );
    expect(approved.body.status).toBe("approved");
    const pending = await count(
      sql`select count(*)::int as n from promotion.outbox where subject = 'svc.promotion.approved' and published_at is null`,
    );
    expect(pending).toBe(1);
    await first.close();

    platform = await start();
    const db2 = platform.platform.db.db;
    await eventually(
      "after the restart, crash-1 is relayed and promoted",
      () => call(platform!.url, "GET", "/promotion/requests/crash-1"),
      (r) => r.body.status === "promoted",
    );
    const activations = await sql<{
      n: number;
    }>`select count(*)::int as n from bots.live_artifacts where request_id = 'crash-1'`.execute(
      db2,
    );
    expect(activations.rows[0]!.n).toBe(1);
    const consumed = await sql<{
      n: number;
    }>`select count(*)::int as n from bots.processed_events where consumer = 'bots-promotion-events'`.execute(
      db2,
    );
    expect(consumed.rows[0]!.n).toBe(1);
    const activatedEvents = await sql<{
      n: number;
    }>`select count(*)::int as n from bots.outbox where subject = 'svc.bots.artifact_activated'`.execute(
      db2,
    );
    expect(activatedEvents.rows[0]!.n).toBe(1);
  });
});
