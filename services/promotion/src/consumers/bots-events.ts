import { fromBinary } from "@bufbuild/protobuf";
import type { Kysely, Transaction } from "kysely";
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
 * Consumes the bots service's events, once each: bot versions become known to the gates, and an
 * ArtifactActivated from the live plane finalizes an approved request to promoted.
 */
export function consumeBotsEvents(deps: {
  bus: EventBus;
  db: Kysely<any>;
  schema: string;
}): Promise<BusSubscription> {
  return deps.bus.subscribe("svc.bots.>", { durable: CONSUMER }, async (m: BusMessage) => {
    await processOnce(deps.db, deps.schema, CONSUMER, m.id, async (raw) => {
      const trx = raw.withSchema(deps.schema) as unknown as Transaction<PromotionDatabase>;
      switch (m.headers["svc-event-type"]) {
        case BotCreatedSchema.typeName: {
          const e = fromBinary(BotCreatedSchema, m.data);
          await repo.upsertKnownVersion(trx, {
            bot_id: e.botId,
            version: e.version,
            slug: e.slug,
            fleet: e.fleet,
            spec_hash: e.specHash,
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
          });
          // Slug and fleet follow the newest version for every version of the bot.
          await trx
            .updateTable("known_bot_versions")
            .set({ slug: e.slug, fleet: e.fleet })
            .where("bot_id", "=", e.botId)
            .execute();
          return;
        }
        case BotDeletedSchema.typeName:
          await repo.forgetBot(trx, fromBinary(BotDeletedSchema, m.data).botId);
          return;
        case TrialRecordedSchema.typeName: {
          const e = fromBinary(TrialRecordedSchema, m.data);
          await trx
            .insertInto("trials")
            .values({
              trial_id: e.trialId,
              bot_id: e.botId,
              version: e.version,
              spec_hash: e.specHash,
              strategy_family: e.strategyFamily,
              daily_returns: JSON.stringify(e.dailyReturns),
            })
            .onConflict((oc) => oc.column("trial_id").doNothing())
            .execute();
          return;
        }
        case ArtifactActivatedSchema.typeName: {
          const e = fromBinary(ArtifactActivatedSchema, m.data);
          await trx
            .updateTable("promotion_requests")
            .set({ status: "promoted" })
            .where("request_id", "=", e.requestId)
            .where("status", "=", "approved")
            .execute();
          return;
        }
      }
    });
  });
}
