import { fromBinary } from "@bufbuild/protobuf";
import type { Kysely } from "kysely";
import {
  BotCreatedSchema,
  BotDeletedSchema,
  BotVersionCreatedSchema,
} from "@svc/gen/svc/events/v1/events_pb.js";
import { processOnce, type BusSubscription, type EventBus } from "@svc/lib/bus";

const CONSUMER = "killswitch-bots-events";

/** Keeps the bot slugs and fleets a bot-scope switch may name, from the bots service's events. */
export function consumeBotsEvents(deps: {
  bus: EventBus;
  db: Kysely<any>;
  schema: string;
}): Promise<BusSubscription> {
  return deps.bus.subscribe("svc.bots.>", { durable: CONSUMER }, async (m) => {
    await processOnce(deps.db, deps.schema, CONSUMER, m.id, async (raw) => {
      const trx = raw.withSchema(deps.schema);
      const type = m.headers["svc-event-type"];
      if (type === BotCreatedSchema.typeName || type === BotVersionCreatedSchema.typeName) {
        const e =
          type === BotCreatedSchema.typeName
            ? fromBinary(BotCreatedSchema, m.data)
            : fromBinary(BotVersionCreatedSchema, m.data);
        await trx
          .insertInto("known_bots")
          .values({ bot_id: e.botId, slug: e.slug, fleet: e.fleet })
          .onConflict((oc) => oc.column("bot_id").doUpdateSet({ slug: e.slug, fleet: e.fleet }))
          .execute();
      } else if (type === BotDeletedSchema.typeName) {
        await trx
          .deleteFrom("known_bots")
          .where("bot_id", "=", fromBinary(BotDeletedSchema, m.data).botId)
          .execute();
      }
    });
  });
}
