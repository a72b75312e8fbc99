// jspurefix resolves its parts through tsyringe, which needs the metadata polyfill loaded first.
import "reflect-metadata";
import type { ILooseObject } from "jspurefix";
import { MDEntryType, MDUpdateAction } from "jspurefix/dist/types/FIX4.4/repo/index.js";
import type { Depth, Exchange, Trade } from "./exchange.js";

type Levels = Map<number, number>;

interface Subscription {
  readonly reqId: string;
  readonly symbols: readonly string[];
  readonly depth: number;
  readonly book: boolean;
  readonly trades: boolean;
  /** What the subscriber last heard of each symbol's book, to send only what changed. */
  readonly last: Map<string, { bids: Levels; asks: Levels }>;
}

const toLevels = (side: Depth["bids"]): Levels => new Map(side);

/**
 * One session's market data subscriptions: a snapshot (W) at subscribe, then incremental
 * refreshes (X) of the aggregated price levels that changed and of each trade.
 */
export class MarketDataSubscriptions {
  private readonly subs = new Map<string, Subscription>();

  constructor(
    private readonly exchange: Exchange,
    private readonly send: (msgType: string, body: ILooseObject) => void,
  ) {}

  has(reqId: string): boolean {
    return this.subs.has(reqId);
  }

  remove(reqId: string): boolean {
    return this.subs.delete(reqId);
  }

  clear(): void {
    this.subs.clear();
  }

  /** Sends one snapshot per symbol; keeps the subscription when `updates`. */
  subscribe(
    reqId: string,
    symbols: readonly string[],
    depth: number,
    entryTypes: ReadonlySet<string>,
    updates: boolean,
  ): void {
    const sub: Subscription = {
      reqId,
      symbols,
      depth,
      book: entryTypes.has(MDEntryType.Bid) || entryTypes.has(MDEntryType.Offer),
      trades: entryTypes.has(MDEntryType.Trade),
      last: new Map(),
    };
    for (const symbol of symbols) {
      const d = this.exchange.depth(symbol, depth);
      sub.last.set(symbol, { bids: toLevels(d.bids), asks: toLevels(d.asks) });
      const entries = sub.book
        ? [
            ...d.bids.map(([px, size]) => ({
              MDEntryType: MDEntryType.Bid,
              MDEntryPx: px,
              MDEntrySize: size,
            })),
            ...d.asks.map(([px, size]) => ({
              MDEntryType: MDEntryType.Offer,
              MDEntryPx: px,
              MDEntrySize: size,
            })),
          ]
        : [];
      this.send("W", {
        MDReqID: reqId,
        Instrument: { Symbol: symbol },
        ...(entries.length > 0 ? { MDFullGrp: entries } : {}),
      });
    }
    if (updates) this.subs.set(reqId, sub);
  }

  onBookChange(symbol: string): void {
    for (const sub of this.subs.values()) {
      if (!sub.book || !sub.symbols.includes(symbol)) continue;
      const d = this.exchange.depth(symbol, sub.depth);
      const now = { bids: toLevels(d.bids), asks: toLevels(d.asks) };
      const before = sub.last.get(symbol) ?? { bids: new Map(), asks: new Map() };
      sub.last.set(symbol, now);
      const entries = [
        ...diff(before.bids, now.bids, MDEntryType.Bid, symbol),
        ...diff(before.asks, now.asks, MDEntryType.Offer, symbol),
      ];
      if (entries.length > 0) this.send("X", { MDReqID: sub.reqId, MDIncGrp: entries });
    }
  }

  onTrade(trade: Trade): void {
    for (const sub of this.subs.values()) {
      if (!sub.trades || !sub.symbols.includes(trade.symbol)) continue;
      this.send("X", {
        MDReqID: sub.reqId,
        MDIncGrp: [
          {
            MDUpdateAction: MDUpdateAction.New,
            MDEntryType: MDEntryType.Trade,
            Instrument: { Symbol: trade.symbol },
            MDEntryPx: trade.price,
            MDEntrySize: trade.qty,
          },
        ],
      });
    }
  }
}

function diff(before: Levels, now: Levels, type: string, symbol: string): ILooseObject[] {
  const out: ILooseObject[] = [];
  const entry = (action: string, px: number, size?: number) => ({
    MDUpdateAction: action,
    MDEntryType: type,
    Instrument: { Symbol: symbol },
    MDEntryPx: px,
    ...(size !== undefined ? { MDEntrySize: size } : {}),
  });
  for (const [px] of before) if (!now.has(px)) out.push(entry(MDUpdateAction.Delete, px));
  for (const [px, size] of now) {
    const was = before.get(px);
    if (was === undefined) out.push(entry(MDUpdateAction.New, px, size));
    else if (was !== size) out.push(entry(MDUpdateAction.Change, px, size));
  }
  return out;
}
