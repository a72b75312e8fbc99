/**
 * Milliseconds on the monotonic clock every process of the machine shares (hrtime), read as
 * performance.now() plus an offset: no BigInt per reading. The offset is taken from the pair of
 * readings least far apart of several, so a process descheduled between two of them (the
 * machine is shared) does not shift its clock against the others'.
 */
export function sharedClock(): () => number {
  let best = { gap: Infinity, offset: 0 };
  for (let i = 0; i < 20; i++) {
    const before = performance.now();
    const hr = Number(process.hrtime.bigint()) / 1e6;
    const after = performance.now();
    if (after - before < best.gap)
      best = { gap: after - before, offset: hr - (before + after) / 2 };
  }
  const offset = best.offset;
  return () => offset + performance.now();
}
