import { create, toBinary } from "@bufbuild/protobuf";
import type { Kysely, Transaction } from "kysely";
import { ArtifactActivatedSchema } from "@svc/gen/svc/events/v1/events_pb.js";
import { enqueueEvent } from "@svc/lib/bus";
import type { BotsDatabase } from "./bots.table.js";

export interface Activation {
  requestId: string;
  botId: string;
  version: number;
  versionHash: string;
}

/**
 * Makes an approved artifact live eligible and announces it, once per request: whichever comes
 * first, the promotion.approved event or a verified ApprovedPromotion token presented at paper
 * start, activates it; the other finds it done. Returns whether this call activated it.
 */
export async function activateArtifact(
  trx: Transaction<BotsDatabase>,
  schema: string,
  a: Activation,
): Promise<boolean> {
  const inserted = await trx
    .withSchema(schema)
    .insertInto("live_artifacts")
    .values({
      request_id: a.requestId,
      bot_id: a.botId,
      version: a.version,
      version_hash: a.versionHash,
      live_eligible: true,
    })
    .onConflict((oc) => oc.column("request_id").doNothing())
    .returning("request_id")
    .executeTakeFirst();
  if (!inserted) return false;
  await announceActivated(trx, schema, a);
  return true;
}

/** Tells the promotion service the live plane took the request into service (it finalizes it to promoted). */
export async function announceActivated(
  trx: Transaction<BotsDatabase>,
  schema: string,
  a: Activation,
): Promise<void> {
  const activated = create(ArtifactActivatedSchema, {
    requestId: a.requestId,
    botId: a.botId,
    version: a.version,
    versionHash: a.versionHash,
  });
  await enqueueEvent(trx, schema, {
    subject: "svc.bots.artifact_activated",
    type: ArtifactActivatedSchema.typeName,
    payload: toBinary(ArtifactActivatedSchema, activated),
  });
}

/** Whether the live plane holds the request's artifact live eligible; undefined when it has not seen it. */
export async function liveEligible(
  db: Kysely<BotsDatabase> | Transaction<BotsDatabase>,
  requestId: string,
): Promise<boolean | undefined> {
  const row = await db
    .selectFrom("live_artifacts")
    .select("live_eligible")
    .where("request_id", "=", requestId)
    .executeTakeFirst();
  return row?.live_eligible;
}

/** Makes a revoked request's artifact not live eligible (again, on a redelivery: no harm). */
export async function revokeArtifact(
  trx: Transaction<BotsDatabase>,
  requestId: string,
): Promise<void> {
  await trx
    .updateTable("live_artifacts")
    .set({ live_eligible: false, revoked_at: new Date() })
    .where("request_id", "=", requestId)
    .execute();
}
