// The built-in ma_crossover family, an SDK strategy like any uploaded one: long (or short, if
// allowed) while the fast simple moving average of closes is above (below) the slow one. The
// averages are running sums kept in ctx.state, changed by the same operations in the same order
// as the family's vectorised path (../ma-crossover.ts), so both give the same targets to the
// last bit; a library SMA sums each window afresh and differs in the last bits.
import { defineStrategy, param } from "@svc/strategy-sdk";

/** Bars between recomputations of the running sums (they drift over millions of bars). */
const RESUM_EVERY = 1_000_000;
/** The bar where the recomputation first runs, keeping nothing (see onBar). */
const FIRST_LOOK = 64;

interface Sums {
  /** The last `slow` closes; `at` is the next slot, `back` the close leaving the fast average. */
  ring: number[];
  count: number;
  fastSum: number;
  slowSum: number;
  at: number;
  back: number;
  /** The weight last targeted, once `targeted`: a target stands until changed. */
  weight: number;
  targeted: boolean;
}

export default defineStrategy({
  params: {
    fast: param.int({ default: 10, min: 1, description: "bars in the fast average" }),
    slow: param.int({
      default: 30,
      min: 2,
      description: "bars in the slow average; more than fast",
    }),
    allow_short: param.boolean({ default: false, description: "go short when fast < slow" }),
  },
  init(ctx) {
    // A resumed session finds its sums in ctx.state.
    if (Array.isArray(ctx.state.ring)) return;
    const { fast, slow } = ctx.params;
    // -0, a double (0 would be a small integer): the sums and the ring hold doubles from the
    // start, so a long-running process's next run makes them with the shapes its compiled code
    // saw (no slot is read before a close is written to it, and -0 + x is x).
    const ring: number[] = [];
    for (let k = 0; k < slow; k++) ring.push(-0);
    const sums: Sums = {
      ring,
      count: 0,
      fastSum: -0,
      slowSum: -0,
      at: 0,
      back: slow - fast,
      weight: 0,
      targeted: false,
    };
    ctx.state = sums as unknown as typeof ctx.state;
  },
  onBar(ctx) {
    const { fast, slow, allow_short } = ctx.params;
    const symbol = ctx.symbols[0]!;
    const close = ctx.bars(symbol).value("close");
    const s = ctx.state as unknown as Sums;
    const ring = s.ring;
    const i = s.at;
    if (s.count >= slow) s.slowSum -= ring[i]!;
    if (s.count >= fast) s.fastSum -= ring[s.back]!;
    ring[i] = close;
    s.slowSum += close;
    s.fastSum += close;
    const count = ++s.count;
    s.at = i + 1 === slow ? 0 : i + 1;
    s.back = s.back + 1 === slow ? 0 : s.back + 1;
    const due = count % RESUM_EVERY === 0;
    if (due || count === FIRST_LOOK) {
      // At FIRST_LOOK every operation of the recomputation runs over one term and nothing is
      // kept: the JIT has seen it before it compiles the backtest's loop. Seen first at the
      // millionth bar, it threw that code away there, and again in a long-running process's
      // next run (second-run.test.ts).
      // Both conditions worked out apart, so that the compiled loop has seen each one's compare.
      const full = count >= slow;
      const keep = due && full;
      const terms = keep ? slow : 1;
      let sl = 0;
      let fa = 0;
      for (let k = 0; k < terms; k++) {
        const v = ring[(count - 1 - k + slow * 2) % slow]!;
        sl += v;
        if (k < fast) fa += v;
      }
      s.slowSum = keep ? sl : s.slowSum;
      s.fastSum = keep ? fa : s.fastSum;
    }
    let weight = 0;
    if (count >= slow) {
      const f = s.fastSum / fast;
      const a = s.slowSum / slow;
      weight = f > a ? 1 : f < a ? (allow_short ? -1 : 0) : 0;
    }
    if (weight !== s.weight || !s.targeted) {
      s.weight = weight;
      s.targeted = true;
      ctx.target(symbol, { weight });
    }
  },
});
