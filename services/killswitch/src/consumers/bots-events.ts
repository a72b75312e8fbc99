import { fromBinary } from "@bufbuild/protobuf";
import type { Kysely } from "kysely";
import {
  BotCreatedSchema,
  BotDeletedSchema,
  BotVersionCreatedSchema,
} from "@svc/gen/svc/events/v1/events_pb.js";
import { processOnce, type BusSubscription, type EventBus } from "@svc/lib/bus";
import { forgetKnownBot, upsertKnownBot } from "../store/killswitch.repository.js";
import type { KillSwitchDatabase } from "../store/killswitch.table.js";

const CONSUMER = "killswitch-bots-events";

/** Keeps the bot slugs and fleets a bot-scope switch may name, from the bots service's events. */
export function consumeBotsEvents(deps: {
  bus: EventBus;
  /** The killswitch schema's database (schemaDb). */
  db: Kysely<KillSwitchDatabase>;
  schema: string;
}): Promise<BusSubscription> {
  return deps.bus.subscribe("svc.bots.>", { durable: CONSUMER }, async (m) => {
    await processOnce(deps.db, deps.schema, CONSUMER, m.id, async (trx) => {
      const type = m.headers["svc-event-type"];
      if (type === BotCreatedSchema.typeName || type === BotVersionCreatedSchema.typeName) {
        const e =
          type === BotCreatedSchema.typeName
            ? fromBinary(BotCreatedSchema, m.data)
            : fromBinary(BotVersionCreatedSchema, m.data);
        await upsertKnownBot(trx, { bot_id: e.botId, slug: e.slug, fleet: e.fleet });
      } else if (type === BotDeletedSchema.typeName) {
        await forgetKnownBot(trx, fromBinary(BotDeletedSchema, m.data).botId);
      }
    });
  });
}
