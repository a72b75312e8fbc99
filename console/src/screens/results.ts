/**
 * Reading a backtest's results route generously: the series are arrays of points with a time
 * and an equity (and a drawdown), trades have entry and exit. Times may be ISO strings or epoch
 * milliseconds; uPlot wants seconds.
 */
export interface Curve {
  times: number[];
  equity: number[];
  drawdown: (number | null)[];
}

const toSeconds = (t: unknown): number => {
  if (typeof t === "number") return t > 1e11 ? t / 1000 : t;
  if (typeof t === "string") {
    const n = Number(t);
    if (Number.isFinite(n) && t.trim() !== "") return n > 1e11 ? n / 1000 : n;
    return Date.parse(t) / 1000;
  }
  return NaN;
};

type Point = Record<string, unknown>;

function pointsOf(res: Record<string, unknown>): Point[] {
  for (const key of ["equity_curve", "equity", "points", "series", "curve"]) {
    const v = res[key];
    if (Array.isArray(v) && v.length > 0 && typeof v[0] === "object") return v as Point[];
  }
  return [];
}

export function curveOf(res: Record<string, unknown>): Curve {
  const pts = pointsOf(res);
  const times: number[] = [];
  const equity: number[] = [];
  const drawdown: (number | null)[] = [];
  let peak = -Infinity;
  for (const p of pts) {
    const t = toSeconds(p.time ?? p.t ?? p.at ?? p.timestamp);
    const e = Number(p.equity ?? p.value);
    if (!Number.isFinite(t) || !Number.isFinite(e)) continue;
    peak = Math.max(peak, e);
    const dd = p.drawdown !== undefined ? Number(p.drawdown) : peak > 0 ? (peak - e) / peak : 0;
    // Drawdown shown as a negative percentage: below zero reads as a loss.
    times.push(t);
    equity.push(e);
    drawdown.push(Number.isFinite(dd) ? -Math.abs(dd) * 100 : null);
  }
  // uPlot needs ascending times; a series served in order is left as it is.
  return { times, equity, drawdown };
}

export interface TradeRow {
  side: string;
  entryTime: string;
  entryPrice: number;
  exitTime: string;
  exitPrice: number;
  units: number;
  pnl: number;
  fees: number;
  closed: boolean | undefined;
}

export function tradeOf(t: Point): TradeRow {
  const n = (v: unknown) => Number(v ?? NaN);
  const time = (v: unknown) => {
    const s = toSeconds(v);
    return Number.isFinite(s)
      ? new Date(s * 1000).toISOString().slice(0, 19).replace("T", " ") + "Z"
      : "—";
  };
  return {
    side: String(t.side ?? "—").toLowerCase(),
    entryTime: time(t.entry_time ?? t.entryTime),
    entryPrice: n(t.entry_price ?? t.entryPrice),
    exitTime: time(t.exit_time ?? t.exitTime),
    exitPrice: n(t.exit_price ?? t.exitPrice),
    units: n(t.units ?? t.size ?? t.quantity),
    pnl: n(t.pnl),
    fees: n(t.fees),
    closed: typeof t.closed === "boolean" ? t.closed : undefined,
  };
}
