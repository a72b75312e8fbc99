import type { Kysely } from "kysely";
import { PromotionService } from "@svc/gen/svc/promotion/v1/promotion_pb.js";
import { migrateSchema, schemaDb } from "@svc/lib/db";
import { statementKeysFromPem } from "@svc/lib/signed-statement";
import { startOutboxRelay, type BusSubscription } from "@svc/lib/bus";
import { completeService, type Platform, type ServiceModule } from "@svc/lib/server";
import { migrations } from "../migrations/index.js";
import { killSwitchOverNetwork } from "./clients/kill-switch.js";
import { botVersionsOverNetwork, trialReturnsOverNetwork } from "./clients/bot-versions.js";
import type { TrialReturnsLookup } from "./handlers/ledger-returns.js";
import { consumeBotsEvents } from "./consumers/bots-events.js";
import { DEFAULT_GATE_POLICY } from "./domain/gates.js";
import {
  createPromotionHandlers,
  PROMOTION_SCHEMA,
  type BotVersionLookup,
  type KillSwitchCheck,
} from "./handlers/promotion-handlers.js";
export type { BotVersionLookup, KillSwitchCheck, TrialReturnsLookup };
export { botVersionsFrom, trialReturnsFrom } from "./clients/bot-versions.js";
export { killSwitchFrom } from "./clients/kill-switch.js";
import * as repo from "./store/promotion.repository.js";
import type { PromotionDatabase } from "./store/promotion.table.js";

/**
 * The promotion service: the only crossing from research to live trading. Serves the gates and
 * human decisions, relays promotion.approved / promotion.revoked, learns bot versions and
 * activations from the bots service's events, and sweeps expired requests when enforced.
 */
export async function createPromotionModule(
  platform: Platform,
  wiring: {
    killSwitch?: KillSwitchCheck;
    botVersion?: BotVersionLookup;
    trialReturns?: TrialReturnsLookup;
  } = {},
): Promise<ServiceModule> {
  await migrateSchema(platform.db.db, PROMOTION_SCHEMA, migrations);
  const db = schemaDb<PromotionDatabase>(
    platform.db.db,
    PROMOTION_SCHEMA,
  ) as Kysely<PromotionDatabase>;
  const flags = platform.config.flags;
  const { signingKeyPem } = platform.config.promotionTokens;
  if (!signingKeyPem)
    throw new Error(
      "SVC_PROMOTION_SIGNING_KEY_PEM is required: it signs ApprovedPromotion tokens (the all-in-one process makes an ephemeral one)",
    );
  const handlers = createPromotionHandlers({
    db,
    // All-in-one wires an in-process Connect client; a standalone service reaches it by address.
    killSwitch: wiring.killSwitch ?? killSwitchOverNetwork(platform.config, platform.log),
    botVersion: wiring.botVersion ?? botVersionsOverNetwork(platform.config, platform.log),
    // Only the trial-ledger gate reads trials' returns: without it, no peer is asked for them.
    trialReturns: flags.trialLedgerNEnforce
      ? (wiring.trialReturns ?? trialReturnsOverNetwork(platform.config, platform.log))
      : undefined,
    skipHumanKinds: flags.skipHumanKinds,
    signingKey: statementKeysFromPem({ privateKeyPem: signingKeyPem }).privateKey!,
    policy: {
      ...DEFAULT_GATE_POLICY,
      labEvidenceEnforce: flags.promotionLabEvidenceEnforce,
      trialLedgerEnforce: flags.trialLedgerNEnforce,
      minTrials: flags.trialLedgerMinTrials,
    },
    approvalTtlSeconds: flags.approvalExpiryEnforcementEnabled
      ? flags.approvalTtlSeconds
      : undefined,
  });
  if (flags.skipHumanKinds.length > 0)
    platform.log.warn(
      { kinds: flags.skipHumanKinds },
      "SVC_PROMOTION_SKIP_HUMAN_KINDS: a submitter (never an agent) may waive human approval for these kinds",
    );
  let relay: ReturnType<typeof startOutboxRelay> | undefined;
  let consumer: BusSubscription | undefined;
  let sweeper: NodeJS.Timeout | undefined;
  return {
    name: "promotion",
    services: [PromotionService],
    routes(router) {
      router.service(PromotionService, completeService(PromotionService, handlers));
    },
    async start() {
      relay = startOutboxRelay({
        db: platform.db.db,
        schema: PROMOTION_SCHEMA,
        bus: platform.bus,
        log: (o: object, m: string) => platform.log.warn(o, m),
        published: (o: object, m: string) => platform.log.info(o, m),
      });
      consumer = await consumeBotsEvents({ bus: platform.bus, db, schema: PROMOTION_SCHEMA });
      if (flags.approvalExpiryEnforcementEnabled) {
        sweeper = setInterval(() => {
          repo.expireOverdue(db).then(
            (ids) =>
              ids.length && platform.log.info({ request_ids: ids }, "promotion requests expired"),
            (err) => platform.log.warn({ err }, "expiry sweep failed; will retry"),
          );
        }, platform.config.promotionSweepIntervalMs);
        sweeper.unref();
      }
    },
    async stop() {
      if (sweeper) clearInterval(sweeper);
      await consumer?.stop();
      await relay?.stop();
    },
  };
}
