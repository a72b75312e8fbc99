import {
  CompiledQuery,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
  type DatabaseConnection,
  type Dialect,
  type Driver,
  type Kysely,
  type QueryResult,
  type TransactionSettings,
} from "kysely";
import { isBackground } from "./query-priority.js";

/** What the dialect needs of PGlite: the instance itself, or one on a thread of its own. */
export interface PgliteLike {
  query<R>(sql: string, params?: unknown[]): Promise<{ rows: R[]; affectedRows?: number }>;
  close(): Promise<void>;
}

/**
 * Background work waiting longer than this is served before requests that arrived after it, so
 * a steady stream of requests cannot hold a finished run's results back for ever.
 */
const BACKGROUND_MAX_WAIT_MS = 5_000;

export interface PriorityOptions {
  backgroundMaxWaitMs?: number;
}

interface Waiter {
  since: number;
  take(connection: DatabaseConnection): void;
}

class PgliteConnection implements DatabaseConnection {
  constructor(private readonly client: PgliteLike) {}

  async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    const result = await this.client.query<R>(query.sql, [...query.parameters]);
    return result.affectedRows
      ? { numAffectedRows: BigInt(result.affectedRows), rows: result.rows }
      : { rows: result.rows };
  }

  /** PGlite has no cursors: the whole result, handed out in chunks. */
  async *streamQuery<R>(
    query: CompiledQuery,
    chunkSize = 100,
  ): AsyncIterableIterator<QueryResult<R>> {
    const { rows } = await this.executeQuery<R>(query);
    for (let i = 0; i < rows.length; i += chunkSize) yield { rows: rows.slice(i, i + chunkSize) };
  }
}

/**
 * PGlite's one connection, handed to one transaction (or lone query) at a time, as
 * kysely-pglite-dialect does, but not first come first served: a waiting request goes before
 * waiting background work (query-priority.ts).
 */
class PrioritisedDriver implements Driver {
  private readonly connection: PgliteConnection;
  private held = false;
  private readonly requests: Waiter[] = [];
  private readonly background: Waiter[] = [];

  constructor(
    private readonly client: PgliteLike,
    private readonly backgroundMaxWaitMs: number,
  ) {
    this.connection = new PgliteConnection(client);
  }

  async init(): Promise<void> {}

  acquireConnection(): Promise<DatabaseConnection> {
    if (!this.held) {
      this.held = true;
      return Promise.resolve(this.connection);
    }
    return new Promise((take) =>
      (isBackground() ? this.background : this.requests).push({ since: Date.now(), take }),
    );
  }

  async releaseConnection(): Promise<void> {
    const overdue =
      this.background[0] && Date.now() - this.background[0].since > this.backgroundMaxWaitMs;
    const next = overdue
      ? this.background.shift()
      : (this.requests.shift() ?? this.background.shift());
    if (next) next.take(this.connection);
    else this.held = false;
  }

  async beginTransaction(conn: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    await conn.executeQuery(
      CompiledQuery.raw(
        settings.isolationLevel
          ? `start transaction isolation level ${settings.isolationLevel}`
          : "begin",
      ),
    );
  }

  async commitTransaction(conn: DatabaseConnection): Promise<void> {
    await conn.executeQuery(CompiledQuery.raw("commit"));
  }

  async rollbackTransaction(conn: DatabaseConnection): Promise<void> {
    await conn.executeQuery(CompiledQuery.raw("rollback"));
  }

  async destroy(): Promise<void> {
    await this.client.close();
  }
}

export class PrioritisedPgliteDialect implements Dialect {
  constructor(
    private readonly client: PgliteLike,
    private readonly opts: PriorityOptions = {},
  ) {}
  createAdapter = () => new PostgresAdapter();
  createDriver = (): Driver =>
    new PrioritisedDriver(this.client, this.opts.backgroundMaxWaitMs ?? BACKGROUND_MAX_WAIT_MS);
  createQueryCompiler = () => new PostgresQueryCompiler();
  createIntrospector = (db: Kysely<unknown>) => new PostgresIntrospector(db);
}
