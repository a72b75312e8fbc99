/** Result of combinatorially symmetric cross-validation. */
export interface PboResult {
  /** Probability of backtest overfitting: the share of splits whose logit is at most 0. */
  pbo: number;
  splits: number;
  /** Logits λ of the out-of-sample relative rank of the in-sample best, one per split. */
  logits: Float64Array;
  medianLogit: number;
}

/**
 * Probability of Backtest Overfitting by CSCV (Bailey, Borwein, López de Prado and Zhu, 2017).
 * `columns` holds N trials' return series of equal length T. Rows are cut into S equal blocks
 * (the T mod S last rows are dropped); for each of the C(S, S/2) ways to pick half the blocks as
 * in-sample, the in-sample best trial n* (by Sharpe ratio) is ranked out of sample, ω = rank/(N+1),
 * λ = ln(ω/(1 − ω)), and PBO is the share of λ ≤ 0 (a tie at the median counts as overfit:
 * the conservative reading of the paper's integral up to 0).
 *
 * Each split costs O(S·N): per-block sums and sums of squares are computed once.
 */
export function probabilityOfBacktestOverfitting(
  columns: ArrayLike<number>[],
  blocks = 16,
): PboResult {
  const n = columns.length;
  if (n < 2) throw new RangeError(`PBO needs at least 2 trials, got ${n}`);
  if (!Number.isInteger(blocks) || blocks < 2 || blocks % 2 !== 0)
    throw new RangeError(
      `the number of blocks S must be an even whole number of at least 2, got ${blocks}`,
    );
  if (blocks > 30) throw new RangeError(`S of ${blocks} gives too many splits; use at most 30`);
  const t = columns[0]!.length;
  if (columns.some((c) => c.length !== t))
    throw new RangeError("every trial needs a return series of the same length");
  const size = Math.floor(t / blocks);
  if (size < 2)
    throw new RangeError(
      `${t} returns cannot be cut into ${blocks} blocks of at least 2; use fewer blocks or more data`,
    );

  // sums[b * n + j] and squares[b * n + j]: block b, trial j.
  const sums = new Float64Array(blocks * n);
  const squares = new Float64Array(blocks * n);
  for (let j = 0; j < n; j++) {
    const col = columns[j]!;
    for (let b = 0; b < blocks; b++) {
      let s = 0;
      let q = 0;
      for (let r = b * size, end = r + size; r < end; r++) {
        const v = col[r]!;
        s += v;
        q += v * v;
      }
      sums[b * n + j] = s;
      squares[b * n + j] = q;
    }
  }

  const half = blocks / 2;
  const count = size * half;
  const isSum = new Float64Array(n);
  const isSq = new Float64Array(n);
  const logits: number[] = [];
  const total = (1 << blocks) - 1;
  // Gosper's hack: every bitmask with exactly `half` bits set, in increasing order.
  for (let mask = (1 << half) - 1; mask <= total;) {
    isSum.fill(0);
    isSq.fill(0);
    for (let b = 0; b < blocks; b++) {
      if ((mask & (1 << b)) === 0) continue;
      const off = b * n;
      for (let j = 0; j < n; j++) {
        isSum[j]! += sums[off + j]!;
        isSq[j]! += squares[off + j]!;
      }
    }
    let best = 0;
    let bestSr = -Infinity;
    for (let j = 0; j < n; j++) {
      const sr = sharpeOf(isSum[j]!, isSq[j]!, count);
      if (sr > bestSr) {
        bestSr = sr;
        best = j;
      }
    }
    // Out of sample = all blocks minus in-sample.
    let below = 0;
    let ties = 0;
    const bestOos = sharpeOf(
      totalSum(sums, n, blocks, best) - isSum[best]!,
      totalSum(squares, n, blocks, best) - isSq[best]!,
      count,
    );
    for (let j = 0; j < n; j++) {
      if (j === best) continue;
      const sr = sharpeOf(
        totalSum(sums, n, blocks, j) - isSum[j]!,
        totalSum(squares, n, blocks, j) - isSq[j]!,
        count,
      );
      if (sr < bestOos) below++;
      else if (sr === bestOos) ties++;
    }
    const omega = (below + 1 + ties / 2) / (n + 1);
    logits.push(Math.log(omega / (1 - omega)));
    const c = mask & -mask;
    const r = mask + c;
    mask = (((r ^ mask) >>> 2) / c) | r;
  }
  const sorted = Float64Array.from(logits).sort();
  const overfit = logits.filter((l) => l <= 0).length;
  return {
    pbo: overfit / logits.length,
    splits: logits.length,
    logits: Float64Array.from(logits),
    medianLogit: sorted[Math.floor(sorted.length / 2)]!,
  };
}

function sharpeOf(sum: number, sq: number, count: number): number {
  const mean = sum / count;
  const variance = (sq - sum * mean) / (count - 1);
  return variance > 0 ? mean / Math.sqrt(variance) : mean > 0 ? Infinity : mean < 0 ? -Infinity : 0;
}

function totalSum(values: Float64Array, n: number, blocks: number, j: number): number {
  let s = 0;
  for (let b = 0; b < blocks; b++) s += values[b * n + j]!;
  return s;
}
