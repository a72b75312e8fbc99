import { fromBinary, type JsonObject } from "@bufbuild/protobuf";
import { timestampDate } from "@bufbuild/protobuf/wkt";
import type { Kysely } from "kysely";
import {
  AuditRecordedSchema,
  BotPhase,
  PromotionApprovedSchema,
} from "@svc/gen/svc/events/v1/events_pb.js";
import { AUDIT_SUBJECT } from "@svc/lib/audit";
import type { BusMessage, BusSubscription, EventBus } from "@svc/lib/bus";
import { listenBotPhaseChanged } from "@svc/lib/contracts";
import { withDeadline } from "@svc/lib/deadline";
import { typeOfAudit, type PlatformEventIn } from "../notifications/event-catalog.js";
import { recordEvent } from "../store/notifications.repository.js";
import type { IdentityDatabase } from "../store/identity.table.js";

/** Durable consumers of their own: the audit trail's consumer keeps its pace and its failures. */
const AUDIT_CONSUMER = "identity-notifications-audit";
const PROMOTION_CONSUMER = "identity-notifications-promotion";
const PROMOTION_APPROVED = "svc.promotion.approved";

/**
 * Turns the platform's events into notification events (docs/notifications.md): each is recorded
 * once with its webhook deliveries in one transaction, then `recorded` wakes this process's
 * streams. A failed write throws and the bus redelivers (durable events); a broadcast (a bot's
 * halt) is not redelivered, so one lost while identity is down is not heard of.
 */
export async function consumeNotificationEvents(deps: {
  bus: EventBus;
  db: Kysely<IdentityDatabase>;
  timeoutMs: number;
  recorded: () => void;
  log: { warn(obj: object, msg: string): void };
}): Promise<BusSubscription> {
  const record = async (ev: PlatformEventIn) => {
    const seq = await withDeadline(
      deps.db.transaction().execute((trx) => recordEvent(trx, ev)),
      deps.timeoutMs,
      "database",
    );
    if (seq) deps.recorded();
  };

  const audit = await deps.bus.subscribe(
    AUDIT_SUBJECT,
    { durable: AUDIT_CONSUMER },
    async (m: BusMessage) => {
      const e = fromBinary(AuditRecordedSchema, m.data);
      const type = typeOfAudit(e.action, e.outcome);
      if (!type) return;
      await record({
        id: m.id,
        type,
        occurredAt: e.occurredAt ? timestampDate(e.occurredAt) : new Date(),
        data: {
          resource: e.resource,
          actor: e.actor?.subject ?? "",
          ...((e.details ?? {}) as JsonObject),
        },
      });
    },
  );
  const promotion = await deps.bus.subscribe(
    PROMOTION_APPROVED,
    { durable: PROMOTION_CONSUMER },
    async (m: BusMessage) => {
      const e = fromBinary(PromotionApprovedSchema, m.data);
      await record({
        id: m.id,
        type: "promotion.approved",
        occurredAt: e.approvedAt ? timestampDate(e.approvedAt) : new Date(),
        data: {
          request_id: e.requestId,
          bot_ref: e.botRef,
          version: e.version,
          version_hash: e.versionHash,
          approver: e.approver,
        },
      });
    },
  );
  const phases = listenBotPhaseChanged(deps.bus, (e) => {
    if (e.phase !== BotPhase.STOPPED) return;
    const at = e.at ? timestampDate(e.at) : new Date();
    record({
      // One halt of one session is one event, however many identity processes hear it.
      id: `bot-halted:${e.taskId}:${at.getTime()}`,
      type: "bot.halted",
      occurredAt: at,
      data: { bot_id: e.botId, task_id: e.taskId },
    }).catch((err: unknown) =>
      deps.log.warn({ err, task_id: e.taskId }, "a bot's halt was not recorded as an event"),
    );
  });
  return {
    async stop() {
      await Promise.all([audit.stop(), promotion.stop(), phases.stop()]);
    },
  };
}
