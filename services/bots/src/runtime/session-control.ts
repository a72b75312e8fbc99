import type { Kysely } from "kysely";
import type { EventBus } from "@svc/lib/bus";
import type { BotsDatabase, DeploymentRow } from "../store/bots.table.js";
import { endLiveSession, liveSessions } from "../store/paper-sessions.repository.js";
import type { AuditOrigin } from "@svc/lib/audit";
import { RUNNER_ORIGIN } from "../audit/workload-run.js";
import {
  auditSessionStop,
  insertPaperDeployment,
  type NewSession,
  type PaperSessions,
} from "./paper-sessions.js";

/** What the bots routes ask of the paper sessions, wherever the runners run. */
export interface SessionControl {
  runningTaskOf(botId: string): Promise<string | undefined>;
  start(p: NewSession): Promise<DeploymentRow>;
  /** `origin`: who stopped it (the caller of the route), for its workload_run entry. */
  stop(
    taskId: string,
    status: "success" | "halted",
    reason: string,
    origin?: AuditOrigin,
  ): Promise<boolean>;
  haltBot(botId: string, reason: string, origin?: AuditOrigin): Promise<string[]>;
  haltAll(reason: string, origin?: AuditOrigin): Promise<string[]>;
  /** The bot's stored risk state changed (re-enabled): its sessions follow it now. */
  syncRisk(botId: string): Promise<void>;
}

/** Commands the bots service sends to runner processes. */
export const CONTROL_SUBJECT = "svc.bots.runner.control";
export type ControlCommand =
  | { op: "pick-up" }
  | { op: "stop"; task_id: string; status: "success" | "halted"; reason: string }
  | { op: "risk-sync"; bot_id: string };

/** Runners in this process: the all-in-one default. */
export function inProcessControl(sessions: PaperSessions): SessionControl {
  return sessions;
}

/**
 * Runners in their own processes (`npm run runner -w services/bots`, a pod each in a cluster):
 * the bots service records the decision in the deployment row, which is what a runner process
 * picks up or resumes from, and tells the runners on the bus so they act at once.
 */
export function externalControl(deps: { db: Kysely<BotsDatabase>; bus: EventBus }): SessionControl {
  const tell = (c: ControlCommand) =>
    deps.bus
      .broadcast(CONTROL_SUBJECT, new TextEncoder().encode(JSON.stringify(c)))
      .catch(() => undefined);
  const stop = async (
    taskId: string,
    status: "success" | "halted",
    reason: string,
    origin: AuditOrigin = RUNNER_ORIGIN,
  ) => {
    const ended = await deps.db.transaction().execute(async (trx) => {
      const row = await endLiveSession(trx, taskId, status);
      if (row) await auditSessionStop(trx, origin, row, status, reason);
      return row;
    });
    if (!ended) return false;
    await tell({ op: "stop", task_id: taskId, status, reason });
    return true;
  };
  const haltAll = async (reason: string, origin?: AuditOrigin, botId?: string) => {
    const ids = await liveSessions(deps.db, botId);
    for (const id of ids) await stop(id, "halted", reason, origin);
    return ids;
  };
  return {
    async runningTaskOf(botId) {
      return (await liveSessions(deps.db, botId))[0];
    },
    async start(p) {
      const row = await insertPaperDeployment(deps.db, p);
      await tell({ op: "pick-up" });
      return row;
    },
    stop,
    haltBot: (botId, reason, origin) => haltAll(reason, origin, botId),
    haltAll: (reason, origin) => haltAll(reason, origin),
    // A lost word is made good by the runners' own pick-up, which reads the state again.
    syncRisk: (botId) => tell({ op: "risk-sync", bot_id: botId }),
  };
}
