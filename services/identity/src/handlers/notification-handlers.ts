import { create, type JsonObject } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import { Code, type HandlerContext, type ServiceImpl } from "@connectrpc/connect";
import type { Kysely } from "kysely";
import {
  CreateWebhookSubscriptionResponseSchema,
  DeleteWebhookSubscriptionResponseSchema,
  EventStreamItemSchema,
  ListWebhookDeadLettersResponseSchema,
  ListWebhookDeliveriesResponseSchema,
  ListWebhookSubscriptionsResponseSchema,
  NotificationService,
  WebhookDeliverySchema,
  WebhookSubscriptionSchema,
  type EventStreamItem,
  type WebhookDelivery,
} from "@svc/gen/svc/identity/v1/identity_pb.js";
import { principalOf, type Principal } from "@svc/lib/auth";
import { CALL_DEADLINES_MS, withDeadline } from "@svc/lib/deadline";
import { svcError } from "@svc/lib/errors";
import { EVENT_TYPES, BUILT_EVENT_TYPES, mayHear } from "../notifications/event-catalog.js";
import type { EventSignal } from "../notifications/event-signal.js";
import { checkTargetUrl, TargetRefused } from "../notifications/target-url.js";
import { sealNewWebhookSecret } from "../notifications/webhook-secret.js";
import type { IdentityDatabase } from "../store/identity.table.js";
import * as repo from "../store/notifications.repository.js";
import type { KekRing } from "../vault/kek.js";

/** Deliveries and dead letters answered at once: the newest. */
const LIST_LIMIT = 100;
/** The gateway's mark of a caller that reads server-sent events (gateway/src/transcode). */
const EVENT_STREAM_HEADER = "x-svc-event-stream";
/** How long before its deadline a stream ends by itself. */
const STREAM_END_MARGIN_MS = 2_000;
/** How often a stream looks for events another identity process recorded. */
const STREAM_POLL_MS = 1_000;

/** The org a caller's subscriptions belong to: its token's org, or none (local auth). */
const orgOf = (p: Principal) => p.orgId ?? "";
const local = (p: Principal) => p.actorType === "local";

/**
 * The NotificationService RPCs: an org's webhook subscriptions, their deliveries and dead
 * letters, and the event stream (docs/notifications.md).
 */
export function createNotificationHandlers(deps: {
  db: Kysely<IdentityDatabase>;
  kekRing: KekRing;
  allowHttpLoopback: boolean;
  timeoutMs: number;
  signal: EventSignal;
}): ServiceImpl<typeof NotificationService> {
  const { db } = deps;
  const t = <T>(work: Promise<T>) => withDeadline(work, deps.timeoutMs, "database");

  const checkTypes = (types: string[], p: Principal): string[] => {
    const unique = [...new Set(types.map((x) => x.trim()))];
    for (const type of unique) {
      const known = EVENT_TYPES[type];
      if (!known)
        throw svcError(
          Code.InvalidArgument,
          "unknown_event_type",
          `"${type}" is not an event type; the types are ${Object.keys(EVENT_TYPES).join(", ")}`,
          { field: "event_types", value: type, allowed: Object.keys(EVENT_TYPES) },
        );
      if (!known.source)
        throw svcError(
          Code.Unimplemented,
          "event_type_not_built",
          `"${type}" is not built yet: ${known.missing}; the types delivered today are ${BUILT_EVENT_TYPES.join(", ")}`,
          { field: "event_types", value: type, built: BUILT_EVENT_TYPES },
        );
      if (!mayHear(type, p.scopes, local(p)))
        throw svcError(
          Code.PermissionDenied,
          "missing_scope",
          `"${type}" events need the ${known.scope} scope, which this token does not hold`,
          { field: "event_types", value: type, scope: known.scope },
        );
    }
    return unique;
  };

  const deliveriesOut = async (rows: repo.DeliveryRow[]): Promise<WebhookDelivery[]> => {
    const attempts = await t(
      repo.attemptsOf(
        db,
        rows.map((r) => r.id),
      ),
    );
    return rows.map((r) =>
      create(WebhookDeliverySchema, {
        id: r.id,
        subscriptionId: r.subscription_id,
        eventId: r.event_id,
        eventType: r.event_type,
        status: r.status,
        attempts: r.attempts,
        nextAttemptAt: r.status === "pending" ? timestampFromDate(r.next_attempt_at) : undefined,
        lastError: r.last_error,
        createdAt: timestampFromDate(r.created_at),
        attemptLog: attempts
          .filter((a) => a.delivery_id === r.id)
          .map((a) => ({
            attempt: a.attempt,
            at: timestampFromDate(a.at),
            statusCode: a.status_code,
            error: a.error,
            durationMs: a.duration_ms,
          })),
      }),
    );
  };

  return {
    async createWebhookSubscription(req, ctx) {
      const p = principalOf(ctx);
      try {
        checkTargetUrl(req.url, { allowHttpLoopback: deps.allowHttpLoopback });
      } catch (err) {
        if (err instanceof TargetRefused)
          throw svcError(Code.InvalidArgument, "webhook_url_refused", err.reason, {
            field: "url",
          });
        throw err;
      }
      const eventTypes = checkTypes(req.eventTypes, p);
      if (!deps.kekRing.on)
        throw svcError(
          Code.Unavailable,
          "vault_unavailable",
          `webhook signing secrets are kept in the vault, which is off: ${deps.kekRing.why}`,
        );
      const made = sealNewWebhookSecret(deps.kekRing);
      const row = await t(
        repo.insertSubscription(db, {
          id: made.id,
          org_id: orgOf(p),
          url: req.url,
          event_types: eventTypes,
          description: req.description,
          kek_id: made.sealed.kekId,
          wrapped_key: made.sealed.wrappedKey,
          ciphertext: made.sealed.ciphertext,
          created_by: p.sub,
        }),
      );
      return create(CreateWebhookSubscriptionResponseSchema, {
        subscription: subscriptionOut(row),
        secret: made.secret,
      });
    },

    async listWebhookSubscriptions(_req, ctx) {
      const rows = await t(repo.subscriptionsOf(db, orgOf(principalOf(ctx))));
      return create(ListWebhookSubscriptionsResponseSchema, { items: rows.map(subscriptionOut) });
    },

    async deleteWebhookSubscription(req, ctx) {
      if (!(await t(repo.deleteSubscription(db, orgOf(principalOf(ctx)), req.subscriptionId))))
        throw subscriptionNotFound(req.subscriptionId);
      return create(DeleteWebhookSubscriptionResponseSchema, {});
    },

    async listWebhookDeliveries(req, ctx) {
      const sub = await t(repo.subscriptionOf(db, orgOf(principalOf(ctx)), req.subscriptionId));
      if (!sub) throw subscriptionNotFound(req.subscriptionId);
      const rows = await t(repo.deliveriesOf(db, sub.id, LIST_LIMIT));
      return create(ListWebhookDeliveriesResponseSchema, { items: await deliveriesOut(rows) });
    },

    async listWebhookDeadLetters(_req, ctx) {
      const rows = await t(repo.deadLettersOf(db, orgOf(principalOf(ctx)), LIST_LIMIT));
      return create(ListWebhookDeadLettersResponseSchema, { items: await deliveriesOut(rows) });
    },

    async replayWebhookDelivery(req, ctx) {
      const org = orgOf(principalOf(ctx));
      const seen = await t(repo.deliveryOf(db, org, req.deliveryId));
      if (!seen)
        throw svcError(
          Code.NotFound,
          "webhook_delivery_not_found",
          `no delivery "${req.deliveryId}" of this org's subscriptions`,
          { delivery_id: req.deliveryId },
        );
      if (!(await t(repo.requeueDead(db, seen.id))))
        throw svcError(
          Code.Aborted,
          "webhook_delivery_not_dead",
          `delivery "${seen.id}" is ${seen.status === "dead" ? "being replayed already" : seen.status}; only a dead letter is replayed`,
          { delivery_id: seen.id, status: seen.status },
        );
      const now = await t(repo.deliveryOf(db, org, seen.id));
      return (await deliveriesOut([now!]))[0]!;
    },

    streamEvents(req, ctx) {
      return streamEvents(req.lastEventId, ctx);
    },
  };

  async function* streamEvents(
    lastEventId: string,
    ctx: HandlerContext,
  ): AsyncGenerator<EventStreamItem> {
    const p = principalOf(ctx);
    const follows = ctx.requestHeader.get(EVENT_STREAM_HEADER) === "1";
    // The call's deadline when the transport carries one; a long call's otherwise (the in-process
    // hop of all-in-one does not pass a stream's deadline on).
    const endsAt =
      Date.now() +
      Math.min(ctx.timeoutMs() ?? Infinity, CALL_DEADLINES_MS.long) -
      STREAM_END_MARGIN_MS;
    let cursor = lastEventId || (await t(repo.lastEventSeq(db)));
    yield create(EventStreamItemSchema, {
      kind: { case: "ready", value: { resumedAfter: lastEventId } },
    });
    while (!ctx.signal.aborted) {
      const rows = await t(repo.eventsAfter(db, cursor, 100));
      for (const e of rows) {
        // PGlite reads a bigint as a number, Postgres as a string.
        cursor = String(e.seq);
        if (!mayHear(e.type, p.scopes, local(p))) continue;
        yield create(EventStreamItemSchema, {
          kind: {
            case: "notification",
            value: {
              streamId: cursor,
              id: e.id,
              type: e.type,
              timestamp: timestampFromDate(e.occurred_at),
              data: e.data as JsonObject,
            },
          },
        });
      }
      // A caller that waits for one JSON answer (no Accept: text/event-stream) gets what is
      // there after its last id, now, rather than everything at the deadline.
      if (!follows && rows.length < 100) return;
      // End cleanly before the call's deadline, rather than with a deadline error: EventSource
      // reconnects with Last-Event-ID and misses nothing.
      const left = endsAt - Date.now();
      if (left <= 0) return;
      if (rows.length === 0) await deps.signal.next(Math.min(STREAM_POLL_MS, left), ctx.signal);
    }
  }
}

function subscriptionOut(r: repo.SubscriptionRow) {
  return create(WebhookSubscriptionSchema, {
    id: r.id,
    orgId: r.org_id,
    url: r.url,
    eventTypes: r.event_types,
    description: r.description,
    createdBy: r.created_by,
    createdAt: timestampFromDate(r.created_at),
  });
}

const subscriptionNotFound = (id: string) =>
  svcError(
    Code.NotFound,
    "webhook_subscription_not_found",
    `no webhook subscription "${id}" in this org`,
    { subscription_id: id },
  );
