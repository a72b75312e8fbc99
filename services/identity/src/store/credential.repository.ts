import type { Kysely, Transaction } from "kysely";
import type { CredentialRow, IdentityDatabase } from "./identity.table.js";

type Db = Kysely<IdentityDatabase> | Transaction<IdentityDatabase>;

/** The columns a listing shows: everything but the envelope. */
const METADATA = [
  "id",
  "name",
  "kind",
  "fleet",
  "bot",
  "version",
  "kek_id",
  "fingerprint",
  "created_by",
  "created_at",
  "rotated_by",
  "rotated_at",
] as const;

export type CredentialMetadataRow = Omit<CredentialRow, "wrapped_key" | "ciphertext">;

export interface NewCredential {
  id: string;
  name: string;
  kind: string;
  fleet: string;
  bot: string;
  version: number;
  kek_id: string;
  wrapped_key: Buffer;
  ciphertext: Buffer;
  fingerprint: string;
  created_by: string;
  rotated_by: string;
}

/** Inserts a credential; a name in use raises the unique violation the handler answers 409 to. */
export async function insertCredential(
  trx: Transaction<IdentityDatabase>,
  c: NewCredential,
): Promise<CredentialMetadataRow> {
  return trx.insertInto("credentials").values(c).returning(METADATA).executeTakeFirstOrThrow();
}

export async function listCredentials(db: Db): Promise<CredentialMetadataRow[]> {
  return db.selectFrom("credentials").select(METADATA).orderBy("name").execute();
}

/** One credential with its envelope; `lock` holds the row until the transaction ends. */
export async function findCredential(
  db: Db,
  name: string,
  lock = false,
): Promise<CredentialRow | undefined> {
  const q = db.selectFrom("credentials").selectAll().where("name", "=", name);
  return (lock ? q.forUpdate() : q).executeTakeFirst();
}

/** The credential's new secret, as the next version. */
export async function replaceSecret(
  trx: Transaction<IdentityDatabase>,
  id: string,
  next: Pick<
    CredentialRow,
    "version" | "kek_id" | "wrapped_key" | "ciphertext" | "fingerprint" | "rotated_by"
  >,
): Promise<CredentialMetadataRow> {
  return trx
    .updateTable("credentials")
    .set({ ...next, rotated_at: new Date() })
    .where("id", "=", id)
    .returning(METADATA)
    .executeTakeFirstOrThrow();
}

export async function deleteCredential(
  trx: Transaction<IdentityDatabase>,
  name: string,
): Promise<CredentialMetadataRow | undefined> {
  return trx
    .deleteFrom("credentials")
    .where("name", "=", name)
    .returning(METADATA)
    .executeTakeFirst();
}

/** Every credential whose data key another key-encryption key wrapped, locked for the rewrap. */
export async function credentialsNotUnder(
  trx: Transaction<IdentityDatabase>,
  kekId: string,
): Promise<CredentialRow[]> {
  return trx
    .selectFrom("credentials")
    .selectAll()
    .where("kek_id", "<>", kekId)
    .orderBy("name")
    .forUpdate()
    .execute();
}

export async function countCredentials(db: Db): Promise<number> {
  const row = await db
    .selectFrom("credentials")
    .select((eb) => eb.fn.countAll<string>().as("n"))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export async function setWrappedKey(
  trx: Transaction<IdentityDatabase>,
  id: string,
  kekId: string,
  wrappedKey: Buffer,
): Promise<void> {
  await trx
    .updateTable("credentials")
    .set({ kek_id: kekId, wrapped_key: wrappedKey })
    .where("id", "=", id)
    .execute();
}
