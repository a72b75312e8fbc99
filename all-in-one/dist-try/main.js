import { createRequire as __svcCreateRequire } from "node:module"; const require = __svcCreateRequire(import.meta.url);
import {
  migrations,
  migrations2,
  migrations3,
  migrations4
} from "./chunk-QVSHEJEK.js";
import {
  ConfigError,
  ensureTemplate,
  loadConfig,
  openDatabase,
  refillSpare
} from "./chunk-465YIRRN.js";
import "./chunk-NSXLARNB.js";
import "./chunk-WHDG35AA.js";
import "./chunk-VRQZRDEA.js";

// all-in-one/src/main.ts
import { isAbsolute, resolve as resolve2 } from "node:path";

// all-in-one/src/embedded-database.ts
import { existsSync, readdirSync } from "node:fs";
import { resolve } from "node:path";

// all-in-one/src/schema-migrations.ts
var SCHEMA_MIGRATIONS = [
  { schema: "identity", migrations: migrations2 },
  { schema: "bots", migrations },
  { schema: "killswitch", migrations: migrations3 },
  { schema: "promotion", migrations: migrations4 }
];

// all-in-one/src/embedded-database.ts
async function openEmbeddedDatabase(config2) {
  if (config2.databaseUrl) return void 0;
  const dataDir = config2.dataDir === "memory://" ? void 0 : config2.dataDir;
  const isNew = !dataDir || !existsSync(dataDir) || readdirSync(dataDir).length === 0;
  const template = isNew && config2.pglite.templateDir ? await ensureTemplate(resolve(config2.pglite.templateDir), SCHEMA_MIGRATIONS) : void 0;
  const database = await openDatabase({
    dataDir,
    timeoutMs: config2.timeouts.dbMs,
    sharedBuffersMb: config2.pglite.sharedBuffersMb,
    ...template ? { template } : {}
  });
  return template && dataDir && database.fromTemplate ? { ...database, refillSpare: () => refillSpare(template) } : database;
}

// all-in-one/src/main.ts
var config;
try {
  config = loadConfig();
} catch (err) {
  if (err instanceof ConfigError) {
    console.error(err.message);
    process.exit(2);
  }
  throw err;
}
var launchDir = process.env.INIT_CWD ?? process.cwd();
if (!config.databaseUrl && config.dataDir !== "memory://" && !isAbsolute(config.dataDir)) {
  config = { ...config, dataDir: resolve2(launchDir, config.dataDir) };
}
if (config.pglite.templateDir && !isAbsolute(config.pglite.templateDir)) {
  config = {
    ...config,
    pglite: { ...config.pglite, templateDir: resolve2(launchDir, config.pglite.templateDir) }
  };
}
if (!isAbsolute(config.licenseHolder.dir)) {
  config = {
    ...config,
    licenseHolder: { ...config.licenseHolder, dir: resolve2(launchDir, config.licenseHolder.dir) }
  };
}
var openingAt = performance.now();
var opening = openEmbeddedDatabase(config);
opening.catch(() => void 0);
var { startPlatform } = await import("./start-platform-WNSP7TWY.js");
var codeLoadedAt = performance.now();
var db = await opening.catch((err) => {
  if (!["EEXIST", "ENOTDIR", "EACCES", "EPERM", "EROFS", "ENOENT", "ENOSPC"].includes(err.code ?? ""))
    throw err;
  const template = config.pglite.templateDir;
  const which = template && err.path?.startsWith(template) ? `the PGlite template folder ${template} (SVC_PGLITE_TEMPLATE_DIR)` : `the data folder ${config.dataDir} (SVC_DATA_DIR)`;
  console.error(`${which} cannot be used: ${err.message}; choose another`);
  process.exit(2);
});
var databaseOpenAt = performance.now();
var running = await startPlatform(config, db ? { db } : {}).catch(
  (err) => {
    if (err.code !== "EADDRINUSE" && err.code !== "EACCES") throw err;
    console.error(
      err.code === "EADDRINUSE" ? `port ${config.port} on ${config.host} is taken by another process: stop it, or start on another port with SVC_PORT=...` : `port ${config.port} on ${config.host} may not be opened by this user: choose another with SVC_PORT=...`
    );
    process.exit(1);
  }
);
var { closeOnSignals } = await import("./server-MR5JLQXN.js");
var ms = Math.round(performance.now());
var storage = config.databaseUrl ? "Postgres" : `embedded PGlite in ${config.dataDir}`;
running.platform.log.info(
  {
    url: running.url,
    ready_ms: ms,
    storage,
    auth: config.auth.provider,
    ...db ? { pglite_from_template: db.fromTemplate === true } : {},
    // Where the start went, ms from the process's start (ready_ms is when it listened).
    start_ms: {
      database_opening_from: Math.round(openingAt),
      ...db?.openedIn ? { database: db.openedIn } : {},
      code_loaded: Math.round(codeLoadedAt),
      database_open: Math.round(databaseOpenAt)
    }
  },
  "platform ready"
);
process.stdout.write(
  `
svc platform ready in ${ms} ms at ${running.url}
  console:   ${running.url}/
  API docs:  ${running.url}/docs   (OpenAPI: ${running.url}/openapi.json)
  try:       curl -s ${running.url}/bots
  storage:   ${storage}; bus: ${config.natsUrl ? "NATS" : "in-process"}; kv: ${config.redisUrl ? "Redis" : "in-process"}; auth: ${config.auth.provider}

`
);
var spare = db?.refillSpare?.();
closeOnSignals(running.platform.log, [
  async () => {
    spare?.cancel();
    await spare?.done;
  },
  running.close,
  ...db ? [db.close] : []
]);
//# sourceMappingURL=main.js.map
