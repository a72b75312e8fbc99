import { AsyncLocalStorage } from "node:async_hooks";

/**
 * Work nobody is waiting on (a finished backtest's results, the outbox relay, event consumers)
 * marks itself as background. Where the database is one connection (embedded PGlite), a request
 * waiting for that connection is served before background work that waits too: 200 backtests
 * writing their results would otherwise queue every `GET` behind them. On a Postgres pool it
 * changes nothing.
 */
const background = new AsyncLocalStorage<true>();

/** Runs `fn` (and every query it makes, however deep) as background work. */
export function inBackground<T>(fn: () => T): T {
  return background.run(true, fn);
}

export function isBackground(): boolean {
  return background.getStore() === true;
}
