import type { Kysely, Transaction } from "kysely";
import type { TensorInfo } from "../models/model-wire.js";
import type { BotsDatabase } from "./bots.table.js";

type Db = Kysely<BotsDatabase> | Transaction<BotsDatabase>;

export interface StoredModel {
  digest: string;
  sizeBytes: number;
  inputs: TensorInfo[];
  outputs: TensorInfo[];
  createdBy: string;
  createdAt: Date;
}

/**
 * Keeps a checked model under its digest. Content-addressed: a digest already stored is the
 * same bytes, so a second upload adds nothing and answers the first one's row.
 */
export async function storeModel(
  db: Db,
  m: {
    digest: string;
    onnx: Uint8Array;
    inputs: TensorInfo[];
    outputs: TensorInfo[];
    createdBy: string;
  },
): Promise<StoredModel> {
  await db
    .insertInto("models")
    .values({
      digest: m.digest,
      onnx: Buffer.from(m.onnx),
      size_bytes: m.onnx.byteLength,
      inputs: JSON.stringify(m.inputs),
      outputs: JSON.stringify(m.outputs),
      created_by: m.createdBy,
    })
    .onConflict((oc) => oc.column("digest").doNothing())
    .execute();
  return (await findModel(db, m.digest))!;
}

/** A stored model's description (not its bytes); undefined when none is stored under the digest. */
export async function findModel(db: Db, digest: string): Promise<StoredModel | undefined> {
  const row = await db
    .selectFrom("models")
    .select(["digest", "size_bytes", "inputs", "outputs", "created_by", "created_at"])
    .where("digest", "=", digest)
    .executeTakeFirst();
  if (!row) return undefined;
  return {
    digest: row.digest,
    sizeBytes: Number(row.size_bytes),
    inputs: JSON.parse(row.inputs) as TensorInfo[],
    outputs: JSON.parse(row.outputs) as TensorInfo[],
    createdBy: row.created_by,
    createdAt: row.created_at,
  };
}

/** The digests of `digests` that no upload stored. */
export async function missingModels(db: Db, digests: readonly string[]): Promise<string[]> {
  if (digests.length === 0) return [];
  const rows = await db
    .selectFrom("models")
    .select("digest")
    .where("digest", "in", [...digests])
    .execute();
  const found = new Set(rows.map((r) => r.digest));
  return digests.filter((d) => !found.has(d));
}

/** The stored bytes of each digest (a digest not stored is left out). */
export async function modelBytes(db: Db, digests: readonly string[]): Promise<Map<string, Buffer>> {
  if (digests.length === 0) return new Map();
  const rows = await db
    .selectFrom("models")
    .select(["digest", "onnx"])
    .where("digest", "in", [...digests])
    .execute();
  return new Map(rows.map((r) => [r.digest, r.onnx]));
}
