import { LIQUIDITY_ACCOUNT, type Exchange } from "./exchange.js";

export interface LiquidityOptions {
  symbol: string;
  closes: readonly number[];
  /** Price levels on each side. */
  levels: number;
  /** Size at each level. */
  size: number;
  /** Distance of the first level and between levels, as a fraction of the close (0.0005 = 5 bp). */
  step: number;
  tick: number;
}

/**
 * A market maker that quotes `levels` bids and asks around the current close and, at each
 * advance, moves to the next close of the path (wrapping at its end): it cancels its old quotes
 * and places new ones in one batch, so subscribers see one book update per bar.
 */
export class SeededLiquidity {
  private index = 0;
  private quoteSeq = 0;

  constructor(
    private readonly exchange: Exchange,
    readonly options: LiquidityOptions,
  ) {}

  get close(): number {
    return this.options.closes[this.index]!;
  }

  /** Quotes around the current close. */
  quote(): void {
    const { symbol, levels, size, step, tick } = this.options;
    const round = (p: number) => Math.round(p / tick) * tick;
    this.exchange.batch(() => {
      this.exchange.massCancel(LIQUIDITY_ACCOUNT, symbol);
      for (let i = 1; i <= levels; i++) {
        const bid = round(this.close * (1 - step * i));
        const ask = round(this.close * (1 + step * i));
        for (const [side, price] of [
          ["buy", bid],
          ["sell", ask],
        ] as const)
          this.exchange.submit(LIQUIDITY_ACCOUNT, {
            clOrdId: `q${++this.quoteSeq}`,
            symbol,
            side,
            kind: "limit",
            qty: size,
            price: Number(price.toFixed(10)),
          });
      }
    });
  }

  /** Moves to the next bar's close and quotes there. */
  advance(): void {
    this.index = (this.index + 1) % this.options.closes.length;
    this.quote();
  }
}
