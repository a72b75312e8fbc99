import { fromBinary } from "@bufbuild/protobuf";
import type { Kysely, Transaction } from "kysely";
import { PromotionApprovedSchema, PromotionRevokedSchema } from "@svc/gen/svc/events/v1/events_pb.js";
import { processOnce, type BusMessage, type BusSubscription, type EventBus } from "@svc/lib/bus";
import { activateArtifact } from "../store/live-artifacts.repository.js";

const CONSUMER = "bots-promotion-events";

/**
 * The live plane's side of the crossing, once per event: an approved artifact becomes live
 * eligible and the activation is announced (the promotion service then finalizes the request to
 * promoted); a revoked one stops being live eligible.
 */
export function consumePromotionEvents(deps: { bus: EventBus; db: Kysely<any>; schema: string; onRevoked: (botId: string, requestId: string) => Promise<void> }): Promise<BusSubscription> {
  return deps.bus.subscribe("svc.promotion.>", { durable: CONSUMER }, async (m: BusMessage) => {
    let revokedBot: { botId: string; requestId: string } | undefined;
    await processOnce(deps.db, deps.schema, CONSUMER, m.id, async (trx: Transaction<any>) => {
      const t = trx.withSchema(deps.schema);
      switch (m.headers["svc-event-type"]) {
        case PromotionApprovedSchema.typeName: {
          const e = fromBinary(PromotionApprovedSchema, m.data);
          if (!e.botRef) return; // an allocation has no artifact to activate
          await activateArtifact(trx, deps.schema, { requestId: e.requestId, botId: e.botRef, version: e.version, versionHash: e.versionHash });
          return;
        }
        case PromotionRevokedSchema.typeName: {
          const e = fromBinary(PromotionRevokedSchema, m.data);
          await t.updateTable("live_artifacts").set({ live_eligible: false, revoked_at: new Date() }).where("request_id", "=", e.requestId).execute();
          if (e.botRef) revokedBot = { botId: e.botRef, requestId: e.requestId };
          return;
        }
      }
    });
    // After the commit: what runs a revoked artifact halts (a redelivery finds nothing left to halt).
    if (revokedBot) await deps.onRevoked(revokedBot.botId, revokedBot.requestId);
  });
}
