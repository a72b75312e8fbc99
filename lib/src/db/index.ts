export { openDatabase, schemaDb, type Database } from "./open-database.js";
export { migrateSchema } from "./migrate-schema.js";
export { inBackground, isBackground } from "./query-priority.js";
export {
  ensureTemplate,
  refillSpare,
  seedDataDir,
  type SpareRefill,
  templateKey,
  type PgliteTemplate,
  type SchemaMigrations,
} from "./pglite-template.js";
export { isForeignKeyViolation, isUniqueViolation, isSerializationFailure } from "./pg-errors.js";
