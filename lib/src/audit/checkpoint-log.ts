import type { SignedCheckpoint } from "./checkpoint.js";

/**
 * Where signed checkpoints are kept outside the database the audit trail lives in: a JetStream
 * stream of their own (openNatsCheckpointLog) or, without NATS, this process's memory.
 */
export interface CheckpointLog {
  /** Which store this is, for the start-up log and the verify answer: what it anchors differs. */
  readonly kind: "jetstream" | "in-process";
  append(c: SignedCheckpoint): Promise<void>;
  /** The newest `n` checkpoints, oldest first. */
  latest(n: number): Promise<SignedCheckpoint[]>;
  close(): Promise<void>;
}

/** How many checkpoints the in-process log keeps. */
const MEMORY_KEEP = 20_000;

/**
 * The in-process log of an all-in-one platform without NATS. It anchors the chain only for the
 * life of the process: a restart forgets every checkpoint, so an edit made while the platform was
 * down is not caught (the start-up log says so).
 */
export function createMemoryCheckpointLog(keep = MEMORY_KEEP): CheckpointLog {
  const kept: SignedCheckpoint[] = [];
  return {
    kind: "in-process",
    async append(c) {
      kept.push(structuredClone(c));
      // A checkpoint per audit row would grow without end; verify reads at most the newest 10,000.
      if (kept.length > keep) kept.splice(0, kept.length - keep);
    },
    async latest(n) {
      return structuredClone(kept.slice(Math.max(0, kept.length - n)));
    },
    async close() {},
  };
}

/**
 * The checkpoint stream names for a NATS namespace. Its subject lies outside `<ns>.>`, which the
 * events stream takes, so the two streams never overlap and neither's limits apply to the other.
 */
export function checkpointStreamOf(namespace = "svc"): { stream: string; subject: string } {
  return {
    stream: `${namespace.toUpperCase().replace(/-/g, "_")}_AUDIT_CHECKPOINTS`,
    subject: `${namespace}_audit.checkpoints`,
  };
}
