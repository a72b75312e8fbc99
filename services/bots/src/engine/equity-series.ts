/** One point of a run's equity curve, with the drawdown from the running peak at that bar. */
export interface EquityPoint {
  time: number;
  equity: number;
  /** (peak - equity) / peak, 0 at a new high. */
  drawdown: number;
}

/** Buckets a series keeps at most: up to two points each, so at most 4,096 points served. */
export const SERIES_BUCKETS = 2048;

/**
 * The equity curve and drawdown series of a run, bounded whatever its length. Every bar is a
 * bucket of its own until SERIES_BUCKETS are full; then neighbouring buckets merge in pairs and
 * each new bucket spans twice as many bars (1, 2, 4, ... bars). A bucket keeps its last point and
 * the point of its deepest drawdown, so downsampling never hides a loss: the curve's worst
 * drawdown is always one of the points served, and the last point is the run's last bar.
 *
 * The engine's per-bar cost is one counter of its own (bars left in the open bucket, which
 * `close` answers); `deepen` runs only when a drawdown deepens and `close` once per bucket.
 */
export class EquitySeries {
  /** Bars per bucket now. */
  bucketBars = 1;
  private n = 0;
  private readonly lastT = new Float64Array(SERIES_BUCKETS);
  private readonly lastE = new Float64Array(SERIES_BUCKETS);
  private readonly lastD = new Float64Array(SERIES_BUCKETS);
  private readonly deepT = new Float64Array(SERIES_BUCKETS);
  private readonly deepE = new Float64Array(SERIES_BUCKETS);
  /** -1: the bucket has no deepening point before its last. */
  private readonly deepD = new Float64Array(SERIES_BUCKETS);
  /**
   * The open bucket's deepest point so far: time, equity, drawdown (-1: none). In an array, not
   * fields: a field that starts as the integer 0 or -1 and later holds a fraction changes the
   * object's shape mid-run, and code compiled against the first run's shapes recompiles in the
   * next run of a long-running process.
   */
  private readonly open = Float64Array.of(NaN, 0, -1);

  /** A drawdown deepened at this bar (the engine knows it without extra work). */
  deepen(time: number, equity: number, drawdown: number): void {
    const open = this.open;
    if (drawdown > open[2]!) {
      open[0] = time;
      open[1] = equity;
      open[2] = drawdown;
    }
  }

  /** The open bucket's last bar: closes it; answers how many bars the next bucket takes. */
  close(time: number, equity: number, peak: number): number {
    const i = this.n++;
    this.lastT[i] = time;
    this.lastE[i] = equity;
    this.lastD[i] = peak > 0 ? (peak - equity) / peak : 0;
    const open = this.open;
    const before = open[2]! >= 0 && open[0]! < time;
    this.deepT[i] = before ? open[0]! : NaN;
    this.deepE[i] = before ? open[1]! : 0;
    this.deepD[i] = before ? open[2]! : -1;
    open[2] = -1;
    if (this.n === SERIES_BUCKETS) this.halve();
    return this.bucketBars;
  }

  /** Merges neighbouring buckets: the pair's last point, and its deepest other point. */
  private halve(): void {
    const half = this.n >> 1;
    for (let k = 0; k < half; k++) {
      const a = 2 * k;
      const b = a + 1;
      // Candidates for the merged bucket's deep point: a's deep, a's last, b's deep.
      let t = this.deepT[a]!;
      let e = this.deepE[a]!;
      let d = this.deepD[a]!;
      if (this.lastD[a]! > d) {
        t = this.lastT[a]!;
        e = this.lastE[a]!;
        d = this.lastD[a]!;
      }
      if (this.deepD[b]! > d) {
        t = this.deepT[b]!;
        e = this.deepE[b]!;
        d = this.deepD[b]!;
      }
      this.deepT[k] = t;
      this.deepE[k] = e;
      this.deepD[k] = d;
      this.lastT[k] = this.lastT[b]!;
      this.lastE[k] = this.lastE[b]!;
      this.lastD[k] = this.lastD[b]!;
    }
    this.n = half;
    this.bucketBars *= 2;
  }

  /** The points kept, in time order; `downsampled` when buckets span more than one bar. */
  points(): { points: EquityPoint[]; downsampled: boolean; bucketBars: number } {
    const out: EquityPoint[] = [];
    for (let i = 0; i < this.n; i++) {
      if (this.deepD[i]! >= 0)
        out.push({ time: this.deepT[i]!, equity: this.deepE[i]!, drawdown: this.deepD[i]! });
      out.push({ time: this.lastT[i]!, equity: this.lastE[i]!, drawdown: this.lastD[i]! });
    }
    return { points: out, downsampled: this.bucketBars > 1, bucketBars: this.bucketBars };
  }
}
