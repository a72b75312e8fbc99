import type { Command } from "commander";
import { contextOf } from "../context.js";
import type { Io } from "../io.js";
import { fields, table } from "../output.js";
import { declareAt } from "../routes/declare.js";

interface Subscription {
  id: string;
  url: string;
  event_types: string[];
  description: string;
  created_by: string;
  created_at: string;
}

interface Delivery {
  id: string;
  subscription_id: string;
  event_type: string;
  status: string;
  attempts: number;
  next_attempt_at?: string;
  last_error: string;
  created_at: string;
}

const deliveryRows = (items: Delivery[]) =>
  table(
    ["DELIVERY", "EVENT", "STATUS", "ATTEMPTS", "LAST ERROR"],
    items.map((d) => [d.id, d.event_type, d.status, d.attempts, d.last_error]),
  );

/** Webhook subscriptions of the caller's org, their deliveries and dead letters. */
export function registerWebhooks(program: Command, io: Io): void {
  const hooks = program
    .command("webhooks")
    .description("webhook subscriptions: signed deliveries of platform events to your URL");

  hooks
    .command("create")
    .description("subscribe a URL to event types; prints the signing secret, once")
    .requiredOption("--target <url>", "https:// URL of your receiver")
    .requiredOption(
      "--events <types>",
      "comma-separated: killswitch.engaged, killswitch.released, promotion.approved, bot.halted",
    )
    .option("--description <text>", "what the receiver is for")
    .addHelpText(
      "after",
      "\nExample:\n  svc webhooks create --target https://hooks.example.com/svc --events killswitch.engaged,bot.halted\n",
    )
    .action(async (o: { target: string; events: string; description?: string }, cmd: Command) => {
      const ctx = await contextOf(cmd, io);
      const made = await ctx.api.post<{ subscription: Subscription; secret: string }>(
        "/webhooks/subscriptions",
        {
          url: o.target,
          event_types: o.events.split(",").map((t) => t.trim()),
          ...(o.description ? { description: o.description } : {}),
        },
      );
      ctx.show(made, () =>
        fields([
          ["subscription", made.subscription.id],
          ["url", made.subscription.url],
          ["events", made.subscription.event_types.join(", ")],
          ["secret", `${made.secret}  (shown once: keep it where your receiver reads it)`],
        ]),
      );
    });

  hooks
    .command("list")
    .description("the org's subscriptions (never a secret)")
    .action(async (_o: unknown, cmd: Command) => {
      const ctx = await contextOf(cmd, io);
      const r = await ctx.api.get<{ items: Subscription[] }>("/webhooks/subscriptions");
      ctx.show(r, () =>
        table(
          ["SUBSCRIPTION", "URL", "EVENTS"],
          r.items.map((s) => [s.id, s.url, s.event_types.join(",")]),
        ),
      );
    });

  hooks
    .command("delete")
    .description("remove a subscription and its deliveries")
    .argument("<subscription>", "the subscription's id")
    .action(async (id: string, _o: unknown, cmd: Command) => {
      const ctx = await contextOf(cmd, io);
      const r = await ctx.api.delete<object>(`/webhooks/subscriptions/${encodeURIComponent(id)}`);
      ctx.show(r, () => `deleted ${id}\n`);
    });

  hooks
    .command("deliveries")
    .description("a subscription's latest deliveries and their attempts (--json for each attempt)")
    .argument("<subscription>", "the subscription's id")
    .action(async (id: string, _o: unknown, cmd: Command) => {
      const ctx = await contextOf(cmd, io);
      const r = await ctx.api.get<{ items: Delivery[] }>(
        `/webhooks/subscriptions/${encodeURIComponent(id)}/deliveries`,
      );
      ctx.show(r, () => deliveryRows(r.items));
    });

  hooks
    .command("dead-letters")
    .description("deliveries that failed every attempt")
    .action(async (_o: unknown, cmd: Command) => {
      const ctx = await contextOf(cmd, io);
      const r = await ctx.api.get<{ items: Delivery[] }>("/webhooks/dead-letters");
      ctx.show(r, () => deliveryRows(r.items));
    });

  hooks
    .command("replay")
    .description("send a dead letter again, with a fresh set of attempts")
    .argument("<delivery>", "the delivery's id (from dead-letters)")
    .action(async (id: string, _o: unknown, cmd: Command) => {
      const ctx = await contextOf(cmd, io);
      const d = await ctx.api.post<Delivery>(
        `/webhooks/deliveries/${encodeURIComponent(id)}/replay`,
      );
      ctx.show(d, () => deliveryRows([d]));
    });
  declareWebhookRoutes(program);
}

/** The routes each webhooks command calls (route-coverage.test.ts holds every route to one). */
export function declareWebhookRoutes(program: Command): void {
  declareAt(program, "webhooks create", "POST /webhooks/subscriptions");
  declareAt(program, "webhooks list", "GET /webhooks/subscriptions");
  declareAt(program, "webhooks delete", "DELETE /webhooks/subscriptions/{subscription_id}");
  declareAt(
    program,
    "webhooks deliveries",
    "GET /webhooks/subscriptions/{subscription_id}/deliveries",
  );
  declareAt(program, "webhooks dead-letters", "GET /webhooks/dead-letters");
  declareAt(program, "webhooks replay", "POST /webhooks/deliveries/{delivery_id}/replay");
}
