import type { SchemaMigrations } from "@svc/lib/db";
import { migrations as bots } from "@svc/bots/migrations";
import { migrations as compliance } from "@svc/compliance/migrations";
import { migrations as identity } from "@svc/identity/migrations";
import { migrations as killswitch } from "@svc/killswitch/migrations";
import { migrations as promotion } from "@svc/promotion/migrations";

/**
 * Every schema the services of this process migrate at start, each named after its owner, with
 * the migrations its owner runs: what a PGlite template is built from and keyed by. A schema
 * missing here is still migrated by its service at start, only not ahead of time.
 */
export const SCHEMA_MIGRATIONS: SchemaMigrations[] = [
  { schema: "identity", migrations: identity },
  { schema: "bots", migrations: bots },
  { schema: "killswitch", migrations: killswitch },
  { schema: "promotion", migrations: promotion },
  { schema: "compliance", migrations: compliance },
];
