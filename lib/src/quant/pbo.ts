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
 * Per-block sums and sums of squares, and each trial's totals, are computed once; the splits
 * share the in-sample sums of their common first blocks, so a split costs O(N) on average.
 * `logits` are in the lexicographic order of the in-sample block sets.
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
  const inverseCount = 1 / (size * half);
  // Per-trial totals over every block, summed in block order once (not once per split).
  const totSum = new Float64Array(n);
  const totSq = new Float64Array(n);
  for (let j = 0; j < n; j++) {
    let s = 0;
    let q = 0;
    for (let b = 0; b < blocks; b++) {
      s += sums[b * n + j]!;
      q += squares[b * n + j]!;
    }
    totSum[j] = s;
    totSq[j] = q;
  }

  // In-sample sums are built along the combinations in lexicographic order: level k holds the
  // sum of the first k chosen blocks, shared by every split that starts with them, and each level
  // adds its block to the one above in ascending block order, as a sum started afresh would, so
  // every figure is the same to the last bit as summing each split's blocks from zero.
  const prefixSum = Array.from({ length: half }, () => new Float64Array(n));
  const prefixSq = Array.from({ length: half }, () => new Float64Array(n));
  const isSum = new Float64Array(n);
  const isSq = new Float64Array(n);
  const logits: number[] = [];

  const split = (above: number, b: number): void => {
    const fromSum = prefixSum[above]!;
    const fromSq = prefixSq[above]!;
    const off = b * n;
    let best = 0;
    let bestSr = -Infinity;
    for (let j = 0; j < n; j++) {
      const s = fromSum[j]! + sums[off + j]!;
      const q = fromSq[j]! + squares[off + j]!;
      isSum[j] = s;
      isSq[j] = q;
      const sr = sharpeKey(s, q, inverseCount);
      if (sr > bestSr) {
        bestSr = sr;
        best = j;
      }
    }
    // Out of sample = all blocks minus in-sample.
    const bestOos = sharpeKey(
      totSum[best]! - isSum[best]!,
      totSq[best]! - isSq[best]!,
      inverseCount,
    );
    let below = 0;
    let ties = 0;
    for (let j = 0; j < n; j++) {
      if (j === best) continue;
      const sr = sharpeKey(totSum[j]! - isSum[j]!, totSq[j]! - isSq[j]!, inverseCount);
      if (sr < bestOos) below++;
      else if (sr === bestOos) ties++;
    }
    const omega = (below + 1 + ties / 2) / (n + 1);
    logits.push(Math.log(omega / (1 - omega)));
  };

  // chosen: how many blocks the prefix at level `chosen` holds; from: the first block to try next.
  const choose = (chosen: number, from: number): void => {
    const last = blocks - (half - chosen);
    if (chosen === half - 1) {
      for (let b = from; b <= last; b++) split(chosen, b);
      return;
    }
    const upSum = prefixSum[chosen]!;
    const upSq = prefixSq[chosen]!;
    const downSum = prefixSum[chosen + 1]!;
    const downSq = prefixSq[chosen + 1]!;
    for (let b = from; b <= last; b++) {
      const off = b * n;
      for (let j = 0; j < n; j++) {
        downSum[j] = upSum[j]! + sums[off + j]!;
        downSq[j] = upSq[j]! + squares[off + j]!;
      }
      choose(chosen + 1, b + 1);
    }
  };
  choose(0, 0);

  const sorted = Float64Array.from(logits).sort();
  const overfit = logits.filter((l) => l <= 0).length;
  return {
    pbo: overfit / logits.length,
    splits: logits.length,
    logits: Float64Array.from(logits),
    medianLogit: sorted[Math.floor(sorted.length / 2)]!,
  };
}

/**
 * A key that orders trials as their Sharpe ratios do, at a fraction of the cost: with mean m and
 * the sum of squared deviations d (d/(count-1) is the variance), Sharpe·|Sharpe| is
 * m·|m|/d·(count-1), and the constant factor (count-1) changes no order. No square root, one
 * division.
 */
function sharpeKey(sum: number, sq: number, inverseCount: number): number {
  const mean = sum * inverseCount;
  const deviations = sq - sum * mean;
  if (deviations > 0) return (mean * Math.abs(mean)) / deviations;
  return mean > 0 ? Infinity : mean < 0 ? -Infinity : 0;
}
