import type { ILooseObject } from "jspurefix";
import { eventually } from "../../../test/support/until.js";
import { startDevVenue, type DevVenue, type DevVenueOptions } from "./dev-venue.js";
import {
  connectFixClient,
  type FixClient,
  type FixClientOptions,
  type Received,
} from "./fix-client.js";
import { setFixLogLevel } from "./fix-runtime.js";
import { seededWalk } from "./price-path.js";

export const USER = "trader-1";
export const PASSWORD = "correct horse battery staple";

setFixLogLevel((process.env.SVC_VENUE_TEST_FIX_LOG as "none" | undefined) ?? "none");

/** Everything a test started, closed in reverse at its end. */
export class Harness {
  private readonly clients: FixClient[] = [];
  venue!: DevVenue;

  async start(options: Partial<DevVenueOptions> = {}): Promise<DevVenue> {
    this.venue = await startDevVenue({
      username: USER,
      password: PASSWORD,
      symbols: ["TEST"],
      liquidity: [{ symbol: "BTC-USD", closes: seededWalk(7), levels: 3, size: 2 }],
      controlPort: 0,
      ...options,
    });
    return this.venue;
  }

  async client(options: Partial<FixClientOptions> = {}): Promise<FixClient> {
    const c = await connectFixClient({
      port: this.venue.port,
      username: USER,
      password: PASSWORD,
      heartbeatSeconds: 1,
      ...options,
    });
    this.clients.push(c);
    return c;
  }

  async loggedOn(options: Partial<FixClientOptions> = {}): Promise<FixClient> {
    const c = await this.client(options);
    await c.ready;
    return c;
  }

  async close(): Promise<void> {
    // The venue drops what is still connected; waiting for each client's end proves it let go.
    await this.venue?.close();
    await Promise.all(this.clients.map((c) => c.ended));
  }
}

export function newOrder(
  clOrdId: string,
  side: "buy" | "sell",
  qty: number,
  price?: number,
  symbol = "TEST",
): ILooseObject {
  return {
    ClOrdID: clOrdId,
    Instrument: { Symbol: symbol },
    Side: side === "buy" ? "1" : "2",
    TransactTime: new Date(),
    OrderQtyData: { OrderQty: qty },
    OrdType: price === undefined ? "1" : "2",
    ...(price !== undefined ? { Price: price } : {}),
  };
}

/** Waits for the `n`th message (1-based) of `msgType` that `match` accepts. */
export async function heard(
  client: FixClient,
  what: string,
  msgType: string,
  match: (body: ILooseObject) => boolean = () => true,
  n = 1,
): Promise<ILooseObject> {
  const found = await eventually(
    what,
    () => client.received.filter((r: Received) => r.msgType === msgType && match(r.body)),
    (list) => list.length >= n,
  );
  return found[n - 1]!.body;
}

export const reportsFor = (client: FixClient, clOrdId: string) =>
  client.received.filter((r) => r.msgType === "8" && r.body.ClOrdID === clOrdId).map((r) => r.body);
