import { duration } from "./output.js";
import type { BacktestProgress } from "./wire.js";

const WIDTH = 30;

/** How far a run is, from the deployment's progress: bars done of total, elapsed, time left. */
export interface Progress {
  done: number;
  total: number;
  elapsedS: number;
  remainingS: number;
}

export function progressOf(p: BacktestProgress | null | undefined): Progress | undefined {
  if (!p) return undefined;
  return {
    done: Number(p.bars_done ?? 0),
    total: Number(p.bars_total ?? 0),
    elapsedS: p.elapsed_s ?? 0,
    remainingS: p.remaining_s ?? 0,
  };
}

/** `[#########.....................]  30%  300/1,000 bars  elapsed 2s  eta 5s` */
export function progressBar(p: Progress): string {
  const fraction = p.total > 0 ? Math.min(1, p.done / p.total) : 0;
  const filled = Math.round(fraction * WIDTH);
  return `[${"#".repeat(filled)}${".".repeat(WIDTH - filled)}] ${progressText(p)}`;
}

/** The same facts without the bar, for logs (`svc backtest ... | tee`). */
export function progressText(p: Progress): string {
  const pct = p.total > 0 ? Math.floor((Math.min(p.done, p.total) / p.total) * 100) : 0;
  const eta = p.remainingS > 0 ? `  eta ${duration(p.remainingS)}` : "";
  return `${String(pct).padStart(3)}%  ${p.done.toLocaleString("en-US")}/${p.total.toLocaleString("en-US")} bars  elapsed ${duration(p.elapsedS)}${eta}`;
}
