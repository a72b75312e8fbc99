import { randomBytes, randomUUID } from "node:crypto";
import { fromBinary } from "@bufbuild/protobuf";
import { sql, type Kysely } from "kysely";
import pg from "pg";
import type { DevVenue } from "@svc/dev-venue";
import { AuditRecordedSchema } from "@svc/gen/svc/events/v1/events_pb.js";
import { migrateSchema, openDatabase, schemaDb, type Database } from "@svc/lib/db";
import {
  ephemeralStatementKeyPem,
  signStatement,
  statementKeysFromPem,
} from "@svc/lib/signed-statement";
import { migrations } from "../../migrations/index.js";
import { assertApprovedPromotion } from "../handlers/approved-promotion.js";
import { FixVenue } from "../execution/venues/fix/fix-venue.js";
import { PASSWORD, USER } from "../execution/venues/venue-test-support.js";
import type { BotsDatabase } from "../store/bots.table.js";
import { taskEvents } from "../store/events.repository.js";
import { LiveRunner, type LiveRunnerOptions } from "./live-runner.js";

const adminUrl = () =>
  process.env.SVC_TEST_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";

/** A fresh database on the real Postgres server with the bots schema migrated; `drop` removes it. */
export async function botsDatabase(): Promise<{
  db: Kysely<BotsDatabase>;
  url: string;
  drop(): Promise<void>;
}> {
  const name = `svc_test_${randomBytes(6).toString("hex")}`;
  const admin = new pg.Client({ connectionString: adminUrl() });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(adminUrl());
  url.pathname = `/${name}`;
  const database: Database = await openDatabase({ url: url.toString() });
  await migrateSchema(database.db, "bots", migrations);
  return {
    db: schemaDb<BotsDatabase>(database.db, "bots"),
    url: url.toString(),
    async drop() {
      await database.close();
      const c = new pg.Client({ connectionString: adminUrl() });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await c.end();
    },
  };
}

const keys = ephemeralStatementKeyPem();
/** The promotion service's public key the tokens of `approvedBot` verify with. */
export const promotionPublicKeyPem = keys.publicKeyPem;
const { privateKey } = statementKeysFromPem({ privateKeyPem: keys.privateKeyPem });
const { publicKey } = statementKeysFromPem({ publicKeyPem: keys.publicKeyPem });

/** A trading bot row and an ApprovedPromotion token for its version, signed as the promotion service signs. */
export async function approvedBot(db: Kysely<BotsDatabase>, spec: object = {}) {
  const id = randomUUID();
  const bot = {
    id,
    slug: `live-${id.slice(0, 6)}`,
    specHash: randomBytes(32).toString("hex"),
  };
  await db
    .insertInto("bots")
    .values({
      id,
      slug: bot.slug,
      name: bot.slug,
      kind: "trading",
      status: "active",
      fleet: null,
      current_version: 1,
      spec_hash: bot.specHash,
      spec: JSON.stringify(spec),
      created_by: "tester",
    })
    .execute();
  const token = await signStatement(
    privateKey!,
    { request_id: randomUUID(), bot_id: id, version: 1, version_hash: bot.specHash },
    { audience: "svc:bots", ttlSeconds: 300 },
  );
  return { bot, token };
}

/** A live runner of `bot` against the dev venue over FIX, as a runner workload builds it. */
export function liveRunner(
  db: Kysely<BotsDatabase>,
  venue: DevVenue,
  b: Awaited<ReturnType<typeof approvedBot>>,
  o: Partial<LiveRunnerOptions> & Pick<LiveRunnerOptions, "strategy">,
): LiveRunner {
  return new LiveRunner({
    mode: "live",
    bot: b.bot,
    taskId: randomUUID(),
    approvedPromotion: b.token,
    verifyPromotion: (token, bot) =>
      assertApprovedPromotion({ db, schema: "bots", publicKey }, token, bot),
    venue: (report) =>
      new FixVenue({
        port: venue.port,
        username: USER,
        password: PASSWORD,
        heartbeatSeconds: 1,
        reconnectDelayMs: 100,
        deadlineMs: 2_000,
        report,
      }),
    db,
    schema: "bots",
    symbol: "TEST",
    costs: { feeBps: 0, slippageBps: 0, positionSize: 1 },
    initialCash: 10_000,
    barMs: 50,
    ...o,
  });
}

/** The workload_run audit entries in the bots outbox, oldest first. */
export async function workloadRuns(db: Kysely<BotsDatabase>, slug: string) {
  const rows = await sql<{
    payload: Buffer;
  }>`select payload from bots.outbox where type = ${AuditRecordedSchema.typeName} order by seq`.execute(
    db,
  );
  return rows.rows
    .map((r) => fromBinary(AuditRecordedSchema, new Uint8Array(r.payload)))
    .filter((a) => a.action === "workload_run" && a.resource === `bot/${slug}`)
    .map((a) => ({
      outcome: a.outcome,
      ...(a.details as Record<string, unknown>),
    }));
}

/** The events of a task, as `{type, data}`. */
export async function eventsOf(db: Kysely<BotsDatabase>, taskId: string) {
  return (await taskEvents(db, taskId)).map((e) => ({ type: e.type, data: e.data }));
}
