import type { Kysely } from "kysely";
import { isForeignKeyViolation } from "@svc/lib/db";
import { withDeadline } from "@svc/lib/deadline";
import type { IdentityDatabase } from "../store/identity.table.js";
import { claimDue, recordAttempt, type DueDelivery } from "../store/notifications.repository.js";
import type { KekRing } from "../vault/kek.js";
import { retryDelayMs } from "./backoff.js";
import { postWebhook } from "./post-webhook.js";
import { openWebhookSecret } from "./webhook-secret.js";
import { webhookHeaders } from "./standard-webhooks.js";

/** SVC_WEBHOOK_*: how deliveries are made and retried. */
export interface WebhookSettings {
  allowHttpLoopback: boolean;
  deliveryTimeoutMs: number;
  maxAttempts: number;
  retryBaseMs: number;
  retryMaxMs: number;
  pollIntervalMs: number;
}

/** Deliveries sent at once by one process. */
const BATCH = 16;

export interface Dispatcher {
  /** Sends what is due now (tests and the loop). */
  pass(): Promise<number>;
  stop(): Promise<void>;
}

/** The body every receiver gets: the Standard Webhooks payload shape (type, timestamp, data). */
export function webhookBody(d: Pick<DueDelivery, "event_type" | "occurred_at" | "data">): string {
  return JSON.stringify({
    type: d.event_type,
    timestamp: d.occurred_at.toISOString(),
    data: d.data,
  });
}

/**
 * Sends due deliveries every `pollIntervalMs`: each attempt signed afresh, a 2xx delivers it,
 * anything else is retried after an exponential, jittered wait, and the `maxAttempts`th failure
 * makes it a dead letter a person can list and replay. Claims are leased, so several identity
 * processes share the work without sending one delivery twice at once.
 */
export function startDispatcher(deps: {
  db: Kysely<IdentityDatabase>;
  kekRing: KekRing;
  settings: WebhookSettings;
  timeoutMs: number;
  log: { warn(obj: object, msg: string): void };
}): Dispatcher {
  const s = deps.settings;
  // A claim outlives the attempt's deadline, so a slow receiver is never sent to twice at once.
  const leaseMs = s.deliveryTimeoutMs + 30_000;

  async function attempt(d: DueDelivery): Promise<void> {
    const n = d.attempts + 1;
    const secret = openWebhookSecret(deps.kekRing, d);
    const body = webhookBody(d);
    const outcome = secret.ok
      ? await postWebhook(d.url, body, webhookHeaders(secret.secret, d.id, body, Date.now()), {
          allowHttpLoopback: s.allowHttpLoopback,
          deadlineMs: s.deliveryTimeoutMs,
        })
      : { statusCode: 0, error: secret.why, durationMs: 0 };
    const ok = outcome.statusCode >= 200 && outcome.statusCode < 300;
    await withDeadline(
      recordAttempt(deps.db, {
        deliveryId: d.id,
        attempt: n,
        ...outcome,
        next: ok
          ? { status: "delivered" }
          : n >= s.maxAttempts
            ? { status: "dead" }
            : {
                status: "pending",
                inMs: retryDelayMs(n, { baseMs: s.retryBaseMs, maxMs: s.retryMaxMs }),
              },
      }),
      deps.timeoutMs,
      "database",
    );
  }

  let running: Promise<number> | undefined;
  const pass = async (): Promise<number> => {
    if (running) return running;
    running = (async () => {
      const due = await withDeadline(claimDue(deps.db, BATCH, leaseMs), deps.timeoutMs, "database");
      const tried = await Promise.allSettled(due.map((d) => attempt(d)));
      tried.forEach((t, i) => {
        // A subscription deleted while its delivery was tried takes its deliveries along.
        if (t.status === "rejected" && !isForeignKeyViolation(t.reason))
          deps.log.warn(
            { err: t.reason, delivery_id: due[i]!.id },
            "a webhook attempt was not recorded; it is tried again once its claim lapses",
          );
      });
      return due.length;
    })();
    try {
      return await running;
    } finally {
      running = undefined;
    }
  };

  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  const loop = async () => {
    if (stopped) return;
    try {
      // A full batch means more is due: go again at once.
      while (!stopped && (await pass()) === BATCH);
    } catch (err) {
      deps.log.warn({ err }, "a webhook delivery pass failed; the next pass retries");
    }
    if (!stopped) timer = setTimeout(() => void loop(), s.pollIntervalMs);
  };
  timer = setTimeout(() => void loop(), s.pollIntervalMs);
  return {
    pass,
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running?.catch(() => 0);
    },
  };
}
