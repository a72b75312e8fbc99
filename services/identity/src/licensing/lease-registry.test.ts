import { generateKeyPairSync } from "node:crypto";
import type { Kysely } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { migrateSchema, openDatabase, schemaDb, type Database } from "@svc/lib/db";
import { createLogger } from "@svc/lib/telemetry";
import { migrations } from "../../migrations/index.js";
import { signingKeyFromPem } from "../lease/index.js";
import type { IdentityDatabase } from "../store/identity.table.js";
import { createLeaseRegistry } from "./lease-registry.js";

const DAY = 86_400_000;
const newKey = () =>
  signingKeyFromPem(
    generateKeyPairSync("ed25519").privateKey.export({ type: "pkcs8", format: "pem" }).toString(),
  );

describe("key rotation in the lease registry", () => {
  let database: Database;
  let db: Kysely<IdentityDatabase>;
  beforeAll(async () => {
    database = await openDatabase({});
    await migrateSchema(database.db, "identity", migrations);
    db = schemaDb<IdentityDatabase>(database.db, "identity");
  });
  afterAll(async () => {
    await database?.close();
  });

  it("serves a retired key until the last lease it signed leaves its grace, and not after", async () => {
    const log = createLogger({ name: "t", level: "silent" });
    const start = Date.now();
    const oldKey = newKey();
    const before = createLeaseRegistry({
      db,
      log,
      keys: { on: true, active: oldKey, retired: [] },
      registryEnforced: true,
      now: () => start,
    });
    await before.issue({
      deploymentId: "rot",
      entitlements: {},
      ttlSeconds: 86_400,
      customerId: null,
      devicePublicKey: null,
      contractEndsAtMs: undefined,
      issuedBy: "user|vendor",
    });
    const at = (now: number) =>
      createLeaseRegistry({
        db,
        log,
        keys: { on: true, active: newKey(), retired: [oldKey] },
        registryEnforced: true,
        now: () => now,
      }).publicKeys();

    const inGrace = await at(start + 3 * DAY);
    expect(inGrace.retired.map((k) => k.publicKeyId)).toEqual([oldKey.publicKeyId]);
    expect((await at(start + 4 * DAY + 1000)).retired).toEqual([]);
  });
});
