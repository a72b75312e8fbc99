import type { Kysely } from "kysely";
import { loadConfig } from "@svc/lib/config";
import { migrateSchema, schemaDb } from "@svc/lib/db";
import { closeOnSignals, openPlatform } from "@svc/lib/server";
import { migrations } from "../../migrations/index.js";
import { PaperSessions } from "../runtime/paper-sessions.js";
import { CONTROL_SUBJECT, type ControlCommand } from "../runtime/session-control.js";
import type { BotsDatabase } from "../store/bots.table.js";

// A runner process (a pod in a cluster): hosts the paper sessions the bots service records,
// resumes them from their events, obeys the kill switch by itself (its keys and broadcasts), and
// takes stop and halt commands from the bots service over the bus. Run with SVC_RUNNERS=external
// on the bots service: `npm run runner -w services/bots`.
const config = loadConfig();
const platform = await openPlatform(config, "bots-runner");
await migrateSchema(platform.db.db, "bots", migrations);
const db = schemaDb<BotsDatabase>(platform.db.db, "bots") as Kysely<BotsDatabase>;
const sessions = new PaperSessions({
  db,
  log: platform.log,
  kv: platform.kv,
  bus: platform.bus,
  pollIntervalMs: config.killSwitchPollIntervalS * 1000,
  leaseSeconds: config.runnerLeaseS,
  license: platform.license,
});

let picking = Promise.resolve(0);
const pickUp = () =>
  (picking = picking
    .then(() => sessions.pickUp())
    .catch((err) => (platform.log.error({ err }, "pick-up failed"), 0)));
const control = platform.bus.listen(CONTROL_SUBJECT, (m) => {
  const c = JSON.parse(new TextDecoder().decode(m.data)) as ControlCommand;
  if (c.op === "pick-up") void pickUp();
  if (c.op === "risk-sync")
    void sessions
      .syncRisk(c.bot_id)
      .catch((err) => platform.log.error({ err, bot_id: c.bot_id }, "risk sync failed"));
  if (c.op === "stop")
    void sessions
      .stop(c.task_id, c.status, c.reason)
      .catch((err) => platform.log.error({ err, task_id: c.task_id }, "stop failed"));
});
// The bus may drop a command; the deployment rows are the truth, read again every second.
const timer = setInterval(() => void pickUp(), 1_000);
await pickUp();
platform.log.info({ runners: "external" }, "runner process hosting paper sessions");
process.stdout.write("runner ready\n");
closeOnSignals(platform.log, [
  async () => clearInterval(timer),
  () => control.stop(),
  () => sessions.detachAll(),
  () => platform.close(),
]);
