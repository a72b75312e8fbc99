import {
  InsertQueryNode,
  TableNode,
  type KyselyPlugin,
  type PluginTransformQueryArgs,
  type PluginTransformResultArgs,
  type QueryId,
  type QueryResult,
  type RootOperationNode,
  type UnknownRow,
} from "kysely";

/** A row this process has just inserted into the chain (its transaction may not have committed). */
export interface AppendedRow {
  seq: number;
  hash: string;
  prevHash: string;
}

/**
 * Tells `onAppend` of every row inserted into security_audit_events through the database handle
 * it is plugged into, whichever handler or consumer appended it: the checkpointer vouches only for
 * rows this service appended, never for a row that appeared in the table some other way. Reads
 * the `returning` of appendAuditEvent's insert.
 */
export function watchAuditAppends(onAppend: (row: AppendedRow) => void): KyselyPlugin {
  const inserts = new WeakSet<QueryId>();
  return {
    transformQuery({ node, queryId }: PluginTransformQueryArgs): RootOperationNode {
      if (
        InsertQueryNode.is(node) &&
        node.into !== undefined &&
        TableNode.is(node.into) &&
        node.into.table.identifier.name === "security_audit_events"
      )
        inserts.add(queryId);
      return node;
    },
    async transformResult({
      result,
      queryId,
    }: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
      if (inserts.has(queryId))
        for (const r of result.rows)
          if (typeof r.hash === "string" && typeof r.prev_hash === "string")
            onAppend({ seq: Number(r.seq), hash: r.hash, prevHash: r.prev_hash });
      return result;
    },
  };
}
