"""The reference for bench/src/quant/dsr-pbo.ts: PBO by CSCV written the way a numpy user would,
vectorised over every split at once (block sums, a 0/1 split matrix times them, Sharpe ratios
for all splits and trials, argmax, comparisons). Reads N*T float64 (trial-major) from argv[1],
prints {"pbo", "splits", "runs_ms"} as JSON.

Usage: python3 pbo_numpy.py FILE N T S RUNS"""
import itertools
import json
import sys
import time

import numpy as np


def pbo(returns, blocks):
    t, n = returns.shape
    size = t // blocks
    cut = returns[: size * blocks].reshape(blocks, size, n)
    sums = cut.sum(axis=1)
    squares = (cut * cut).sum(axis=1)
    combos = np.array(list(itertools.combinations(range(blocks), blocks // 2)))
    chosen = np.zeros((len(combos), blocks))
    chosen[np.arange(len(combos))[:, None], combos] = 1.0
    is_sum, is_sq = chosen @ sums, chosen @ squares
    count = size * (blocks // 2)

    def sharpe(s, q):
        mean = s / count
        return mean / np.sqrt((q - s * mean) / (count - 1))

    in_sample = sharpe(is_sum, is_sq)
    best = in_sample.argmax(axis=1)
    out_of_sample = sharpe(sums.sum(axis=0) - is_sum, squares.sum(axis=0) - is_sq)
    best_oos = out_of_sample[np.arange(len(combos)), best][:, None]
    below = (out_of_sample < best_oos).sum(axis=1)
    ties = (out_of_sample == best_oos).sum(axis=1) - 1
    omega = (below + 1 + ties / 2) / (n + 1)
    logits = np.log(omega / (1 - omega))
    return float((logits <= 0).mean()), len(combos)


def main():
    path, n, t, s, runs = sys.argv[1], *map(int, sys.argv[2:6])
    returns = np.fromfile(path, dtype=np.float64).reshape(n, t).T.copy()
    value, splits = pbo(returns, s)
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        pbo(returns, s)
        times.append((time.perf_counter() - started) * 1000)
    print(json.dumps({"pbo": value, "splits": splits, "runs_ms": times, "numpy": np.__version__}))


main()
