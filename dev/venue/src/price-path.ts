import { readFileSync } from "node:fs";

/**
 * The closes the seeded liquidity follows. From a CSV with a `close` column (the bots service's
 * bundled BTC-USD daily file by default, read from its path in the repo: nothing is copied) or,
 * when no file is given, a seeded random walk so two runs with one seed quote the same prices.
 */
export function closesFromCsv(path: string): number[] {
  const [header, ...rows] = readFileSync(path, "utf8").split(/\r?\n/);
  const column = (header ?? "")
    .split(",")
    .map((h) => h.trim().toLowerCase())
    .indexOf("close");
  if (column < 0) throw new Error(`${path}: no "close" column in the header`);
  const closes: number[] = [];
  rows.forEach((row, i) => {
    if (!row.trim()) return;
    const close = Number(row.split(",")[column]);
    if (!(Number.isFinite(close) && close > 0))
      throw new Error(`${path}: line ${i + 2}: close is not a positive number`);
    closes.push(close);
  });
  if (closes.length === 0) throw new Error(`${path}: no bars`);
  return closes;
}

export function seededWalk(
  seed: number,
  start = 30_000,
  steps = 1_000,
  volatility = 0.01,
): number[] {
  let state = seed >>> 0;
  // mulberry32: small, fast, and the same sequence for the same seed on every machine.
  const random = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const closes = [start];
  for (let i = 1; i < steps; i++)
    closes.push(closes[i - 1]! * (1 + (random() - 0.5) * 2 * volatility));
  return closes;
}
