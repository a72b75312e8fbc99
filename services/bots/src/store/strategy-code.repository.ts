import type { Kysely, Transaction } from "kysely";
import type { BotsDatabase } from "./bots.table.js";

type Db = Kysely<BotsDatabase>;
type Trx = Transaction<BotsDatabase>;

export interface StoredStrategyFile {
  path: string;
  content: string;
}

/**
 * Stores a checked strategy's source and bundle under their digests, in the transaction that
 * makes the version naming them. Content-addressed: a digest already stored is the same content,
 * so a second writer (another bot, a racing request) adds nothing.
 */
export async function storeStrategyCode(
  trx: Trx,
  code: {
    digest: string;
    files: StoredStrategyFile[];
    bundleDigest: string;
    bundle: string;
    sourceMap?: string;
  },
): Promise<void> {
  await trx
    .insertInto("strategy_sources")
    .values({
      digest: code.digest,
      files: JSON.stringify(code.files.map((f) => [f.path, f.content])),
    })
    .onConflict((oc) => oc.column("digest").doNothing())
    .execute();
  await trx
    .insertInto("strategy_bundles")
    .values({ digest: code.bundleDigest, bundle: code.bundle, source_map: code.sourceMap ?? null })
    // A bundle stored before maps were kept gets its map from the next upload of its code.
    .onConflict((oc) =>
      code.sourceMap === undefined
        ? oc.column("digest").doNothing()
        : oc
            .column("digest")
            .doUpdateSet({ source_map: code.sourceMap })
            .where("strategy_bundles.source_map", "is", null),
    )
    .execute();
}

/** The canonical files stored under a source digest, entry first; undefined when none is. */
export async function findStrategySource(
  db: Db | Trx,
  digest: string,
): Promise<StoredStrategyFile[] | undefined> {
  const row = await db
    .selectFrom("strategy_sources")
    .select("files")
    .where("digest", "=", digest)
    .executeTakeFirst();
  if (!row) return undefined;
  return (JSON.parse(row.files) as [string, string][]).map(([path, content]) => ({
    path,
    content,
  }));
}

/** The bundle stored under a bundle digest: what the sandbox will run. */
export async function findStrategyBundle(
  db: Db | Trx,
  digest: string,
): Promise<string | undefined> {
  const row = await db
    .selectFrom("strategy_bundles")
    .select("bundle")
    .where("digest", "=", digest)
    .executeTakeFirst();
  return row?.bundle;
}

/** The source map stored with a bundle, if one was (TypeScript bundles stored since maps are). */
export async function findStrategySourceMap(
  db: Db | Trx,
  digest: string,
): Promise<string | undefined> {
  const row = await db
    .selectFrom("strategy_bundles")
    .select("source_map")
    .where("digest", "=", digest)
    .executeTakeFirst();
  return row?.source_map ?? undefined;
}
