import { createHash, type Hash } from "node:crypto";
import { allocateBars, setBar, type Bars } from "../engine/bars.js";
import { badRow, DataInputError, type BarRow, type DataErrorCode } from "./rows.js";

/** Bars of one symbol in a stored chunk: 64k bars are 3 MiB of columns. */
export const CHUNK_BARS = 65_536;
/** Most bars held across all symbols before every partial chunk is written out. */
const MAX_BUFFERED_BARS = 262_144;

/** What a data set's bars add up to, as the catalog shows it. */
export interface BarStats {
  symbols: string[];
  firstMs: number;
  lastMs: number;
  count: number;
  gaps: number;
}

interface SymbolState {
  bars: Bars;
  n: number;
  seq: number;
  lastMs: number;
  firstMs: number;
  count: number;
  gaps: number;
}

/** Where chunks go as they fill: the store, one chunk per call, in order per symbol. */
export type ChunkSink = (symbol: string, seq: number, bars: Bars) => Promise<void>;

/**
 * Cuts a stream of rows into per-symbol chunks of bars and writes each as it fills, so an
 * import holds at most MAX_BUFFERED_BARS bars whatever the file's size. Each symbol's times
 * must be strictly increasing (symbols may interleave); a row without a symbol takes
 * `defaultSymbol`, and a file with a symbol column may not also be given one.
 */
export async function chunkRows(
  rows: AsyncIterable<BarRow>,
  opts: {
    defaultSymbol: string;
    timeframeMs: number;
    code: DataErrorCode;
    sink: ChunkSink;
    chunkBars?: number;
  },
): Promise<BarStats> {
  const chunkBars = opts.chunkBars ?? CHUNK_BARS;
  const states = new Map<string, SymbolState>();
  let buffered = 0;
  const flush = async (symbol: string, s: SymbolState) => {
    if (s.n === 0) return;
    await opts.sink(symbol, s.seq++, headOf(s.bars, s.n));
    buffered -= s.n;
    s.bars = allocateBars(Math.min(chunkBars, 1024));
    s.n = 0;
  };
  for await (const row of rows) {
    if (row.symbol && opts.defaultSymbol)
      throw badRow(
        opts.code,
        row.at,
        `the file has a symbol column (${row.symbol}); leave the request's symbol (${opts.defaultSymbol}) empty`,
      );
    const symbol = row.symbol || opts.defaultSymbol;
    if (!symbol)
      throw new DataInputError(
        "invalid_argument",
        "the file has no symbol column; give the request a symbol (for example BTC-USD)",
        row.at,
        "symbol",
      );
    let s = states.get(symbol);
    if (!s) {
      s = {
        bars: allocateBars(1024),
        n: 0,
        seq: 0,
        lastMs: -Infinity,
        firstMs: row.time,
        count: 0,
        gaps: 0,
      };
      states.set(symbol, s);
    }
    if (row.time <= s.lastMs)
      throw badRow(
        opts.code,
        row.at,
        `timestamps must be strictly increasing (per symbol: ${symbol})`,
      );
    if (s.count > 0 && row.time - s.lastMs > opts.timeframeMs) s.gaps++;
    if (s.n === s.bars.length) s.bars = grown(s.bars, Math.min(chunkBars, s.bars.length * 2));
    setBar(s.bars, s.n++, row.time, row.open, row.high, row.low, row.close, row.volume);
    s.lastMs = row.time;
    s.count++;
    buffered++;
    if (s.n === chunkBars) await flush(symbol, s);
    else if (buffered >= MAX_BUFFERED_BARS) for (const [sym, st] of states) await flush(sym, st);
  }
  for (const [sym, st] of states) await flush(sym, st);
  if (states.size === 0)
    throw new DataInputError("empty_data", "the file has a header but no bars");
  const all = [...states.values()];
  return {
    symbols: [...states.keys()].sort(),
    firstMs: Math.min(...all.map((s) => s.firstMs)),
    lastMs: Math.max(...all.map((s) => s.lastMs)),
    count: all.reduce((n, s) => n + s.count, 0),
    gaps: all.reduce((n, s) => n + s.gaps, 0),
  };
}

/**
 * The digest of a data set's bars: per symbol, sha256 of its bars in time order, each bar as six
 * float64 (time, open, high, low, close, volume); then sha256 of the symbols sorted, each with its
 * digest. Equal bars give an equal digest however they were chunked or which file they came
 * from; symbols may be fed interleaved, each one's chunks in time order.
 */
export class BarDigest {
  private readonly perSymbol = new Map<string, Hash>();

  add(symbol: string, b: Bars): void {
    let hash = this.perSymbol.get(symbol);
    if (!hash) this.perSymbol.set(symbol, (hash = createHash("sha256")));
    const rows = new Float64Array(b.length * 6);
    for (let i = 0; i < b.length; i++) {
      rows[i * 6] = b.time[i]!;
      rows[i * 6 + 1] = b.open[i]!;
      rows[i * 6 + 2] = b.high[i]!;
      rows[i * 6 + 3] = b.low[i]!;
      rows[i * 6 + 4] = b.close[i]!;
      rows[i * 6 + 5] = b.volume[i]!;
    }
    hash.update(new Uint8Array(rows.buffer));
  }

  hex(): string {
    const all = createHash("sha256");
    for (const symbol of [...this.perSymbol.keys()].sort())
      all.update(`${symbol}\n${this.perSymbol.get(symbol)!.digest("hex")}\n`);
    return all.digest("hex");
  }
}

function grown(b: Bars, size: number): Bars {
  const out = allocateBars(size);
  for (const k of ["time", "open", "high", "low", "close", "volume"] as const) out[k].set(b[k]);
  return out;
}

function headOf(b: Bars, n: number): Bars {
  return {
    length: n,
    time: b.time.slice(0, n),
    open: b.open.slice(0, n),
    high: b.high.slice(0, n),
    low: b.low.slice(0, n),
    close: b.close.slice(0, n),
    volume: b.volume.slice(0, n),
  };
}
