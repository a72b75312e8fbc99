// The bench's bars: synthetic one-minute bars in chunks of a million, each chunk generated into
// one reused buffer, so no engine holds more than a chunk and generation stays outside the timing.
import { allocateBars, generateBars, type Bars } from "@svc/bots/engine";

export const CHUNK = 1_000_000;
export const SETTINGS = { initialCash: 1e6, feeBps: 5, slippageBps: 2, positionSize: 1 };
export const MA = { fast: 20, slow: 100 };

/**
 * Calls `use` with each chunk of `n` bars in turn (the same bars for every engine), generated into
 * `chunk` (a buffer of CHUNK bars that a caller running twice can pass again).
 */
export function eachChunk(
  n: number,
  use: (chunk: Bars) => void,
  chunk = allocateBars(CHUNK),
): void {
  for (let done = 0, i = 0; done < n; i++) {
    const size = Math.min(CHUNK, n - done);
    const startPrice = i === 0 ? 100 : chunk.close[CHUNK - 1]!;
    generateBars(
      {
        seed: 7 + i,
        count: size,
        startMs: Date.UTC(2000, 0, 1) + done * 60_000,
        intervalMs: 60_000,
        startPrice,
      },
      chunk,
    );
    use(size === CHUNK ? chunk : { ...chunk, length: size });
    done += size;
  }
}
