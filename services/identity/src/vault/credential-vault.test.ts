import { randomBytes } from "node:crypto";
import { create } from "@bufbuild/protobuf";
import {
  createContextValues,
  createHandlerContext,
  type HandlerContext,
} from "@connectrpc/connect";
import type { Kysely } from "kysely";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  CredentialSecretSchema,
  CredentialService,
  ResolveCredentialRequestSchema,
  type CredentialSecret,
} from "@svc/gen/svc/identity/v1/identity_pb.js";
import { localPrincipal, principalKey, servicePrincipal, type Principal } from "@svc/lib/auth";
import { migrateSchema, openDatabase, schemaDb, type Database } from "@svc/lib/db";
import { migrations } from "../../migrations/index.js";
import type { IdentityDatabase } from "../store/identity.table.js";
import { createCredentialHandlers } from "../handlers/credential-handlers.js";
import { createCredentialVault } from "./credential-vault.js";
import { kekRingFrom } from "./kek.js";

const SERVER = process.env.SVC_TEST_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
const key = () => randomBytes(32).toString("base64");
const person: Principal = {
  sub: "user|ops",
  actorType: "user",
  delegated: false,
  roles: [],
  scopes: [],
  amr: ["pwd", "otp", "mfa"],
};
const ctxOf = (p: Principal): HandlerContext =>
  createHandlerContext({
    service: CredentialService,
    method: CredentialService.method.createCredential,
    protocolName: "connect",
    requestMethod: "POST",
    url: "http://in-test/svc.identity.v1.CredentialService/CreateCredential",
    contextValues: createContextValues().set(principalKey, p),
  });
const asPerson = () => ctxOf(person);
const asRunner = () => ctxOf(servicePrincipal("bots"));
const fix = (password: string): CredentialSecret =>
  create(CredentialSecretSchema, {
    secret: {
      case: "brokerFix",
      value: { senderCompId: "SVC", targetCompId: "VENUE", username: "desk", password },
    },
  });
const modelKey = (apiKey: string): CredentialSecret =>
  create(CredentialSecretSchema, { secret: { case: "modelApiKey", value: { apiKey } } });
const passwordOf = (s: CredentialSecret) =>
  s.secret.case === "brokerFix" ? s.secret.value.password : undefined;

describe("the credentials vault on Postgres", () => {
  const dbName = `vault_${randomBytes(6).toString("hex")}`;
  const admin = new pg.Pool({ connectionString: SERVER, max: 1 });
  let database: Database;
  let db: Kysely<IdentityDatabase>;
  beforeAll(async () => {
    await admin.query(`create database ${dbName}`);
    const url = new URL(SERVER);
    url.pathname = `/${dbName}`;
    database = await openDatabase({ url: url.toString(), timeoutMs: 5_000 });
    await migrateSchema(database.db, "identity", migrations);
    db = schemaDb<IdentityDatabase>(database.db, "identity");
  }, 60_000);
  afterAll(async () => {
    await database?.close();
    await admin.query(`drop database if exists ${dbName} with (force)`);
    await admin.end();
  });

  const auditRows = (resource: string) =>
    db
      .selectFrom("security_audit_events")
      .selectAll()
      .where("resource", "=", resource)
      .orderBy("seq")
      .execute();

  it("keeps no secret in the row, lists metadata only, and audits who did what to which kind", async () => {
    const vault = createCredentialVault(db, kekRingFrom({ kek: key() }));
    const made = await vault.create(
      { name: "desk-fix", fleet: "", bot: "alpha", secret: fix("hunter2-pass") },
      asPerson(),
    );
    expect(made).toMatchObject({ name: "desk-fix", kind: "broker_fix", bot: "alpha", version: 1 });
    const row = await db
      .selectFrom("credentials")
      .selectAll()
      .where("name", "=", "desk-fix")
      .executeTakeFirstOrThrow();
    const stored = JSON.stringify({
      ...row,
      c: row.ciphertext.toString("latin1"),
      w: row.wrapped_key.toString("latin1"),
    });
    expect(stored).not.toContain("hunter2-pass");
    const listed = await vault.list();
    expect(JSON.stringify(listed)).not.toContain("hunter2-pass");
    expect(Object.keys(listed[0]!)).not.toContain("ciphertext");
    const [audit] = await auditRows("credential/desk-fix");
    expect(audit).toMatchObject({
      event_type: "identity.credential.created",
      outcome: "succeeded",
    });
    expect(audit!.actor_user_id).toBe("user|ops");
    expect(JSON.parse(audit!.details)).toMatchObject({ kind: "broker_fix", name: "desk-fix" });
    expect(JSON.stringify(audit)).not.toContain("hunter2-pass");
  });

  it("delivers a secret only to a runner of a bot its scope covers, and the next read sees a rotation", async () => {
    const vault = createCredentialVault(db, kekRingFrom({ kek: key() }));
    await vault.create(
      { name: "fleet-fix", fleet: "desk-a", bot: "", secret: fix("first-pass") },
      asPerson(),
    );
    const read = await vault.resolve("fleet-fix", { bot: "b1", fleet: "desk-a" }, asRunner());
    expect(passwordOf(read.secret)).toBe("first-pass");
    await expect(
      vault.resolve("fleet-fix", { bot: "b2", fleet: "desk-b" }, asRunner()),
    ).rejects.toMatchObject({
      rawMessage: expect.stringMatching(/not for bot b2: it is scoped to fleet desk-a/),
    });
    await vault.rotate("fleet-fix", fix("second-pass"), asPerson());
    const again = await vault.resolve("fleet-fix", { bot: "b1", fleet: "desk-a" }, asRunner());
    expect(passwordOf(again.secret)).toBe("second-pass");
    expect(again.meta.version).toBe(2);
    const actions = (await auditRows("credential/fleet-fix")).map(
      (r) => `${r.event_type}:${r.outcome}`,
    );
    expect(actions).toEqual([
      "identity.credential.created:succeeded",
      "identity.credential.delivered:succeeded",
      "identity.credential.delivered:denied",
      "identity.credential.rotated:succeeded",
      "identity.credential.delivered:succeeded",
    ]);
  });

  it("refuses a rotation to another kind, and leaves the credential as it was", async () => {
    const vault = createCredentialVault(db, kekRingFrom({ kek: key() }));
    await vault.create(
      { name: "kind-fix", fleet: "", bot: "k", secret: fix("keep-me") },
      asPerson(),
    );
    await expect(vault.rotate("kind-fix", modelKey("sk-x"), asPerson())).rejects.toMatchObject({
      rawMessage: expect.stringMatching(/holds broker_fix/),
    });
    const read = await vault.resolve("kind-fix", { bot: "k", fleet: "" }, asRunner());
    expect(passwordOf(read.secret)).toBe("keep-me");
  });

  it("fails closed on an envelope copied from another credential or altered, and audits it", async () => {
    const vault = createCredentialVault(db, kekRingFrom({ kek: key() }));
    await vault.create(
      { name: "copy-from", fleet: "", bot: "c", secret: fix("from-pass") },
      asPerson(),
    );
    await vault.create(
      { name: "copy-onto", fleet: "", bot: "c", secret: fix("onto-pass") },
      asPerson(),
    );
    const from = await db
      .selectFrom("credentials")
      .selectAll()
      .where("name", "=", "copy-from")
      .executeTakeFirstOrThrow();
    await db
      .updateTable("credentials")
      .set({ wrapped_key: from.wrapped_key, ciphertext: from.ciphertext })
      .where("name", "=", "copy-onto")
      .execute();
    await expect(
      vault.resolve("copy-onto", { bot: "c", fleet: "" }, asRunner()),
    ).rejects.toMatchObject({
      rawMessage: expect.stringMatching(/cannot be opened.*belongs to another credential/),
    });
    const flipped = Buffer.from(from.ciphertext);
    flipped[13]! ^= 0x40;
    await db
      .updateTable("credentials")
      .set({ ciphertext: flipped })
      .where("name", "=", "copy-from")
      .execute();
    await expect(
      vault.resolve("copy-from", { bot: "c", fleet: "" }, asRunner()),
    ).rejects.toMatchObject({
      rawMessage: expect.stringMatching(/credential "copy-from" cannot be opened/),
    });
    const failed = (await auditRows("credential/copy-from")).filter((r) => r.outcome === "failed");
    expect(failed).toHaveLength(1);
    expect(failed[0]).toMatchObject({ event_type: "identity.credential.undecryptable" });
    expect(JSON.parse(failed[0]!.details)).toMatchObject({ reason: "tampered" });
  });

  it("of two creates of one name at once, one wins and the other is told the name is taken", async () => {
    const vault = createCredentialVault(db, kekRingFrom({ kek: key() }));
    const both = await Promise.allSettled([
      vault.create({ name: "race", fleet: "", bot: "r", secret: modelKey("sk-one") }, asPerson()),
      vault.create({ name: "race", fleet: "", bot: "r", secret: modelKey("sk-two") }, asPerson()),
    ]);
    expect(both.filter((r) => r.status === "fulfilled")).toHaveLength(1);
    const lost = both.find((r) => r.status === "rejected") as PromiseRejectedResult;
    expect(lost.reason).toMatchObject({ rawMessage: expect.stringMatching(/named "race" exists/) });
    expect((await auditRows("credential/race")).length).toBe(1);
  });

  it("rotates the key-encryption key: old rows open under the previous key, a rewrap moves them", async () => {
    // Rows of the tests above are under keys of their own, which a rewrap rightly refuses.
    await db.deleteFrom("credentials").execute();
    const before = key();
    const after = key();
    const old = createCredentialVault(db, kekRingFrom({ kek: before }));
    await old.create(
      { name: "kek-rot", fleet: "", bot: "z", secret: fix("kept-across") },
      asPerson(),
    );
    const stranger = createCredentialVault(db, kekRingFrom({ kek: after }));
    await expect(
      stranger.resolve("kek-rot", { bot: "z", fleet: "" }, asRunner()),
    ).rejects.toMatchObject({
      rawMessage: expect.stringMatching(/does not hold/),
    });
    const rotating = createCredentialVault(db, kekRingFrom({ kek: after, previousKek: before }));
    expect(
      passwordOf((await rotating.resolve("kek-rot", { bot: "z", fleet: "" }, asRunner())).secret),
    ).toBe("kept-across");
    const done = await rotating.rewrapAll(asPerson());
    expect(done.rewrapped).toBeGreaterThanOrEqual(1);
    expect((await rotating.rewrapAll(asPerson())).rewrapped).toBe(0);
    const onlyNew = createCredentialVault(db, kekRingFrom({ kek: after }));
    expect(
      passwordOf((await onlyNew.resolve("kek-rot", { bot: "z", fleet: "" }, asRunner())).secret),
    ).toBe("kept-across");
  });

  it("delivers to no caller but the bots service, even under local auth, where every loopback caller passes the interceptors", async () => {
    const vault = createCredentialVault(db, kekRingFrom({ kek: key() }));
    await vault.create(
      { name: "local-fix", fleet: "", bot: "l", secret: fix("local-pass") },
      asPerson(),
    );
    const handlers = createCredentialHandlers(vault, {
      provider: "local",
      stepUpMaxAgeSeconds: 180,
      clockToleranceSeconds: 60,
    });
    const request = create(ResolveCredentialRequestSchema, { name: "local-fix", bot: "l" });
    for (const caller of [localPrincipal(new Headers()), servicePrincipal("promotion"), person])
      await expect(
        Promise.resolve(handlers.resolveCredential(request, ctxOf(caller))),
      ).rejects.toMatchObject({
        rawMessage: expect.stringMatching(/its callers are bots/),
      });
    const read = await handlers.resolveCredential(request, asRunner());
    expect(read.secret).toMatchObject({ secret: { value: { password: "local-pass" } } });
  });

  it("answers 503 vault_unavailable for every call when no key-encryption key is set", async () => {
    const off = createCredentialVault(db, kekRingFrom({}));
    await expect(off.list()).rejects.toMatchObject({
      rawMessage: expect.stringMatching(/vault is off: SVC_VAULT_KEK is not set/),
    });
    await expect(
      off.create({ name: "x", fleet: "", bot: "", secret: modelKey("k") }, asPerson()),
    ).rejects.toMatchObject({
      code: 14,
    });
  });
});
