export { openDatabase, schemaDb, type Database } from "./open-database.js";
export { migrateSchema } from "./migrate-schema.js";
export { isUniqueViolation, isSerializationFailure } from "./pg-errors.js";
