// The bench's MA crossover on the SDK (the sandbox tests run the same file's twin): long while the
// fast simple average of closes is above the slow one.
import { defineStrategy, param, SMA } from "@svc/strategy-sdk";

let fast: SMA;
let slow: SMA;

export default defineStrategy({
  params: {
    fast: param.int({ default: 10, min: 1, description: "bars in the fast average" }),
    slow: param.int({ default: 30, min: 2, description: "bars in the slow average" }),
    allow_short: param.boolean({ default: false, description: "go short when fast < slow" }),
  },
  init(ctx) {
    fast = new SMA(ctx.params.fast);
    slow = new SMA(ctx.params.slow);
  },
  onBar(ctx) {
    const symbol = ctx.symbols[0]!;
    const close = ctx.bars(symbol).latest.close;
    const f = fast.add(close);
    const s = slow.add(close);
    if (f === null || s === null) return;
    const weight = f > s ? 1 : f < s ? (ctx.params.allow_short ? -1 : 0) : 0;
    ctx.target(symbol, { weight });
  },
});
