import type { Exchange } from "ccxt";
import { lazily } from "@svc/lib/lazy";
import { allocateBars, setBar, type Bars } from "../engine/bars.js";

// ccxt (every exchange's code) took about half a second of every start of the bots service: it
// loads at the first pull instead.
const loadCcxt = lazily(() => import("ccxt"));
/** ccxt once an exchange was opened: a failure is only ever judged after that. */
let loaded: (typeof import("ccxt"))["default"] | undefined;

/** Why a pull stopped short: the exchange refused the request, or could not be reached. */
export class PullFailed extends Error {
  constructor(
    readonly reason: "refused" | "unreachable",
    message: string,
  ) {
    super(message);
  }
}

/**
 * A ccxt exchange by id, its URLs pointed at `baseUrl` when one is given (the dev venue's facade
 * of that exchange): every API URL keeps its path and takes the base's origin. Spot markets only
 * then, since a facade serves no futures API.
 */
export async function openExchange(
  id: string,
  baseUrl: string | undefined,
  timeoutMs: number,
): Promise<Exchange> {
  const ccxt = (loaded = (await loadCcxt()).default);
  const Ctor = (ccxt as unknown as Record<string, new (config: object) => Exchange>)[id];
  if (!Ctor || !(ccxt.exchanges as string[]).includes(id))
    throw new PullFailed("refused", `ccxt knows no exchange ${id}`);
  const ex = new Ctor({ enableRateLimit: true, timeout: timeoutMs });
  if (baseUrl) {
    const base = baseUrl.replace(/\/+$/, "");
    const api = ex.urls["api"] as Record<string, string> | string;
    const moved = (u: string) => base + new URL(u).pathname.replace(/\/+$/, "");
    (ex.urls as Record<string, unknown>)["api"] =
      typeof api === "string"
        ? moved(api)
        : Object.fromEntries(
            Object.entries(api).map(([k, u]) => [k, typeof u === "string" ? moved(u) : u]),
          );
    ex.options["fetchMarkets"] = { types: ["spot"] };
    ex.options["fetchMargins"] = false;
    ex.options["fetchCurrencies"] = false;
  }
  return ex;
}

/** Checks that the exchange answers and lists `market`, before anything is written. */
export async function checkMarket(ex: Exchange, market: string): Promise<void> {
  let markets: Record<string, unknown>;
  try {
    markets = await ex.loadMarkets();
  } catch (err) {
    throw failure(ex, err, `loadMarkets`);
  }
  if (!markets[market])
    throw new PullFailed(
      "refused",
      `${ex.id} lists no market ${market}; it lists ${Object.keys(markets).slice(0, 20).join(", ")}`,
    );
}

/**
 * OHLCV pages from `fromMs` up to `untilMs` (exclusive), through fetchOHLCV, each page starting
 * after the previous page's last bar. Only closed bars: a bar still forming (its close after
 * `untilMs`) is left for a later pull. Ends when a page brings nothing new.
 */
export async function* ohlcvPages(
  ex: Exchange,
  q: { market: string; timeframe: string; tfMs: number; fromMs: number; untilMs: number },
): AsyncGenerator<Bars> {
  let since = q.fromMs;
  const lastOpen = q.untilMs - q.tfMs;
  while (since <= lastOpen) {
    const page = await fetchPage(ex, q.market, q.timeframe, since);
    const rows = page.filter(([t]) => t !== undefined && t >= since && t <= lastOpen);
    if (rows.length === 0) return;
    const bars = allocateBars(rows.length);
    rows.forEach(([t, o, h, l, c, v], i) => setBar(bars, i, t!, o!, h!, l!, c!, v ?? 0));
    yield bars;
    since = bars.time[bars.length - 1]! + q.tfMs;
  }
}

async function fetchPage(ex: Exchange, market: string, timeframe: string, since: number) {
  try {
    return (await ex.fetchOHLCV(market, timeframe, since)) as (number | undefined)[][];
  } catch (err) {
    throw failure(ex, err, `fetchOHLCV(${market}, ${timeframe})`);
  }
}

/** A ccxt error as a pull's failure: the exchange unreachable or failing, or refusing the call. */
function failure(ex: Exchange, err: unknown, what: string): PullFailed {
  const message = err instanceof Error ? err.message : String(err);
  // ccxt's OperationFailed is what may pass if tried again: network errors, timeouts, rate
  // limits, an exchange not available or failing on its side.
  if (loaded && err instanceof loaded.OperationFailed)
    return new PullFailed("unreachable", `${ex.id} did not answer ${what}: ${message}`);
  return new PullFailed("refused", `${ex.id} refused ${what}: ${message}`);
}
