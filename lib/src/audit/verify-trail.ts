import { firstBrokenLink, GENESIS_HASH, type ChainLink } from "./chain.js";
import { checkpointRefusal, type SignedCheckpoint } from "./checkpoint.js";

/** What is wrong where a trail stops holding; callers branch on it, people read `why`. */
export type TrailProblem =
  /** a row's content does not hash to its hash */
  | "altered"
  /** a seq is missing in the middle (a row deleted) */
  | "rows_missing"
  /** a row does not name the hash of the row before it */
  | "prev_hash_mismatch"
  /** a checkpoint vouches for rows the table no longer has */
  | "truncated"
  /** the row at a checkpoint's seq is not the one it vouched for: the chain was recomputed */
  | "rewritten"
  /** rows after the newest checkpoint: no signed checkpoint vouches for them */
  | "unanchored"
  /** a checkpoint names a trusted key but its signature does not verify */
  | "bad_checkpoint_signature";

/** The first sequence that does not hold, its row id when the row exists, and why. */
export interface TrailBreak {
  seq: number;
  id: string;
  problem: TrailProblem;
  why: string;
}

/** What a check of the trail against its checkpoints found. */
export interface TrailVerdict {
  rows: number;
  headSeq: number;
  headHash: string;
  /** The highest seq an authentic checkpoint vouches for (0: none); above the head when cut. */
  anchoredSeq: number;
  /** Authentic checkpoints compared with the rows. */
  checkpoints: number;
  /** Checkpoints signed by a key the verifier does not trust: ignored, never believed. */
  untrustedCheckpoints: number;
  broken?: TrailBreak;
}

/**
 * The checkpoints a verify reads around the rows: `before` the rows were read (the newest few:
 * every row they vouch for must still be there, or the tail was cut off) and `after` (a row read
 * that none of them vouches for was not appended by the identity service). Reading them in that
 * order keeps rows appended meanwhile from passing for a truncation or a forgery.
 */
export interface CheckpointsAround {
  before: readonly SignedCheckpoint[];
  after: readonly SignedCheckpoint[];
}

/**
 * Checks the whole trail (rows in seq order from 1) twice over: each link recomputed
 * (firstBrokenLink), and the rows against the signed checkpoints kept outside the database.
 * A tail cut off, a chain recomputed after an edit, a row appended behind the service's back and
 * a checkpoint with a bad signature are each named by the first sequence they make bad; when
 * several problems exist, the lowest sequence wins.
 *
 * @example const v = await verifyTrail(rows, { before, after }, [checkpointKey]);
 */
export async function verifyTrail(
  rows: readonly ChainLink[],
  around: CheckpointsAround,
  trusted: ReadonlyArray<{ publicKeyId: string; publicKey: Uint8Array }>,
): Promise<TrailVerdict> {
  // The same checkpoint read twice counts once; one that copies another's signature does not.
  const identity = (c: SignedCheckpoint) => JSON.stringify([c.payload, c.signature]);
  const seen = new Set<string>();
  const checkpoints = [...around.before, ...around.after].filter(
    (c) => !seen.has(identity(c)) && seen.add(identity(c)),
  );
  const signedBeforeRead = new Set(around.before.map(identity));
  const head = rows.at(-1);
  const headSeq = head?.seq ?? 0;
  const bySeq = new Map(rows.map((r) => [r.seq, r]));
  const found: TrailBreak[] = [];
  const chainBreak = firstBrokenLink(rows);
  if (chainBreak) found.push(chainBreak);

  const authentic: SignedCheckpoint[] = [];
  let untrusted = 0;
  for (const c of checkpoints) {
    const refusal = await checkpointRefusal(c, trusted);
    if (refusal === "unknown_key") untrusted++;
    else if (refusal === "bad_signature")
      found.push({
        seq: Math.max(1, Number(c.payload.seq) || 1),
        id: bySeq.get(c.payload.seq)?.id ?? "",
        problem: "bad_checkpoint_signature",
        why: `the checkpoint for seq ${c.payload.seq} signed at ${c.payload.time} claims key ${c.payload.key_id} but its signature does not verify: it was forged or altered`,
      });
    else authentic.push(c);
  }
  authentic.sort((a, b) => a.payload.seq - b.payload.seq);
  const holds = (c: SignedCheckpoint) =>
    c.payload.seq === 0
      ? c.payload.head_hash === GENESIS_HASH
      : bySeq.get(c.payload.seq)?.hash === c.payload.head_hash;

  for (const c of authentic) {
    const { seq, head_hash: hash, time } = c.payload;
    if (seq > headSeq) {
      // A checkpoint read after the rows may vouch for a row appended since: not a truncation.
      if (!signedBeforeRead.has(identity(c))) continue;
      found.push({
        seq: headSeq + 1,
        id: "",
        problem: "truncated",
        why: `the checkpoint signed at ${time} vouches for seq ${seq} (hash ${hash}), but the trail ends at seq ${headSeq}: rows ${headSeq + 1} to ${seq} were removed`,
      });
      continue;
    }
    if (holds(c)) continue;
    const row = bySeq.get(seq);
    if (!row) {
      found.push({
        seq,
        id: "",
        problem: "rows_missing",
        why: `the checkpoint signed at ${time} vouches for seq ${seq}, which the trail no longer has`,
      });
      continue;
    }
    // The rewrite began after the newest checkpoint below this one that still holds.
    const lastGood = authentic
      .filter((b) => b.payload.seq < seq && b.payload.seq <= headSeq && holds(b))
      .at(-1);
    const from = (lastGood?.payload.seq ?? 0) + 1;
    found.push({
      seq: from,
      id: bySeq.get(from)?.id ?? "",
      problem: "rewritten",
      why:
        from === seq
          ? `row ${seq} hashes to ${row.hash}, but the checkpoint signed at ${time} vouches for ${hash}: it was rewritten and the chain recomputed`
          : `row ${seq} hashes to ${row.hash}, but the checkpoint signed at ${time} vouches for ${hash}: the chain was rewritten and recomputed from seq ${from} at the earliest (the last checkpoint that holds is seq ${from - 1})`,
    });
  }

  // A checkpoint beyond the head (a cut tail, reported above) still vouches for the rows below it.
  const anchoredSeq = authentic.at(-1)?.payload.seq ?? 0;
  if (headSeq > anchoredSeq) {
    const first = anchoredSeq + 1;
    found.push({
      seq: first,
      id: bySeq.get(first)?.id ?? "",
      problem: "unanchored",
      why:
        authentic.length === 0
          ? `no trusted signed checkpoint vouches for any row (rows 1 to ${headSeq})`
          : `no signed checkpoint vouches for rows ${first} to ${headSeq}: the identity service did not append them (a forged row), or their checkpoint never reached the checkpoint stream`,
    });
  }

  found.sort((a, b) => a.seq - b.seq);
  return {
    rows: rows.length,
    headSeq,
    headHash: head?.hash ?? GENESIS_HASH,
    anchoredSeq,
    checkpoints: authentic.length,
    untrustedCheckpoints: untrusted,
    broken: found[0],
  };
}
