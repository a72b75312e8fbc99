export { openDatabase, schemaDb, type Database } from "./open-database.js";
export { migrateSchema } from "./migrate-schema.js";
export { isForeignKeyViolation, isUniqueViolation, isSerializationFailure } from "./pg-errors.js";
