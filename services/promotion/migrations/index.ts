import type { Migration } from "kysely";
import { outboxMigration, processedEventsMigration } from "@svc/lib/bus";
import * as requests from "./2026-11-22T1600-promotion-requests.js";
import * as trials from "./2026-11-22T1630-trial-ledger-projection.js";
import * as token from "./2026-11-23T1300-approved-promotion-token.js";
import * as listPagingIndexes from "./2026-11-25T1505-list-paging-indexes.js";
import * as submitterInternalUser from "./2026-11-27T2100-submitter-internal-user.js";
import * as strategyDigest from "./2026-11-28T0100-strategy-digest.js";
import * as trialSweeps from "./2026-11-28T0400-trial-sweeps.js";
import * as modelDigests from "./2026-11-29T0410-model-digests.js";
import * as trialReturnsOnDemand from "./2026-11-29T0710-trial-returns-on-demand.js";

/** Every migration of the promotion schema, in order; names never change. */
export const migrations: Record<string, Migration> = {
  "2026-11-22T1559-outbox": outboxMigration,
  "2026-11-22T1559-processed-events": processedEventsMigration,
  "2026-11-22T1600-promotion-requests": requests,
  "2026-11-22T1630-trial-ledger-projection": trials,
  "2026-11-23T1300-approved-promotion-token": token,
  "2026-11-25T1505-list-paging-indexes": listPagingIndexes,
  "2026-11-27T2100-submitter-internal-user": submitterInternalUser,
  "2026-11-28T0100-strategy-digest": strategyDigest,
  "2026-11-28T0400-trial-sweeps": trialSweeps,
  "2026-11-29T0410-model-digests": modelDigests,
  "2026-11-29T0710-trial-returns-on-demand": trialReturnsOnDemand,
};
