/**
 * Parses a duration such as 4h, 30m, 90s or 1h30m into seconds; null when malformed or zero.
 */
export function ttlSeconds(ttl: string): number | null {
  if (!/^([0-9]+(h|m|s))+$/.test(ttl)) return null;
  let total = 0;
  for (const [, n, unit] of ttl.matchAll(/([0-9]+)(h|m|s)/g))
    total += Number(n) * (unit === "h" ? 3600 : unit === "m" ? 60 : 1);
  return total > 0 ? total : null;
}
