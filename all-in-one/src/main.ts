import { isAbsolute, resolve } from "node:path";
import { loadConfig, ConfigError, type Config } from "@svc/lib/config";
import { openEmbeddedDatabase } from "./embedded-database.js";

// `npm start`: the whole platform in one process on the embedded defaults.
let config: Config;
try {
  config = loadConfig();
} catch (err) {
  if (err instanceof ConfigError) {
    console.error(err.message);
    process.exit(2);
  }
  throw err;
}
// npm runs this in the all-in-one folder; a relative data folder means the one npm was run from.
const launchDir = process.env.INIT_CWD ?? process.cwd();
if (!config.databaseUrl && config.dataDir !== "memory://" && !isAbsolute(config.dataDir)) {
  config = { ...config, dataDir: resolve(launchDir, config.dataDir) };
}
if (config.pglite.templateDir && !isAbsolute(config.pglite.templateDir)) {
  config = {
    ...config,
    pglite: { ...config.pglite, templateDir: resolve(launchDir, config.pglite.templateDir) },
  };
}
if (!isAbsolute(config.licenseHolder.dir)) {
  config = {
    ...config,
    licenseHolder: { ...config.licenseHolder, dir: resolve(launchDir, config.licenseHolder.dir) },
  };
}
// Opened here rather than by the platform: a new database starts from a migrated template. The
// platform's code loads meanwhile (imported only now): the template's copy runs off this thread.
const openingAt = performance.now();
const opening = openEmbeddedDatabase(config);
// Its failure is thrown where it is awaited, below, not reported as unhandled while code loads.
opening.catch(() => undefined);
const { startPlatform } = await import("./start-platform.js");
const codeLoadedAt = performance.now();
const db = await opening.catch((err: NodeJS.ErrnoException) => {
  // A folder that cannot be made or written is the setting's fault: say which, not a stack.
  if (
    !["EEXIST", "ENOTDIR", "EACCES", "EPERM", "EROFS", "ENOENT", "ENOSPC"].includes(err.code ?? "")
  )
    throw err;
  const template = config.pglite.templateDir;
  const which =
    template && err.path?.startsWith(template)
      ? `the PGlite template folder ${template} (SVC_PGLITE_TEMPLATE_DIR)`
      : `the data folder ${config.dataDir} (SVC_DATA_DIR)`;
  console.error(`${which} cannot be used: ${err.message}; choose another`);
  process.exit(2);
});
const databaseOpenAt = performance.now();
const running = await startPlatform(config, db ? { db } : {}).catch(
  (err: NodeJS.ErrnoException) => {
    if (err.code !== "EADDRINUSE" && err.code !== "EACCES") throw err;
    console.error(
      err.code === "EADDRINUSE"
        ? `port ${config.port} on ${config.host} is taken by another process: stop it, or start on another port with SVC_PORT=...`
        : `port ${config.port} on ${config.host} may not be opened by this user: choose another with SVC_PORT=...`,
    );
    process.exit(1);
  },
);
// Imported only now (the platform loaded it already): imported above, it would load most of the
// platform before the database starts to open. Before the ready line, so a signal then is handled.
const { closeOnSignals } = await import("@svc/lib/server");
// Counted from the process's start, module loading included: what a person waits for.
const ms = Math.round(performance.now());
const storage = config.databaseUrl ? "Postgres" : `embedded PGlite in ${config.dataDir}`;
running.platform.log.info(
  {
    url: running.url,
    ready_ms: ms,
    storage,
    auth: config.auth.provider,
    ...(db ? { pglite_from_template: db.fromTemplate === true } : {}),
    // Where the start went, ms from the process's start (ready_ms is when it listened).
    start_ms: {
      database_opening_from: Math.round(openingAt),
      ...(db?.openedIn ? { database: db.openedIn } : {}),
      code_loaded: Math.round(codeLoadedAt),
      database_open: Math.round(databaseOpenAt),
    },
  },
  "platform ready",
);
process.stdout.write(
  `\nsvc platform ready in ${ms} ms at ${running.url}\n` +
    `  console:   ${running.url}/\n` +
    `  API docs:  ${running.url}/docs   (OpenAPI: ${running.url}/openapi.json)\n` +
    `  try:       curl -s ${running.url}/bots\n` +
    `  storage:   ${storage}; bus: ${config.natsUrl ? "NATS" : "in-process"}; kv: ${config.redisUrl ? "Redis" : "in-process"}; auth: ${config.auth.provider}\n\n`,
);
const spare = db?.refillSpare?.();
closeOnSignals(running.platform.log, [
  async () => {
    spare?.cancel();
    await spare?.done;
  },
  running.close,
  ...(db ? [db.close] : []),
]);
