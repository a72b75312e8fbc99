/**
 * The order path's records with the symbol traded: order records name it as position records do,
 * so a history read alone says what was bought. Backtests and paper sessions add it alike, so
 * their records still compare one for one.
 */
export function namingSymbol<E extends { type: string; data: object }>(
  symbol: string,
  sink: (e: E) => void,
): (e: E) => void {
  return (e) =>
    sink(e.type.startsWith("order_") ? ({ ...e, data: { ...e.data, symbol } } as E) : e);
}
