"""The numpy reference of bench/src/sweep/ma-grid.ts: the same MA-crossover grid over the same
closes, as a vectorbt user writes it. Every moving average once (cumulative sums), then the
slow axis broadcast against each fast average, a block of combinations at a time: long while
fast > slow, entered and left at the next bar, a fee per change of position. Prints JSON: each
combination's total return, trades and max drawdown, and the time of each run.

Usage: python3 ma_grid_numpy.py CLOSES.f64 FAST,FAST,... SLOW,SLOW,... FEE_BPS RUNS
"""
import json
import sys
import time

import numpy as np


def sma(cs: np.ndarray, w: int, n: int) -> np.ndarray:
    out = np.full(n, np.nan)
    out[w - 1 :] = (cs[w:] - cs[:-w]) / w
    return out


def grid(close: np.ndarray, fast: list[int], slow: list[int], fee: float):
    n = close.size
    cs = np.concatenate(([0.0], np.cumsum(close)))
    slow_ma = np.stack([sma(cs, w, n) for w in slow])  # (S, n)
    ret = np.empty(n)
    ret[0] = 0.0
    ret[1:] = close[1:] / close[:-1] - 1.0
    total = np.empty((len(fast), len(slow)))
    trades = np.empty((len(fast), len(slow)), dtype=np.int64)
    drawdown = np.empty((len(fast), len(slow)))
    for i, w in enumerate(fast):
        f = sma(cs, w, n)
        # The signal at bar t's close is held from bar t + 1: shifted one bar, broadcast over slow.
        held = np.zeros((len(slow), n), dtype=np.int8)
        held[:, 1:] = f[None, :-1] > slow_ma[:, :-1]
        change = np.abs(np.diff(held, axis=1, prepend=0))
        growth = 1.0 + held * ret[None, :] - change * fee
        equity = np.cumprod(growth, axis=1)
        peak = np.maximum.accumulate(equity, axis=1)
        total[i] = equity[:, -1] - 1.0
        trades[i] = (change.sum(axis=1) + 1) // 2
        drawdown[i] = ((peak - equity) / peak).max(axis=1)
    return total, trades, drawdown


def main() -> None:
    path, fast, slow, fee_bps, runs = sys.argv[1:6]
    close = np.fromfile(path, dtype=np.float64)
    fast_w = [int(x) for x in fast.split(",")]
    slow_w = [int(x) for x in slow.split(",")]
    fee = float(fee_bps) / 10_000
    times = []
    for _ in range(int(runs)):
        t0 = time.perf_counter()
        total, trades, drawdown = grid(close, fast_w, slow_w, fee)
        times.append((time.perf_counter() - t0) * 1000)
    print(
        json.dumps(
            {
                "numpy": np.__version__,
                "runs_ms": times,
                "total_return": total.ravel().tolist(),
                "trades": trades.ravel().tolist(),
                "max_drawdown": drawdown.ravel().tolist(),
            }
        )
    )


if __name__ == "__main__":
    main()
