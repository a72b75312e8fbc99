import type { Migration } from "kysely";
import * as licenseRegistry from "./2026-11-23T1200-license-registry.js";

/** Every migration of the identity schema, in order; names never change. */
export const migrations: Record<string, Migration> = {
  "2026-11-23T1200-license-registry": licenseRegistry,
};
