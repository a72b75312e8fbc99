import { existsSync, readdirSync } from "node:fs";
import { resolve } from "node:path";
import type { Config } from "@svc/lib/config";
import {
  ensureTemplate,
  openDatabase,
  refillSpare,
  type Database,
  type SpareRefill,
} from "@svc/lib/db";
import { SCHEMA_MIGRATIONS } from "./schema-migrations.js";

export interface EmbeddedDatabase extends Database {
  /**
   * Copies the template again for the next new data folder, when this one started from it: to be
   * called once the platform is ready, so that copy is not on anyone's start.
   */
  refillSpare?(): SpareRefill;
}

/**
 * The embedded PGlite database of `npm start`, or undefined when SVC_DATABASE_URL names a
 * server. A database that does not exist yet (memory://, or an empty or missing folder) starts
 * from the migrated template of today's migrations (SVC_PGLITE_TEMPLATE_DIR), built first when
 * there is none: initdb and the migrations then run once per set of migrations, not per start.
 */
export async function openEmbeddedDatabase(config: Config): Promise<EmbeddedDatabase | undefined> {
  if (config.databaseUrl) return undefined;
  const dataDir = config.dataDir === "memory://" ? undefined : config.dataDir;
  const isNew = !dataDir || !existsSync(dataDir) || readdirSync(dataDir).length === 0;
  const template =
    isNew && config.pglite.templateDir
      ? await ensureTemplate(resolve(config.pglite.templateDir), SCHEMA_MIGRATIONS)
      : undefined;
  const database = await openDatabase({
    dataDir,
    timeoutMs: config.timeouts.dbMs,
    sharedBuffersMb: config.pglite.sharedBuffersMb,
    ...(template ? { template } : {}),
  });
  // In memory a database starts from the template's tarball, read whole: there is no copy to spare.
  return template && dataDir && database.fromTemplate
    ? { ...database, refillSpare: () => refillSpare(template) }
    : database;
}
