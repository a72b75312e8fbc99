/**
 * The file `svc strategy init` writes: a moving-average crossover on the SDK, small enough to
 * read in a minute, and one that passes the checker as it stands.
 */
export const MA_CROSSOVER_EXAMPLE = `import { defineStrategy, param } from "@svc/strategy-sdk";

/** Mean of the last \`n\` values. */
function mean(values: Float64Array): number {
  let sum = 0;
  for (const v of values) sum += v;
  return values.length === 0 ? 0 : sum / values.length;
}

/**
 * Long while the fast moving average of closes is above the slow one, flat otherwise.
 * Check it with \`svc strategy check strategy.ts\`, upload it with \`svc strategy push\`.
 */
export default defineStrategy({
  params: {
    fast: param.int({ default: 10, min: 2, max: 200, description: "bars of the fast average" }),
    slow: param.int({ default: 30, min: 3, max: 1000, description: "bars of the slow average" }),
    weight: param.number({ default: 1, min: 0, max: 1, description: "fraction of equity held when long" }),
  },
  lookback: 1000,
  onBar(ctx) {
    const { fast, slow, weight } = ctx.params;
    for (const symbol of ctx.symbols) {
      const bars = ctx.bars(symbol);
      if (bars.length < slow) continue;
      const long = mean(bars.closes(fast)) > mean(bars.closes(slow));
      ctx.target(symbol, { weight: long ? weight : 0 });
    }
  },
});
`;
