import { allocateBars, setBar, type Bars } from "../engine/bars.js";
import { headOf } from "../engine/csv-source.js";

/**
 * Bars of a coarser timeframe from finer ones, as they stream: each output bar covers
 * [k * tf, (k + 1) * tf) counted from the epoch (so 1h bars start on the hour, 1d at midnight
 * UTC), opening at its first input bar's open, closing at its last one's close, with the highest
 * high, the lowest low and the summed volume. A bucket with no input bar makes no output bar.
 */
export async function* resampleBars(
  input: AsyncIterable<Bars>,
  tfMs: number,
): AsyncGenerator<Bars> {
  let bucket = NaN;
  let o = 0;
  let h = 0;
  let l = 0;
  let c = 0;
  let v = 0;
  for await (const chunk of input) {
    const out = allocateBars(chunk.length + 1);
    let n = 0;
    for (let i = 0; i < chunk.length; i++) {
      const t = chunk.time[i]!;
      const k = Math.floor(t / tfMs) * tfMs;
      if (k !== bucket) {
        if (!Number.isNaN(bucket)) setBar(out, n++, bucket, o, h, l, c, v);
        bucket = k;
        o = chunk.open[i]!;
        h = chunk.high[i]!;
        l = chunk.low[i]!;
        v = 0;
      }
      h = Math.max(h, chunk.high[i]!);
      l = Math.min(l, chunk.low[i]!);
      c = chunk.close[i]!;
      v += chunk.volume[i]!;
    }
    if (n > 0) yield headOf(out, n);
  }
  if (!Number.isNaN(bucket)) {
    const last = allocateBars(1);
    setBar(last, 0, bucket, o, h, l, c, v);
    yield last;
  }
}
