import { fromBinary } from "@bufbuild/protobuf";
import type { Kysely } from "kysely";
import {
  PromotionApprovedSchema,
  PromotionRevokedSchema,
} from "@svc/gen/svc/events/v1/events_pb.js";
import { processOnce, type BusMessage, type BusSubscription, type EventBus } from "@svc/lib/bus";
import {
  applyAllocation,
  botsTradingAllocation,
  revokeAllocation,
} from "../store/allocations.repository.js";
import type { BotsDatabase } from "../store/bots.table.js";
import {
  activateArtifact,
  announceActivated,
  revokeArtifact,
} from "../store/live-artifacts.repository.js";

const CONSUMER = "bots-promotion-events";

/**
 * The live plane's side of the crossing, once per event: an approved artifact becomes live
 * eligible, an approved allocation's capital is applied to its bots and fleets, and either is
 * announced (the promotion service then finalizes the request to promoted); a revoked one stops
 * being live eligible, or its capital is withdrawn, and what runs on it halts.
 */
export function consumePromotionEvents(deps: {
  bus: EventBus;
  /** The bots schema's database (schemaDb), so the consumer's transaction is scoped to it. */
  db: Kysely<BotsDatabase>;
  schema: string;
  onRevoked: (botId: string, requestId: string) => Promise<void>;
}): Promise<BusSubscription> {
  return deps.bus.subscribe("svc.promotion.>", { durable: CONSUMER }, async (m: BusMessage) => {
    let revoked: { botIds: string[]; requestId: string } | undefined;
    await processOnce(deps.db, deps.schema, CONSUMER, m.id, async (trx) => {
      switch (m.headers["svc-event-type"]) {
        case PromotionApprovedSchema.typeName: {
          const e = fromBinary(PromotionApprovedSchema, m.data);
          const activation = {
            requestId: e.requestId,
            botId: e.botRef,
            version: e.version,
            versionHash: e.versionHash,
          };
          if (e.botRef) await activateArtifact(trx, deps.schema, activation);
          else if (
            (await applyAllocation(
              trx,
              e.requestId,
              e.capital,
              (e.limits ?? {}) as Record<string, unknown>,
            )) > 0
          )
            await announceActivated(trx, deps.schema, activation);
          return;
        }
        case PromotionRevokedSchema.typeName: {
          const e = fromBinary(PromotionRevokedSchema, m.data);
          if (e.botRef) {
            await revokeArtifact(trx, e.requestId);
            revoked = { botIds: [e.botRef], requestId: e.requestId };
          } else if (await revokeAllocation(trx, e.requestId)) {
            revoked = {
              botIds: await botsTradingAllocation(trx, e.requestId),
              requestId: e.requestId,
            };
          }
          return;
        }
      }
    });
    // After the commit: what runs a revoked artifact or capital halts (a redelivery finds nothing left to halt).
    for (const botId of revoked?.botIds ?? []) await deps.onRevoked(botId, revoked!.requestId);
  });
}
