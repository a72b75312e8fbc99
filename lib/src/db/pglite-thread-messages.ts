/** What opens the embedded database on its thread. */
export interface PgliteThreadInit {
  /** A data folder, or undefined for a database in memory. */
  dataDir?: string;
  /** A template's tarball to load a database in memory from. */
  tarball?: string;
  startParams?: string[];
}

export type ToPgliteThread =
  { id: number; sql: string; params: unknown[] } | { id: number; close: true };

/** A PostgreSQL error's fields (code, detail, constraint...), which a structured clone would drop. */
export type PgliteErrorFields = Record<string, unknown> & { message: string };

export type FromPgliteThread =
  | { ready: true; compiledMs?: number; readyMs: number }
  | { opening: PgliteErrorFields }
  | { id: number; rows: unknown[]; affectedRows?: number }
  | { id: number; error: PgliteErrorFields }
  | { id: number; closed: true };
