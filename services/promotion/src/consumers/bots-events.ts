import { fromBinary } from "@bufbuild/protobuf";
import type { Kysely } from "kysely";
import {
  ArtifactActivatedSchema,
  BotCreatedSchema,
  BotDeletedSchema,
  BotVersionCreatedSchema,
  TrialRecordedSchema,
} from "@svc/gen/svc/events/v1/events_pb.js";
import { processOnce, type BusMessage, type EventBus, type BusSubscription } from "@svc/lib/bus";
import * as repo from "../store/promotion.repository.js";
import type { PromotionDatabase } from "../store/promotion.table.js";

const CONSUMER = "promotion-bots-events";

/**
 * A version's models as the projection keeps them: JSON of name to digest with the names sorted
 * (one text per set, so equal sets compare equal); null when it runs none.
 */
export function modelDigestsText(digests: Record<string, string> | undefined): string | null {
  const names = Object.keys(digests ?? {}).sort();
  if (names.length === 0) return null;
  return JSON.stringify(Object.fromEntries(names.map((n) => [n, digests![n]!])));
}

/**
 * Consumes the bots service's events, once each: bot versions become known to the gates, and an
 * ArtifactActivated from the live plane finalizes an approved request to promoted.
 */
export function consumeBotsEvents(deps: {
  bus: EventBus;
  /** The promotion schema's database (schemaDb). */
  db: Kysely<PromotionDatabase>;
  schema: string;
}): Promise<BusSubscription> {
  return deps.bus.subscribe("svc.bots.>", { durable: CONSUMER }, async (m: BusMessage) => {
    await processOnce(deps.db, deps.schema, CONSUMER, m.id, async (trx) => {
      switch (m.headers["svc-event-type"]) {
        case BotCreatedSchema.typeName: {
          const e = fromBinary(BotCreatedSchema, m.data);
          await repo.upsertKnownVersion(trx, {
            bot_id: e.botId,
            version: e.version,
            slug: e.slug,
            fleet: e.fleet,
            spec_hash: e.specHash,
            strategy_digest: e.strategyDigest || null,
            model_digests: modelDigestsText(e.modelDigests),
          });
          return;
        }
        case BotVersionCreatedSchema.typeName: {
          const e = fromBinary(BotVersionCreatedSchema, m.data);
          await repo.upsertKnownVersion(trx, {
            bot_id: e.botId,
            version: e.version,
            slug: e.slug,
            fleet: e.fleet,
            spec_hash: e.specHash,
            strategy_digest: e.strategyDigest || null,
            model_digests: modelDigestsText(e.modelDigests),
          });
          await repo.renameBot(trx, e.botId, { slug: e.slug, fleet: e.fleet });
          return;
        }
        case BotDeletedSchema.typeName:
          await repo.forgetBot(trx, fromBinary(BotDeletedSchema, m.data).botId);
          return;
        case TrialRecordedSchema.typeName: {
          const e = fromBinary(TrialRecordedSchema, m.data);
          await repo.insertTrial(trx, {
            trial_id: e.trialId,
            bot_id: e.botId,
            version: e.version,
            spec_hash: e.specHash,
            strategy_family: e.strategyFamily,
            // Since TrialRecorded names the trial only, its returns are read when a gate needs
            // them (ledger-returns.ts); an event of an earlier release still carries them.
            daily_returns: e.dailyReturns.length > 0 ? e.dailyReturns : null,
            data_source: e.dataSource,
            sweep_id: e.sweepId,
          });
          return;
        }
        case ArtifactActivatedSchema.typeName:
          await repo.markPromoted(trx, fromBinary(ArtifactActivatedSchema, m.data).requestId);
          return;
      }
    });
  });
}
