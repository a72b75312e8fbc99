import type { Migration } from "kysely";
import { outboxMigration, processedEventsMigration } from "@svc/lib/bus";
import * as botsAndVersions from "./2026-11-22T1500-bots-and-versions.js";
import * as liveArtifacts from "./2026-11-22T1610-live-artifacts.js";
import * as deploymentsAndTrials from "./2026-11-22T1620-deployments-and-trials.js";
import * as botEvents from "./2026-11-22T1640-bot-events.js";
import * as sessionHosts from "./2026-11-22T1730-session-hosts.js";
import * as backtestAttempts from "./2026-11-23T0900-backtest-attempts.js";
import * as leaseEpoch from "./2026-11-23T0930-lease-epoch.js";
import * as allocations from "./2026-11-23T1000-allocations.js";
import * as parkedSessions from "./2026-11-23T1300-parked-sessions.js";
import * as riskControls from "./2026-11-25T1000-risk-controls.js";
import * as complianceRuns from "./2026-11-25T1100-compliance-runs.js";
import * as complianceRunsKept from "./2026-11-25T1200-compliance-runs-kept.js";
import * as complianceRunHosts from "./2026-11-25T1210-compliance-run-hosts.js";
import * as backtestResults from "./2026-11-25T1400-backtest-results.js";
import * as datasets from "./2026-11-25T1410-datasets.js";
import * as tradesTruncated from "./2026-11-25T1420-trades-truncated.js";
import * as chatConversations from "./2026-11-25T1600-chat-conversations.js";
import * as listPagingIndexes from "./2026-11-25T1505-list-paging-indexes.js";
import * as chatAnswerHolds from "./2026-11-26T1200-chat-answer-holds.js";
import * as runningPaperIndex from "./2026-11-26T1530-running-paper-index.js";
import * as backtestQueueIndex from "./2026-11-27T2100-backtest-queue-index.js";
import * as backtestServedIndex from "./2026-11-28T0000-backtest-served-index.js";
import * as strategyCode from "./2026-11-28T0100-strategy-code.js";
import * as sessionStrategyState from "./2026-11-28T0200-session-strategy-state.js";
import * as sweeps from "./2026-11-28T0400-sweeps.js";
import * as datasetCatalog from "./2026-11-29T0500-dataset-catalog.js";
import * as models from "./2026-11-29T0400-models.js";
import * as portfolioResults from "./2026-11-29T0300-portfolio-results.js";
import * as strategySourceMaps from "./2026-11-29T0100-strategy-source-maps.js";
import * as trialReturnsWithResults from "./2026-11-29T0700-trial-returns-with-results.js";
import * as resultsJsonUncompressed from "./2026-11-30T0000-results-json-uncompressed.js";
import * as fleetInfrastructureLocks from "./2026-11-30T0200-fleet-infrastructure-locks.js";
import * as liveDeployments from "./2026-11-30T0400-live-deployments.js";

/** Every migration of the bots schema, in order; names are timestamps and never change. */
export const migrations: Record<string, Migration> = {
  "2026-11-22T1459-outbox": outboxMigration,
  "2026-11-22T1459-processed-events": processedEventsMigration,
  "2026-11-22T1500-bots-and-versions": botsAndVersions,
  "2026-11-22T1610-live-artifacts": liveArtifacts,
  "2026-11-22T1620-deployments-and-trials": deploymentsAndTrials,
  "2026-11-22T1640-bot-events": botEvents,
  "2026-11-22T1730-session-hosts": sessionHosts,
  "2026-11-23T0900-backtest-attempts": backtestAttempts,
  "2026-11-23T0930-lease-epoch": leaseEpoch,
  "2026-11-23T1000-allocations": allocations,
  "2026-11-23T1300-parked-sessions": parkedSessions,
  "2026-11-25T1000-risk-controls": riskControls,
  "2026-11-25T1100-compliance-runs": complianceRuns,
  "2026-11-25T1200-compliance-runs-kept": complianceRunsKept,
  "2026-11-25T1210-compliance-run-hosts": complianceRunHosts,
  "2026-11-25T1400-backtest-results": backtestResults,
  "2026-11-25T1410-datasets": datasets,
  "2026-11-25T1420-trades-truncated": tradesTruncated,
  "2026-11-25T1505-list-paging-indexes": listPagingIndexes,
  "2026-11-25T1600-chat-conversations": chatConversations,
  "2026-11-26T1200-chat-answer-holds": chatAnswerHolds,
  "2026-11-26T1530-running-paper-index": runningPaperIndex,
  "2026-11-27T2100-backtest-queue-index": backtestQueueIndex,
  "2026-11-28T0000-backtest-served-index": backtestServedIndex,
  "2026-11-28T0100-strategy-code": strategyCode,
  "2026-11-28T0200-session-strategy-state": sessionStrategyState,
  "2026-11-28T0400-sweeps": sweeps,
  "2026-11-29T0100-strategy-source-maps": strategySourceMaps,
  "2026-11-29T0300-portfolio-results": portfolioResults,
  "2026-11-29T0400-models": models,
  "2026-11-29T0500-dataset-catalog": datasetCatalog,
  "2026-11-29T0700-trial-returns-with-results": trialReturnsWithResults,
  "2026-11-30T0000-results-json-uncompressed": resultsJsonUncompressed,
  "2026-11-30T0200-fleet-infrastructure-locks": fleetInfrastructureLocks,
  "2026-11-30T0400-live-deployments": liveDeployments,
};
