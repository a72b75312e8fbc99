import { seededWalk, setFixLogLevel, startDevVenue, type DevVenue } from "@svc/dev-venue";
import type { ExecutionEvent } from "../events.js";
import type { VenueReport } from "../kernel/venue.js";

export const USER = "bot-7";
export const PASSWORD = "a long enough password for the dev venue";

setFixLogLevel("none");

/** The dev venue of a test: TEST has no liquidity (the test makes its own), BTC-USD has some. */
export function devVenue(binance?: { apiKey: string; apiSecret: string }): Promise<DevVenue> {
  return startDevVenue({
    username: USER,
    password: PASSWORD,
    symbols: ["TEST"],
    liquidity: [{ symbol: "BTC-USD", closes: seededWalk(3), levels: 3, size: 2 }],
    ...(binance ? { binance } : {}),
  });
}

/** Another trader on the venue, in-process: the counterparty of a test's orders. */
export function counterparty(
  venue: DevVenue,
  clOrdId: string,
  side: "buy" | "sell",
  qty: number,
  price: number,
  symbol = "TEST",
): void {
  venue.exchange.submit("counterparty", { clOrdId, symbol, side, kind: "limit", qty, price });
}

type RecordData = {
  [K in ExecutionEvent["type"]]: Extract<ExecutionEvent, { type: K }>["data"];
};

/** The kernel's records an adapter writes, as a bot's event log would keep them. */
export class Records {
  readonly events: ExecutionEvent[] = [];
  readonly report: VenueReport = { event: (e) => this.events.push(e) };

  of<T extends keyof RecordData>(type: T): RecordData[T][] {
    return this.events.filter((e) => e.type === type).map((e) => e.data as RecordData[T]);
  }

  filledUnits(orderId: string): number {
    return this.of("order_filled")
      .filter((f) => f.order_id === orderId)
      .reduce((sum, f) => sum + f.units, 0);
  }
}
