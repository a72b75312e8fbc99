import { createRequire as __svcCreateRequire } from "node:module"; const require = __svcCreateRequire(import.meta.url);

// services/bots/src/engine/engine-error.ts
var EngineInputError = class extends Error {
  constructor(code, message, field, line) {
    super(message);
    this.code = code;
    this.field = field;
    this.line = line;
    this.name = "EngineInputError";
  }
  code;
  field;
  line;
};

// services/bots/src/engine/bars.ts
function allocateBars(length) {
  return {
    length,
    time: new Float64Array(length),
    open: new Float64Array(length),
    high: new Float64Array(length),
    low: new Float64Array(length),
    close: new Float64Array(length),
    volume: new Float64Array(length)
  };
}
function setBar(bars, i, time, open2, high, low, close, volume) {
  bars.time[i] = time;
  bars.open[i] = open2;
  bars.high[i] = high;
  bars.low[i] = low;
  bars.close[i] = close;
  bars.volume[i] = volume;
}
function sliceBars(bars, startMs = -Infinity, endMs = Infinity) {
  let from = 0;
  while (from < bars.length && bars.time[from] < startMs) from++;
  let to = from;
  while (to < bars.length && bars.time[to] < endMs) to++;
  return barsAt(bars, from, to);
}
function barsAt(bars, from, to) {
  return {
    length: to - from,
    time: bars.time.subarray(from, to),
    open: bars.open.subarray(from, to),
    high: bars.high.subarray(from, to),
    low: bars.low.subarray(from, to),
    close: bars.close.subarray(from, to),
    volume: bars.volume.subarray(from, to)
  };
}

// services/bots/src/execution/pre-trade.ts
var ACCEPT = { accept: true };
function firstRefusal(checks, order, context) {
  for (const c of checks) {
    const verdict = c.check(order, context);
    if (verdict.accept) continue;
    const record = { check: verdict.control ?? c.name, reason: verdict.reason };
    if (verdict.limit !== void 0) record.limit = verdict.limit;
    if (verdict.value !== void 0) record.value = verdict.value;
    return record;
  }
  return null;
}
function noteAccepted(checks, order, context) {
  for (const c of checks) c.accepted?.(order, context);
}

// services/bots/src/execution/sizing.ts
var DUST_FRACTION = 1e-3;
function ordersForTarget(target, position, equity, price, sizing) {
  const orders = [];
  let from = position;
  if (position !== 0 && (target === 0 || Math.sign(target) !== Math.sign(position))) {
    orders.push({ side: position > 0 ? "sell" : "buy", units: Math.abs(position), closes: true });
    from = 0;
  }
  if (target !== 0) {
    const delta = target * sizing.positionSize * equity / price - from;
    if (!isDust(delta, price, equity))
      orders.push({ side: delta > 0 ? "buy" : "sell", units: Math.abs(delta), closes: false });
  }
  return orders;
}
function isDust(units, price, equity) {
  return Math.abs(units) * price < Math.max(1e-9, Math.abs(equity) * DUST_FRACTION);
}

// services/bots/src/execution/order-pipeline.ts
var OrderPipeline = class {
  constructor(broker, sizing, checks, emit) {
    this.broker = broker;
    this.sizing = sizing;
    this.checks = checks;
    this.emit = emit;
  }
  broker;
  sizing;
  checks;
  emit;
  /**
   * The target the position was last moved to. NaN until the first decision, which brings the
   * position in line whatever it was; a resumed session restores it (see `resumeAt`).
   */
  held = NaN;
  /**
   * A session resumed mid-way continues as if never stopped: the target its strategy relearned
   * at the last bar it saw is the one its position already follows. (After a kill switch halt it
   * therefore trades on the strategy's next change of mind, not on the decision the halt undid.)
   */
  resumeAt(target) {
    this.held = target;
  }
  /** The target the position follows (NaN before the first decision). */
  get target() {
    return this.held;
  }
  /** Whether `decide(target)` has anything to do: the target is not the one the position follows. */
  wouldMove(target) {
    return target !== this.held;
  }
  /**
   * At a bar's close: sends the orders that move the position to `target`, priced at `close`.
   * `time` is the bar's time and `reference` the previous bar's close: the clock and the
   * reference price of the time-window controls and the price collar.
   */
  decide(target, close, time = NaN, reference = NaN) {
    if (target === this.held) return;
    const broker = this.broker;
    if (broker.openOrders.length > 0) return;
    this.held = target;
    const equity = broker.cash + broker.units * close;
    const orders = ordersForTarget(target, broker.units, equity, close, this.sizing);
    let accepted = 0;
    for (const order of orders) {
      const context = this.checks.length === 0 ? null : {
        symbol: broker.symbol,
        price: close,
        equity,
        cash: broker.cash,
        position: broker.units,
        accepted,
        time,
        reference
      };
      const refusal = context ? firstRefusal(this.checks, order, context) : null;
      if (refusal) {
        this.emit?.({
          type: "order_rejected",
          data: { side: order.side, units: order.units, ...refusal }
        });
        continue;
      }
      if (context) noteAccepted(this.checks, order, context);
      broker.place(order.side, order.units);
      accepted += order.side === "buy" ? order.units : -order.units;
    }
  }
};

// services/bots/src/execution/costs.ts
function slipped(side, price, slippageBps) {
  return price * (side === "buy" ? 1 + slippageBps / 1e4 : 1 - slippageBps / 1e4);
}
function feeOf(units, price, feeBps) {
  return units * price * (feeBps / 1e4);
}

// services/bots/src/execution/warm-shapes.ts
function emptyObjects() {
  const out = [null];
  out.pop();
  return out;
}
function emptyNumbers() {
  const out = [0.5];
  out.pop();
  return out;
}
var kept = {
  run: void 0,
  order: void 0
};
function keepRun(run) {
  kept.run = run;
}
function keepOrder(order) {
  kept.order = order;
}

// services/bots/src/execution/simulated-broker.ts
var VOLUME_CANCEL = "volume:";
var SimulatedBroker = class {
  constructor(symbol, account, costs, report) {
    this.symbol = symbol;
    this.costs = costs;
    this.report = report;
    this.cash = account.cash;
    this.units = account.units;
    this.nextId = account.nextOrderId ?? 1;
    this.prefix = account.idPrefix ?? "";
    this.working = account.openOrders ? [...account.openOrders] : emptyObjects();
  }
  symbol;
  costs;
  report;
  // Doubles from the start (NaN, then the account's figures): a field that starts as an integer
  // changes the broker's shape at the first fractional fill, and a long-running process would
  // recompile the order path in its next run.
  cash = NaN;
  units = NaN;
  /** Working orders in placement order: a handful at most, so an array beats a map. */
  working;
  nextId;
  prefix;
  /** Orders placed and neither filled nor cancelled yet. */
  get openOrders() {
    return this.working;
  }
  place(side, units, kind = "market", limitPrice) {
    const order = new PlacedOrder(this.prefix, this.nextId++, side, kind, units, limitPrice);
    keepOrder(order);
    this.working.push(order);
    if (this.report.event) {
      const placed = { order_id: order.id, side, kind, units };
      if (limitPrice !== void 0) placed.limit_price = limitPrice;
      this.report.event({ type: "order_placed", data: placed });
    }
    return order;
  }
  cancel(id, reason) {
    const at = this.working.findIndex((o) => o.id === id);
    if (at < 0) return;
    this.working.splice(at, 1);
    this.report.event?.({ type: "order_cancelled", data: { order_id: id, reason } });
  }
  cancelAll(reason) {
    for (const o of [...this.working]) this.cancel(o.id, reason);
  }
  /** Fills what a new bar allows, in placement order, within its `volume` (see the class). */
  onBar(open2, high, low, volume = NaN) {
    if (this.working.length !== 0) this.fillWorking(open2, high, low, volume);
  }
  fillWorking(open2, high, low, volume) {
    const orders = this.working;
    const share = this.costs.maxVolumeParticipation ?? 0;
    let room = share > 0 && volume > 0 ? share * volume : Infinity;
    const cancelled = [];
    let kept2 = 0;
    for (let i = 0, n = orders.length; i < n; i++) {
      const order = orders[i];
      const price = fillPrice(order, open2, high, low, this.costs.slippageBps);
      if (Number.isNaN(price)) {
        orders[kept2++] = order;
        continue;
      }
      const units = Math.min(order.units, room);
      if (units === order.units) {
        room -= units;
        this.fill(order, price, units);
        continue;
      }
      room = 0;
      if (units > 0) this.fill(order, price, units);
      const rest = order.units - units;
      const why = `bar volume ${volume} times max_volume_participation ${share} left ${rest} of ${order.units} units unfilled`;
      if (order.kind === "limit") {
        order.units = rest;
        orders[kept2++] = order;
      } else cancelled.push({ order, reason: `${VOLUME_CANCEL} ${why}` });
    }
    while (orders.length > kept2) orders.pop();
    for (const c of cancelled)
      this.report.event?.({
        type: "order_cancelled",
        data: { order_id: c.order.id, reason: c.reason }
      });
  }
  /** Closes the position at once at `price` (a flatten on a kill switch cannot wait a bar). */
  flattenAt(price) {
    if (this.units === 0) return;
    const order = this.place(this.units > 0 ? "sell" : "buy", Math.abs(this.units));
    this.working.pop();
    this.fill(order, slipped(order.side, price, this.costs.slippageBps), order.units);
  }
  /** Books a fill of `units` of an order (all of it unless the bar's volume binds). */
  fill(order, price, units) {
    const fee = feeOf(units, price, this.costs.feeBps);
    const signed = order.side === "buy" ? units : -units;
    this.cash -= signed * price + fee;
    this.units += signed;
    this.report.fill?.(signed, price, fee);
    const event = this.report.event;
    if (!event) return;
    const data = { order_id: order.id, side: order.side, units, price, fee };
    if (units !== order.units) data.unfilled = order.units - units;
    event({ type: "order_filled", data });
    event({ type: "position_changed", data: { symbol: this.symbol, units: this.units } });
  }
  get nextOrderId() {
    return this.nextId;
  }
};
function fillPrice(order, open2, high, low, slippageBps) {
  if (order.kind === "market") return slipped(order.side, open2, slippageBps);
  const limit = order.limitPrice;
  if (order.side === "buy") return low <= limit ? Math.min(open2, limit) : NaN;
  return high >= limit ? Math.max(open2, limit) : NaN;
}
var PlacedOrder = class {
  constructor(prefix, seq, side, kind, units, limitPrice) {
    this.prefix = prefix;
    this.seq = seq;
    this.side = side;
    this.kind = kind;
    this.units = units;
    this.limitPrice = limitPrice;
  }
  prefix;
  seq;
  side;
  kind;
  units;
  limitPrice;
  get id() {
    return `${this.prefix}o${this.seq}`;
  }
};

// services/bots/src/engine/equity-series.ts
var SERIES_BUCKETS = 2048;
var EquitySeries = class {
  /** Bars per bucket now. */
  bucketBars = 1;
  n = 0;
  lastT = new Float64Array(SERIES_BUCKETS);
  lastE = new Float64Array(SERIES_BUCKETS);
  lastD = new Float64Array(SERIES_BUCKETS);
  deepT = new Float64Array(SERIES_BUCKETS);
  deepE = new Float64Array(SERIES_BUCKETS);
  /** -1: the bucket has no deepening point before its last. */
  deepD = new Float64Array(SERIES_BUCKETS);
  /**
   * The open bucket's deepest point so far: time, equity, drawdown (-1: none). In an array, not
   * fields: a field that starts as the integer 0 or -1 and later holds a fraction changes the
   * object's shape mid-run, and code compiled against the first run's shapes recompiles in the
   * next run of a long-running process.
   */
  open = Float64Array.of(NaN, 0, -1);
  /** A drawdown deepened at this bar (the engine knows it without extra work). */
  deepen(time, equity, drawdown) {
    const open2 = this.open;
    if (drawdown > open2[2]) {
      open2[0] = time;
      open2[1] = equity;
      open2[2] = drawdown;
    }
  }
  /** The open bucket's last bar: closes it; answers how many bars the next bucket takes. */
  close(time, equity, peak) {
    const i = this.n++;
    this.lastT[i] = time;
    this.lastE[i] = equity;
    this.lastD[i] = peak > 0 ? (peak - equity) / peak : 0;
    const open2 = this.open;
    const before = open2[2] >= 0 && open2[0] < time;
    this.deepT[i] = before ? open2[0] : NaN;
    this.deepE[i] = before ? open2[1] : 0;
    this.deepD[i] = before ? open2[2] : -1;
    open2[2] = -1;
    if (this.n === SERIES_BUCKETS) this.halve();
    return this.bucketBars;
  }
  /** Merges neighbouring buckets: the pair's last point, and its deepest other point. */
  halve() {
    const half = this.n >> 1;
    for (let k = 0; k < half; k++) {
      const a = 2 * k;
      const b = a + 1;
      let t = this.deepT[a];
      let e = this.deepE[a];
      let d = this.deepD[a];
      if (this.lastD[a] > d) {
        t = this.lastT[a];
        e = this.lastE[a];
        d = this.lastD[a];
      }
      if (this.deepD[b] > d) {
        t = this.deepT[b];
        e = this.deepE[b];
        d = this.deepD[b];
      }
      this.deepT[k] = t;
      this.deepE[k] = e;
      this.deepD[k] = d;
      this.lastT[k] = this.lastT[b];
      this.lastE[k] = this.lastE[b];
      this.lastD[k] = this.lastD[b];
    }
    this.n = half;
    this.bucketBars *= 2;
  }
  /** The points kept, in time order; `downsampled` when buckets span more than one bar. */
  points() {
    const out = [];
    for (let i = 0; i < this.n; i++) {
      if (this.deepD[i] >= 0)
        out.push({ time: this.deepT[i], equity: this.deepE[i], drawdown: this.deepD[i] });
      out.push({ time: this.lastT[i], equity: this.lastE[i], drawdown: this.lastD[i] });
    }
    return { points: out, downsampled: this.bucketBars > 1, bucketBars: this.bucketBars };
  }
};

// services/bots/src/engine/symbol-events.ts
function namingSymbol(symbol, sink) {
  return (e) => sink(e.type.startsWith("order_") ? { ...e, data: { ...e.data, symbol } } : e);
}

// services/bots/src/engine/metrics.ts
function riskAdjusted(daily, periodsPerYear = 252) {
  const n = daily.length;
  if (n < 2) return { sharpe: 0, sortino: 0 };
  let sum = 0;
  for (let i = 0; i < n; i++) sum += daily[i];
  const mean = sum / n;
  let ss = 0;
  let down = 0;
  for (let i = 0; i < n; i++) {
    const d = daily[i] - mean;
    ss += d * d;
    if (daily[i] < 0) down += daily[i] * daily[i];
  }
  const sd = Math.sqrt(ss / (n - 1));
  const dd = Math.sqrt(down / n);
  const root = Math.sqrt(periodsPerYear);
  return { sharpe: sd > 0 ? mean / sd * root : 0, sortino: dd > 0 ? mean / dd * root : 0 };
}

// services/bots/src/engine/trade-book.ts
var MAX_TRADES_KEPT = 1e5;
var TradeBook = class {
  constructor(limit = MAX_TRADES_KEPT) {
    this.limit = limit;
  }
  limit;
  trades = emptyObjects();
  /** Closed trades past `limit`, counted and not kept (memory stays bounded on any run). */
  dropped = 0;
  // The numbers below hold fractions once trading starts, so each starts as one: a field that
  // starts as the integer 0 changes the book's shape at the first fractional fill, and code the JIT
  // compiled against the first run's books recompiles in the next run of a long-running process.
  /** The position; -0 is flat like 0 (it is only compared with 0 and added to). */
  units = -0;
  open;
  // The open trade's averages: set at its opening fill, before any read.
  added = NaN;
  addedCost = NaN;
  reduced = NaN;
  reducedValue = NaN;
  fill(time, signed, price, fee) {
    if (signed === 0) return;
    const before = this.units;
    const after = before + signed;
    if (before !== 0 && Math.sign(after) !== Math.sign(before)) {
      const closing = -before;
      const share = Math.abs(closing / signed);
      this.apply(time, closing, price, fee * share);
      if (after !== 0) this.apply(time, after, price, fee * (1 - share));
      return;
    }
    this.apply(time, signed, price, fee);
  }
  /** A fill that does not cross zero. */
  apply(time, signed, price, fee) {
    if (this.units === 0) {
      this.open = {
        side: signed > 0 ? "long" : "short",
        entryTime: time,
        entryPrice: price,
        exitTime: time,
        exitPrice: price,
        units: 0,
        pnl: 0,
        fees: 0,
        closed: false
      };
      this.added = this.addedCost = this.reduced = this.reducedValue = 0;
    }
    const t = this.open;
    const growing = Math.sign(signed) === Math.sign(this.units) || this.units === 0;
    this.units += signed;
    t.pnl += -signed * price - fee;
    t.fees += fee;
    if (growing) {
      this.added += Math.abs(signed);
      this.addedCost += Math.abs(signed) * price;
      t.entryPrice = this.addedCost / this.added;
      t.units = Math.max(t.units, Math.abs(this.units));
    } else {
      this.reduced += Math.abs(signed);
      this.reducedValue += Math.abs(signed) * price;
      t.exitPrice = this.reducedValue / this.reduced;
      t.exitTime = time;
    }
    if (Math.abs(this.units) < 1e-12) {
      this.units = 0;
      t.closed = true;
      if (this.trades.length < this.limit) this.trades.push(t);
      else this.dropped++;
      this.open = void 0;
    }
  }
  /** The trades, with one still open marked at the last close (its exit is that bar). */
  finish(lastTime, lastClose) {
    const t = this.open;
    if (!t || this.units === 0) return this.trades;
    const units = this.units;
    const marked = units * lastClose;
    const reducedValue = this.reducedValue + Math.abs(units) * lastClose;
    return [
      ...this.trades,
      {
        ...t,
        exitTime: lastTime,
        exitPrice: reducedValue / (this.reduced + Math.abs(units)),
        pnl: t.pnl + marked
      }
    ];
  }
};

// services/bots/src/engine/strategies/strategy.ts
var TARGET_BLOCK = 4096;

// services/bots/src/engine/event-engine.ts
var DAY_MS = 864e5;
var BLOCK = TARGET_BLOCK;
var BacktestRun = class {
  /**
   * `signal` is a strategy (the event-driven path) or a family's vectorised columns (see
   * `StrategyFamily.columns`): given the same targets, the runs are the same to the last bit.
   */
  constructor(signal, settings, options = {}) {
    this.settings = settings;
    if ("onBar" in signal) this.strategy = signal;
    else this.columns = signal;
    const symbol = options.symbol ?? "ASSET";
    const onEvent = options.onEvent && namingSymbol(symbol, options.onEvent);
    const account = { cash: settings.initialCash, units: 0 };
    this.broker = new SimulatedBroker(symbol, account, settings, new RunReport(this, onEvent));
    this.pipeline = new OrderPipeline(this.broker, settings, options.checks ?? [], onEvent);
    this.cash = settings.initialCash;
    this.units = this.fees = this.maxDrawdown = this.tradeCash = 0;
    this.peak = this.trough = settings.initialCash;
    this.lastEquity = settings.initialCash;
    this.dayStartEquity = settings.initialCash;
  }
  settings;
  broker;
  pipeline;
  strategy;
  columns;
  // Every field below that comes to hold fractions is declared NaN (a double) and set in the
  // constructor: a field that starts as an integer changes the run's shape at its first
  // fraction, and code run once per run (feed, feedBars' entry) would then be compiled in the
  // next run from the first run's shapes and deoptimise in the one after it.
  /** The target of the bar `scan` stopped at (set there before it is read). */
  target = NaN;
  // The books as of the last fill, kept here so the per-bar loop reads its own fields only.
  cash = NaN;
  units = NaN;
  /** Orders went out at the last close: the next bar's open fills them. */
  sent = false;
  /** The vectorised path's targets of the current block, one slot per bar. */
  targets = new Float64Array(BLOCK);
  bars = 0;
  barsInMarket = 0;
  fees = NaN;
  peak = NaN;
  trough = NaN;
  maxDrawdown = NaN;
  lastEquity = NaN;
  day = NaN;
  nextDay = -Infinity;
  dayStartEquity = NaN;
  daily = emptyNumbers();
  /** The day (days since the epoch) each of `daily` belongs to. */
  days = [];
  series = new EquitySeries();
  /** Bars left in the curve's open bucket: the one count the per-bar loop pays for the curve. */
  due = 1;
  book = new TradeBook();
  /** Time of the bar whose open fills the orders sent at the last close. */
  fillTime = NaN;
  lastTime = NaN;
  trades = 0;
  wins = 0;
  tradeCash = NaN;
  /** The last close of the previous chunk: the reference price of a chunk's first bar. */
  lastClose = NaN;
  /** Runs the next chunk of bars, continuing where the previous chunk ended. */
  feed(b) {
    if (this.strategy) this.feedBars(b, this.strategy, this.lastClose);
    else this.feedColumns(b, this.columns, this.lastClose);
    this.bars += b.length;
    if (b.length > 0) {
      this.lastClose = b.close[b.length - 1];
      this.lastTime = b.time[b.length - 1];
    }
  }
  /**
   * The event-driven path: the strategy sees one bar at a time, at its close. `previousClose` is
   * the close before the chunk.
   */
  feedBars(b, strategy, previousClose) {
    for (let t = 0; t < b.length; ) {
      if (this.sent) {
        this.sent = false;
        this.fillTime = b.time[t];
        this.broker.onBar(b.open[t], b.high[t], b.low[t], b.volume[t]);
      }
      const decided = this.scan(b, t, strategy);
      if (decided < 0) break;
      const reference = decided > 0 ? b.close[decided - 1] : previousClose;
      this.pipeline.decide(this.target, b.close[decided], b.time[decided], reference);
      this.sent = this.broker.openOrders.length > 0;
      t = decided + 1;
    }
  }
  /**
   * Marks bars to market from `from` on and asks the strategy, until a bar whose target would
   * move the position: returns its index (the target in `this.target`), or -1 at the chunk's end.
   * `scanColumns` keeps the same books from targets computed beforehand; the two give the same
   * run to the last bit (vectorised.test.ts).
   */
  scan(b, from, strategy) {
    const { time, high, low, close } = b;
    const { pipeline, series } = this;
    const { cash, units } = this;
    let { peak, trough, maxDrawdown, due, nextDay, lastEquity, barsInMarket } = this;
    let found = -1;
    for (let t = from, n = b.length; t < n; t++) {
      const c = close[t];
      const equity = cash + units * c;
      if (equity > peak) peak = trough = equity;
      else if (equity < trough) {
        trough = equity;
        const dd = (peak - equity) / peak;
        if (dd > maxDrawdown) maxDrawdown = dd;
        series.deepen(time[t], equity, dd);
      }
      if (--due === 0) due = series.close(time[t], equity, peak);
      if (time[t] >= nextDay) nextDay = this.newDay(time[t], lastEquity);
      lastEquity = equity;
      if (units !== 0) barsInMarket++;
      const target = strategy.onBar(c, high[t], low[t]);
      if (pipeline.wouldMove(target)) {
        this.target = target;
        found = t;
        break;
      }
    }
    this.peak = peak;
    this.trough = trough;
    this.maxDrawdown = maxDrawdown;
    this.due = due;
    this.nextDay = nextDay;
    this.lastEquity = lastEquity;
    this.barsInMarket = barsInMarket;
    return found;
  }
  /** The vectorised path: a block's targets in one pass, then the books up to each order. */
  feedColumns(b, columns, closeBefore) {
    const { broker, pipeline, targets } = this;
    for (let from = 0, n = b.length; from < n; from += BLOCK) {
      const to = Math.min(n, from + BLOCK);
      columns.fill(b, from, to, targets);
      for (let t = from; t < to; ) {
        if (this.sent) {
          this.sent = false;
          this.fillTime = b.time[t];
          broker.onBar(b.open[t], b.high[t], b.low[t], b.volume[t]);
        }
        const decided = this.scanColumns(b, t, from, to);
        if (decided < 0) break;
        const reference = decided > 0 ? b.close[decided - 1] : closeBefore;
        pipeline.decide(targets[decided - from], b.close[decided], b.time[decided], reference);
        this.sent = broker.openOrders.length > 0;
        t = decided + 1;
      }
    }
  }
  /**
   * `scan` over targets computed beforehand: marks bars to market from `t0` on, until a bar (of
   * the block that starts at `from`) whose target would move the position: returns its index,
   * or -1 at the block's end.
   */
  scanColumns(b, t0, from, to) {
    const { time, close } = b;
    const { series, targets } = this;
    const held = this.pipeline.target;
    const { cash, units } = this;
    let { peak, trough, maxDrawdown, due, nextDay, lastEquity } = this;
    let t = t0;
    for (; t < to; t++) {
      const equity = cash + units * close[t];
      if (equity > peak) peak = trough = equity;
      else if (equity < trough) {
        trough = equity;
        const dd = (peak - equity) / peak;
        if (dd > maxDrawdown) maxDrawdown = dd;
        series.deepen(time[t], equity, dd);
      }
      if (--due === 0) due = series.close(time[t], equity, peak);
      if (time[t] >= nextDay) nextDay = this.newDay(time[t], lastEquity);
      lastEquity = equity;
      if (targets[t - from] !== held) break;
      if (units === 0) {
        let stop = t + 1;
        while (stop < to && targets[stop - from] === held) stop++;
        const last = stop < to ? stop : to - 1;
        for (let k = t + 1; k <= last; ) {
          const bucketEnd = k + due - 1;
          const midnight = firstAtOrAfter(time, nextDay, k, last + 1);
          const at = bucketEnd < midnight ? bucketEnd : midnight;
          if (at > last) {
            due -= last - k + 1;
            break;
          }
          due -= at - k;
          if (--due === 0) due = series.close(time[at], equity, peak);
          if (time[at] >= nextDay) nextDay = this.newDay(time[at], equity);
          k = at + 1;
        }
        t = stop;
        break;
      }
    }
    this.peak = peak;
    this.trough = trough;
    this.maxDrawdown = maxDrawdown;
    this.due = due;
    this.nextDay = nextDay;
    this.lastEquity = lastEquity;
    const end = t < to ? t + 1 : to;
    if (units !== 0) this.barsInMarket += end - t0;
    return t < to ? t : -1;
  }
  /** A bar opened a new day: closes the last day's return; answers the next midnight. */
  newDay(time, lastEquity) {
    if (!Number.isNaN(this.day)) {
      this.daily.push(lastEquity / this.dayStartEquity - 1);
      this.days.push(this.day);
      this.dayStartEquity = lastEquity;
    }
    this.day = Math.floor(time / DAY_MS);
    return (this.day + 1) * DAY_MS;
  }
  /**
   * The portfolio side of a fill: the books, fees, and round trips (one ends when flat). Called
   * by this run's broker only (through RunReport).
   */
  booked(signed, price, fee) {
    this.book.fill(this.fillTime, signed, price, fee);
    this.cash = this.broker.cash;
    this.units = this.broker.units;
    this.fees += fee;
    this.tradeCash += -signed * price - fee;
    if (this.units === 0) {
      this.trades++;
      if (this.tradeCash > 0) this.wins++;
      this.tradeCash = 0;
    }
  }
  /** Closes the books: the open position is marked at the last close, not sold. */
  finish() {
    keepRun(this);
    const daily = Float64Array.from(
      Number.isNaN(this.day) ? this.daily : [...this.daily, this.lastEquity / this.dayStartEquity - 1]
    );
    const { sharpe, sortino } = riskAdjusted(daily);
    const days = Number.isNaN(this.day) ? this.days : [...this.days, this.day];
    if (this.due !== this.series.bucketBars && !Number.isNaN(this.lastTime))
      this.series.close(this.lastTime, this.lastEquity, this.peak);
    const initial = this.settings.initialCash;
    const openTrade = this.units !== 0 ? 1 : 0;
    const openWin = this.units !== 0 && this.tradeCash + (this.lastEquity - this.cash) > 0 ? 1 : 0;
    return {
      bars: this.bars,
      totalReturn: this.lastEquity / initial - 1,
      pnl: this.lastEquity - initial,
      finalEquity: this.lastEquity,
      sharpe,
      sortino,
      maxDrawdown: this.maxDrawdown,
      trades: this.trades + openTrade,
      winRate: this.trades + openTrade > 0 ? (this.wins + openWin) / (this.trades + openTrade) : 0,
      exposure: this.bars > 0 ? this.barsInMarket / this.bars : 0,
      fees: this.fees,
      dailyReturns: daily,
      results: {
        curve: this.series.points(),
        dailyDates: days.map((d) => d * DAY_MS),
        trades: this.book.finish(this.lastTime, this.lastClose),
        tradesDropped: this.book.dropped
      }
    };
  }
};
var RunReport = class {
  constructor(run, event) {
    this.run = run;
    this.event = event;
  }
  run;
  event;
  fill(signed, price, fee) {
    this.run.booked(signed, price, fee);
  }
};
function firstAtOrAfter(time, at, lo, hi) {
  while (lo < hi) {
    const mid = lo + hi >>> 1;
    if (time[mid] < at) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

// services/bots/src/engine/vectorised.ts
function vectorisedRun(family, params, settings, options) {
  if (!family.columns)
    throw new EngineInputError(
      "invalid_parameter",
      `${family.family} has no vectorised path (its signal rescans a window every bar); run it event-driven`,
      "strategy.family"
    );
  return new BacktestRun(family.columns(params), settings, options);
}

// services/bots/src/engine/data-source.ts
import { access } from "node:fs/promises";
import { fileURLToPath } from "node:url";

// services/bots/src/engine/csv-source.ts
import { open } from "node:fs/promises";
import { createInterface } from "node:readline";
var HEADER = ["timestamp", "open", "high", "low", "close", "volume"];
var CSV_CHUNK_BARS = 65536;
async function* streamCsvBars(path, keep = () => true, chunkBars = CSV_CHUNK_BARS) {
  const file = await open(path);
  try {
    let chunk = allocateBars(chunkBars);
    let n = 0;
    const parser = new CsvBarParser((time, o, h, l, c, v) => {
      if (!keep(time)) return;
      setBar(chunk, n++, time, o, h, l, c, v);
    });
    const lines = createInterface({ input: file.createReadStream(), crlfDelay: Infinity });
    for await (const line of lines) {
      parser.push(line);
      if (n === chunkBars) {
        yield chunk;
        chunk = allocateBars(chunkBars);
        n = 0;
      }
    }
    parser.end();
    if (n > 0) yield headOf(chunk, n);
  } finally {
    await file.close();
  }
}
var CsvBarParser = class {
  constructor(onBar) {
    this.onBar = onBar;
  }
  onBar;
  lineNo = 0;
  headerSeen = false;
  /** The first of the blank lines read since the last bar: an error if a bar follows. */
  blankSince = 0;
  lastTime = -Infinity;
  count = 0;
  push(line) {
    this.lineNo++;
    if (line.trim() === "") {
      if (this.blankSince === 0) this.blankSince = this.lineNo;
      return;
    }
    if (this.blankSince !== 0) {
      const at = this.blankSince;
      this.blankSince = 0;
      this.parse("", at);
    }
    this.parse(line, this.lineNo);
  }
  /** The end of the input: refuses a file with no header or no bar. */
  end() {
    if (!this.headerSeen)
      throw new EngineInputError(
        "empty_data",
        "the CSV file is empty; it needs a header and at least one bar"
      );
    if (this.count === 0)
      throw new EngineInputError("empty_data", "the CSV file has a header but no bars");
  }
  parse(line, lineNo) {
    if (!this.headerSeen) {
      const header = line.trim().toLowerCase().split(",").map((h) => h.trim());
      if (header.join(",") !== HEADER.join(","))
        throw new EngineInputError(
          "malformed_csv",
          `line ${lineNo}: the header must be ${HEADER.join(",")}; got ${line.trim()}`,
          "data",
          lineNo
        );
      this.headerSeen = true;
      return;
    }
    const bad = (why) => new EngineInputError("malformed_csv", `line ${lineNo}: ${why}`, "data", lineNo);
    const cells = line.split(",");
    if (cells.length !== 6) throw bad(`expected 6 columns, got ${cells.length}`);
    const time = parseTime(cells[0].trim());
    if (Number.isNaN(time))
      throw bad(
        `timestamp ${JSON.stringify(cells[0].trim())} is neither ISO 8601 nor epoch seconds or milliseconds`
      );
    const [open2, high, low, close, volume] = cells.slice(1).map((c) => c.trim() === "" ? NaN : Number(c));
    for (const [name, v] of [
      ["open", open2],
      ["high", high],
      ["low", low],
      ["close", close],
      ["volume", volume]
    ]) {
      if (!Number.isFinite(v))
        throw bad(`${name} ${JSON.stringify(cells[HEADER.indexOf(name)].trim())} is not a number`);
    }
    if (!(open2 > 0 && high > 0 && low > 0 && close > 0)) throw bad("prices must be positive");
    if (volume < 0) throw bad("volume must not be negative");
    if (high < Math.max(open2, close) || low > Math.min(open2, close))
      throw bad(`high ${high} and low ${low} must bracket open ${open2} and close ${close}`);
    if (time <= this.lastTime) throw bad("timestamps must be strictly increasing");
    this.lastTime = time;
    this.count++;
    this.onBar(time, open2, high, low, close, volume);
  }
};
function headOf(b, n) {
  return {
    length: n,
    time: b.time.subarray(0, n),
    open: b.open.subarray(0, n),
    high: b.high.subarray(0, n),
    low: b.low.subarray(0, n),
    close: b.close.subarray(0, n),
    volume: b.volume.subarray(0, n)
  };
}
function parseTime(s) {
  if (/^\d+(\.\d+)?$/.test(s)) {
    const n = Number(s);
    return n < 1e11 ? n * 1e3 : n;
  }
  const iso = /[zZ]|[+-]\d\d:?\d\d$/.test(s) || !s.includes("T") ? s : `${s}Z`;
  const withZone = /^\d{4}-\d\d-\d\d$/.test(iso) ? `${iso}T00:00:00Z` : iso;
  return Date.parse(withZone);
}

// services/bots/src/engine/synthetic-source.ts
function generateBars(opts, into) {
  const n = opts.count;
  const bars = into ?? allocateBars(n);
  const interval = opts.intervalMs ?? 864e5;
  let t = opts.startMs ?? Date.UTC(2020, 0, 1);
  let price = opts.startPrice ?? 100;
  let state = opts.seed >>> 0 || 1;
  const uniform = () => {
    state ^= state << 13;
    state >>>= 0;
    state ^= state >>> 17;
    state ^= state << 5;
    state >>>= 0;
    return (state + 0.5) / 4294967296;
  };
  const normal = () => Math.sqrt(-2 * Math.log(uniform())) * Math.cos(2 * Math.PI * uniform());
  const dt = interval / 864e5;
  const drift = [2e-4, 8e-4, -12e-4].map((d) => d * dt);
  const longVar = [1e-4, 15e-5, 9e-4].map((v) => v * dt);
  const stay = [0.985, 0.97, 0.93];
  let regime = 0;
  let variance = longVar[0];
  let lastShock = 0;
  for (let i = 0; i < n; i++) {
    if (uniform() > stay[regime]) regime = (regime + 1 + Math.floor(uniform() * 2)) % 3;
    variance = longVar[regime] * 0.05 + 0.1 * lastShock * lastShock + 0.85 * variance;
    const sd = Math.sqrt(variance);
    const gap = uniform() < 0.01 ? normal() * sd * 3 : 0;
    const open2 = price * Math.exp(gap);
    const shock = normal() * sd;
    lastShock = shock;
    const close = open2 * Math.exp(drift[regime] + shock);
    const wick = Math.abs(normal()) * sd * 0.5;
    bars.time[i] = t;
    bars.open[i] = open2;
    bars.close[i] = close;
    bars.high[i] = Math.max(open2, close) * Math.exp(wick);
    bars.low[i] = Math.min(open2, close) * Math.exp(-Math.abs(normal()) * sd * 0.5);
    bars.volume[i] = 1e3 + Math.floor(uniform() * 9e3);
    price = close;
    t += interval;
  }
  return bars;
}

// services/bots/src/engine/data-source.ts
var DATA_DIR = fileURLToPath(new URL("../../data/", new URL("../../services/bots/src/engine/data-source.ts", import.meta.url).href));
var DEFAULT_DATA_SOURCE = "csv:sample-btc-usd-1d";
var BUNDLED_DATASETS = {
  "sample-btc-usd-1d": { symbol: "BTC-USD", timeframe: "1d" }
};
var SYNTHETIC_MAX_BARS = 1e5;
var SYNTHETIC_DEFAULT_BARS = 730;
function timeframeMs(timeframe) {
  const m = /^([0-9]+)(s|m|h|d)$/.exec(timeframe);
  if (!m || Number(m[1]) === 0)
    throw new EngineInputError(
      "invalid_parameter",
      `timeframe must be a count and a unit (s, m, h, d), for example 1m or 1d; got ${JSON.stringify(timeframe)}`,
      "universe.timeframe"
    );
  return Number(m[1]) * { s: 1e3, m: 6e4, h: 36e5, d: 864e5 }[m[2]];
}
async function describeSource(source, opts = {}) {
  const csv = /^csv:([a-z0-9][a-z0-9-]{0,63})$/.exec(source);
  if (!csv) return {};
  const bundled = BUNDLED_DATASETS[csv[1]];
  if (bundled) return bundled;
  const uploaded = await opts.datasets?.describe(csv[1]);
  if (uploaded) return uploaded;
  throw unknownDataset(csv[1]);
}
function unknownDataset(name) {
  return new EngineInputError(
    "invalid_parameter",
    `no dataset named ${name}; bundled: ${Object.keys(BUNDLED_DATASETS).join(", ")}; GET /datasets lists every data set`,
    "data_source"
  );
}
async function* streamBars(source, startMs, endMs, opts = {}) {
  if (startMs !== void 0 && endMs !== void 0 && startMs >= endMs) {
    throw new EngineInputError("invalid_range", "start must be before end", "start");
  }
  const csv = /^csv:([a-z0-9][a-z0-9-]{0,63})$/.exec(source);
  const synthetic = /^synthetic:(\d{1,9})$/.exec(source);
  if (csv) {
    const from = startMs ?? -Infinity;
    const to = endMs ?? Infinity;
    const path = `${DATA_DIR}${csv[1]}.csv`;
    if (BUNDLED_DATASETS[csv[1]] && await exists(path)) {
      yield* streamCsvBars(path, (t) => t >= from && t < to);
      return;
    }
    if (!opts.datasets || !await opts.datasets.describe(csv[1])) throw unknownDataset(csv[1]);
    for await (const chunk of opts.datasets.chunks(csv[1])) {
      const kept2 = sliceBars(chunk, from, to);
      if (kept2.length > 0) yield kept2;
    }
  } else if (synthetic) {
    const interval = timeframeMs(opts.timeframe || "1d");
    const from = startMs ?? Date.UTC(2022, 0, 1);
    const to = endMs ?? from + SYNTHETIC_DEFAULT_BARS * interval;
    const count = Math.ceil((to - from) / interval);
    if (count > SYNTHETIC_MAX_BARS)
      throw new EngineInputError(
        "invalid_range",
        `a synthetic range may hold at most ${SYNTHETIC_MAX_BARS.toLocaleString("en")} bars of the bot's timeframe (${opts.timeframe || "1d"}); this one holds ${count.toLocaleString("en")}`,
        "end"
      );
    yield sliceBars(
      generateBars({ seed: Number(synthetic[1]), count, startMs: from, intervalMs: interval }),
      startMs,
      endMs
    );
  } else {
    throw new EngineInputError(
      "invalid_parameter",
      `data_source must be csv:<dataset> or synthetic:<seed>; got ${JSON.stringify(source)}`,
      "data_source"
    );
  }
}
async function loadBars(source, startMs, endMs, opts = {}) {
  const chunks = [];
  for await (const chunk of streamBars(source, startMs, endMs, opts)) chunks.push(chunk);
  const bars = chunks.length === 1 ? chunks[0] : concatBars(chunks);
  assertEnoughBars(bars.length);
  return bars;
}
async function checkBars(source, startMs, endMs, opts = {}) {
  let count = 0;
  for await (const chunk of streamBars(source, startMs, endMs, opts)) count += chunk.length;
  assertEnoughBars(count);
  return count;
}
async function exists(path) {
  try {
    await access(path);
    return true;
  } catch {
    return false;
  }
}
function assertEnoughBars(count) {
  if (count < 2)
    throw new EngineInputError(
      "empty_data",
      `the data source has ${count} bar(s) in the requested range; a backtest needs at least 2`,
      "start"
    );
}
function concatBars(chunks) {
  const all = allocateBars(chunks.reduce((n, c) => n + c.length, 0));
  let at = 0;
  for (const c of chunks) {
    for (const k of ["time", "open", "high", "low", "close", "volume"])
      all[k].set(c[k], at);
    at += c.length;
  }
  return all;
}

// services/bots/src/engine/strategies/breakout.ts
var breakout = {
  family: "breakout",
  params: {
    lookback: { type: "int", min: 2, default: 20, doc: "bars whose highest high must be broken" },
    exit_lookback: {
      type: "int",
      min: 1,
      default: 10,
      doc: "bars whose lowest low ends the trade"
    }
  },
  check: (p) => p.exit_lookback > p.lookback ? {
    param: "exit_lookback",
    message: `exit_lookback (${p.exit_lookback}) must not exceed lookback (${p.lookback})`
  } : null,
  create: (p) => new Breakout(p.lookback, p.exit_lookback),
  columns: (p) => new BreakoutColumns(p.lookback, p.exit_lookback),
  targets(bars, p) {
    const n = p.lookback;
    const m = p.exit_lookback;
    const out = new Float64Array(bars.length);
    let pos = 0;
    for (let i = n; i < bars.length; i++) {
      let hi = -Infinity;
      for (let j = i - n; j < i; j++) hi = Math.max(hi, bars.high[j]);
      let lo = Infinity;
      for (let j = i - m; j < i; j++) lo = Math.min(lo, bars.low[j]);
      if (pos === 0 && bars.close[i] > hi) pos = 1;
      else if (pos === 1 && bars.close[i] < lo) pos = 0;
      out[i] = pos;
    }
    return out;
  }
};
var Breakout = class {
  constructor(lookback, exitLookback) {
    this.lookback = lookback;
    this.exitLookback = exitLookback;
    this.highs = new Float64Array(lookback);
    this.lows = new Float64Array(lookback);
  }
  lookback;
  exitLookback;
  highs;
  lows;
  count = 0;
  /** count % lookback, kept by wrapping rather than dividing each bar. */
  at = 0;
  pos = 0;
  onBar(close, high, low) {
    const n = this.lookback;
    const at = this.at;
    if (this.count >= n) {
      let hi = -Infinity;
      for (let j = 0; j < n; j++) hi = Math.max(hi, this.highs[j]);
      let lo = Infinity;
      for (let j = 1; j <= this.exitLookback; j++)
        lo = Math.min(lo, this.lows[at - j < 0 ? at - j + n : at - j]);
      if (this.pos === 0 && close > hi) this.pos = 1;
      else if (this.pos === 1 && close < lo) this.pos = 0;
    }
    this.highs[at] = high;
    this.lows[at] = low;
    this.count++;
    this.at = at + 1 === n ? 0 : at + 1;
    return this.pos;
  }
};
var Extreme = class {
  constructor(capacity, sign) {
    this.capacity = capacity;
    this.sign = sign;
    this.values = new Float64Array(capacity);
    this.at = new Float64Array(capacity);
  }
  capacity;
  sign;
  values;
  at;
  head = 0;
  size = 0;
  /** The extreme of the bars from `first` on (at least one of them pushed). */
  since(first) {
    while (this.at[this.head] < first) {
      this.head = this.head + 1 === this.capacity ? 0 : this.head + 1;
      this.size--;
    }
    return this.values[this.head];
  }
  push(value, bar) {
    const cap = this.capacity;
    while (this.size > 0) {
      let back = this.head + this.size - 1;
      if (back >= cap) back -= cap;
      if ((this.values[back] - value) * this.sign > 0) break;
      this.size--;
    }
    let slot = this.head + this.size;
    if (slot >= cap) slot -= cap;
    this.values[slot] = value;
    this.at[slot] = bar;
    this.size++;
  }
};
var BreakoutColumns = class {
  constructor(lookback, exitLookback) {
    this.lookback = lookback;
    this.exitLookback = exitLookback;
    this.highs = new Extreme(lookback + 1, 1);
    this.lows = new Extreme(lookback + 1, -1);
  }
  lookback;
  exitLookback;
  highs;
  lows;
  count = 0;
  pos = 0;
  fill(b, from, to, out) {
    const { high, low, close } = b;
    const { lookback, exitLookback, highs, lows } = this;
    let { count, pos } = this;
    for (let t = from; t < to; t++, count++) {
      if (count >= lookback) {
        const hi = highs.since(count - lookback);
        const lo = lows.since(count - exitLookback);
        if (pos === 0 && close[t] > hi) pos = 1;
        else if (pos === 1 && close[t] < lo) pos = 0;
      }
      highs.push(high[t], count);
      lows.push(low[t], count);
      out[t - from] = pos;
    }
    this.count = count;
    this.pos = pos;
  }
};

// services/bots/src/engine/strategies/ma-crossover.ts
var RESUM_EVERY = 1e6;
var FIRST_LOOK = 64;
var COLUMNS_FIRST_LOOK = TARGET_BLOCK + FIRST_LOOK;
var maCrossover = {
  family: "ma_crossover",
  params: {
    fast: { type: "int", min: 1, default: 10, doc: "bars in the fast average" },
    slow: { type: "int", min: 2, default: 30, doc: "bars in the slow average; more than fast" },
    allow_short: { type: "boolean", default: false, doc: "go short when fast < slow" }
  },
  check: (p) => p.slow <= p.fast ? { param: "slow", message: `slow (${p.slow}) must be greater than fast (${p.fast})` } : null,
  create: (p) => new MaCrossover(p.fast, p.slow, p.allow_short === true),
  columns: (p) => new MaColumns(p.fast, p.slow, p.allow_short === true),
  targets(bars, p) {
    const fast = p.fast;
    const slow = p.slow;
    const short = p.allow_short === true ? -1 : 0;
    const prefix = new Float64Array(bars.length + 1);
    for (let i = 0; i < bars.length; i++) prefix[i + 1] = prefix[i] + bars.close[i];
    const out = new Float64Array(bars.length);
    for (let i = slow - 1; i < bars.length; i++) {
      const f = (prefix[i + 1] - prefix[i + 1 - fast]) / fast;
      const s = (prefix[i + 1] - prefix[i + 1 - slow]) / slow;
      out[i] = f > s ? 1 : f < s ? short : 0;
    }
    return out;
  }
};
var MaCrossover = class {
  constructor(fast, slow, allowShort, short = allowShort ? -1 : 0) {
    this.fast = fast;
    this.slow = slow;
    this.short = short;
    this.ring = new Float64Array(slow);
    this.back = slow - fast;
  }
  fast;
  slow;
  short;
  ring;
  count = 0;
  fastSum = 0;
  slowSum = 0;
  /** count % slow and (count - fast) % slow, kept by wrapping rather than dividing each bar. */
  at = 0;
  back;
  onBar(close) {
    const slow = this.slow;
    const i = this.at;
    if (this.count >= slow) this.slowSum -= this.ring[i];
    if (this.count >= this.fast) this.fastSum -= this.ring[this.back];
    this.ring[i] = close;
    this.slowSum += close;
    this.fastSum += close;
    this.count++;
    this.at = i + 1 === slow ? 0 : i + 1;
    this.back = this.back + 1 === slow ? 0 : this.back + 1;
    if (this.count % RESUM_EVERY === 0 || this.count === FIRST_LOOK) this.resum();
    if (this.count < slow) return 0;
    const f = this.fastSum / this.fast;
    const s = this.slowSum / slow;
    return f > s ? 1 : f < s ? this.short : 0;
  }
  /**
   * Recomputes the sums at every RESUM_EVERY-th bar once `slow` bars are in. Also called at the
   * FIRST_LOOK-th bar, where it runs every one of its operations (over one term) and keeps
   * nothing: the JIT has then seen the call before it compiles the backtest's loop, where a call
   * first made at the millionth bar would deoptimise the loop there and have it compiled again in
   * the next run of a long-running process.
   */
  resum() {
    const due = this.count % RESUM_EVERY === 0;
    const full = this.count >= this.slow;
    const keep = due && full;
    const terms = keep ? this.slow : 1;
    let s = 0;
    let f = 0;
    for (let k = 0; k < terms; k++) {
      const v = this.ring[(this.count - 1 - k + this.slow * 2) % this.slow];
      s += v;
      if (k < this.fast) f += v;
    }
    this.slowSum = keep ? s : this.slowSum;
    this.fastSum = keep ? f : this.fastSum;
  }
};
var MaColumns = class {
  constructor(fast, slow, allowShort) {
    this.fast = fast;
    this.slow = slow;
    this.short = allowShort ? -1 : 0;
    this.history = new Float64Array(slow + TARGET_BLOCK);
  }
  fast;
  slow;
  history;
  count = 0;
  /** The next count at which the sums are recomputed (a multiple of RESUM_EVERY after the first look). */
  nextResum = COLUMNS_FIRST_LOOK;
  fastSum = 0;
  slowSum = 0;
  short;
  fill(b, from, to, out) {
    const { fast, slow, short } = this;
    const n = to - from;
    if (this.history.length < slow + n) {
      const grown = new Float64Array(slow + n);
      grown.set(this.history.subarray(0, slow));
      this.history = grown;
    }
    const h = this.history;
    h.set(b.close.subarray(from, to), slow);
    let fastSum = this.fastSum;
    let slowSum = this.slowSum;
    let count = this.count;
    let nextResum = this.nextResum;
    const lag = slow - fast;
    let j = 0;
    while (j < n) {
      const filling = count + 1 < slow;
      const filled = j + (slow - count - 1);
      const end = Math.min(n, j + (nextResum - count - 1), filling ? filled : n);
      count += end - j;
      for (; j < end; j++) {
        const c2 = h[slow + j];
        slowSum -= h[j];
        fastSum -= h[lag + j];
        slowSum += c2;
        fastSum += c2;
        const f2 = fastSum / fast;
        const s2 = slowSum / slow;
        out[j] = filling ? 0 : f2 > s2 ? 1 : f2 < s2 ? short : 0;
      }
      if (j === n) break;
      const c = h[slow + j];
      slowSum -= h[j];
      fastSum -= h[lag + j];
      slowSum += c;
      fastSum += c;
      count++;
      if (count === nextResum) {
        const due = count % RESUM_EVERY === 0;
        const full = count >= slow;
        const keep = due && full;
        nextResum = (Math.floor(count / RESUM_EVERY) + 1) * RESUM_EVERY;
        const terms = keep ? slow : 1;
        let s2 = 0;
        let f2 = 0;
        for (let k = 0; k < terms; k++) {
          const v = h[slow + j - k];
          s2 += v;
          if (k < fast) f2 += v;
        }
        slowSum = keep ? s2 : slowSum;
        fastSum = keep ? f2 : fastSum;
      }
      const f = fastSum / fast;
      const s = slowSum / slow;
      out[j] = count < slow ? 0 : f > s ? 1 : f < s ? short : 0;
      j++;
    }
    h.copyWithin(0, n, n + slow);
    this.fastSum = fastSum;
    this.slowSum = slowSum;
    this.count = count;
    this.nextResum = nextResum;
  }
};

// services/bots/src/engine/strategies/mean-reversion-bands.ts
var meanReversionBands = {
  family: "mean_reversion_bands",
  params: {
    window: { type: "int", min: 2, default: 20, doc: "bars in the mean and standard deviation" },
    k: { type: "number", min: 0.1, default: 2, doc: "band width in standard deviations" },
    allow_short: { type: "boolean", default: false, doc: "sell short above the upper band" }
  },
  check: () => null,
  create: (p) => new MeanReversion(p.window, p.k, p.allow_short === true),
  targets(bars, p) {
    const w = p.window;
    const k = p.k;
    const allowShort = p.allow_short === true;
    const out = new Float64Array(bars.length);
    let pos = 0;
    for (let i = 0; i < bars.length; i++) {
      if (i >= w - 1) {
        let sum = 0;
        for (let j = i - w + 1; j <= i; j++) sum += bars.close[j];
        const mean = sum / w;
        let ss = 0;
        for (let j = i - w + 1; j <= i; j++) ss += (bars.close[j] - mean) ** 2;
        const sd = Math.sqrt(ss / w);
        pos = decide(pos, bars.close[i], mean, sd, k, allowShort);
      }
      out[i] = pos;
    }
    return out;
  }
};
function decide(pos, close, mean, sd, k, allowShort) {
  if (pos > 0 && close >= mean) pos = 0;
  else if (pos < 0 && close <= mean) pos = 0;
  if (pos === 0) {
    if (close < mean - k * sd) pos = 1;
    else if (allowShort && close > mean + k * sd) pos = -1;
  }
  return pos;
}
var MeanReversion = class {
  constructor(window, k, allowShort) {
    this.window = window;
    this.k = k;
    this.allowShort = allowShort;
    this.ring = new Float64Array(window);
  }
  window;
  k;
  allowShort;
  ring;
  count = 0;
  pos = 0;
  onBar(close) {
    const w = this.window;
    const at = this.count % w;
    this.ring[at] = close;
    this.count++;
    if (this.count < w) return 0;
    const start = at + 1 === w ? 0 : at + 1;
    let sum = 0;
    for (let j = 0, i = start; j < w; j++, i = i + 1 === w ? 0 : i + 1) sum += this.ring[i];
    const mean = sum / w;
    let ss = 0;
    for (let j = 0, i = start; j < w; j++, i = i + 1 === w ? 0 : i + 1)
      ss += (this.ring[i] - mean) ** 2;
    this.pos = decide(this.pos, close, mean, Math.sqrt(ss / w), this.k, this.allowShort);
    return this.pos;
  }
};

// services/bots/src/engine/strategies/registry.ts
var STRATEGY_FAMILIES = {
  [maCrossover.family]: maCrossover,
  [meanReversionBands.family]: meanReversionBands,
  [breakout.family]: breakout
};
function resolveStrategy(family, raw) {
  const def = STRATEGY_FAMILIES[family];
  if (!def) {
    throw new EngineInputError(
      "unknown_strategy",
      `unknown strategy family "${family}"; built-in families: ${Object.keys(STRATEGY_FAMILIES).join(", ")}`,
      "strategy.family"
    );
  }
  const params = {};
  for (const key of Object.keys(raw ?? {})) {
    if (!(key in def.params)) {
      throw new EngineInputError(
        "invalid_parameter",
        `${family} has no parameter "${key}"; its parameters: ${Object.keys(def.params).join(", ")}`,
        `strategy.parameters.${key}`
      );
    }
  }
  for (const [name, spec] of Object.entries(def.params)) {
    const v = raw?.[name] ?? spec.default;
    const field = `strategy.parameters.${name}`;
    if (v === void 0)
      throw new EngineInputError("invalid_parameter", `${field} is required (${spec.doc})`, field);
    if (spec.type === "boolean") {
      if (typeof v !== "boolean")
        throw new EngineInputError("invalid_parameter", `${field} must be true or false`, field);
    } else {
      if (typeof v !== "number" || !Number.isFinite(v) || spec.type === "int" && !Number.isInteger(v)) {
        throw new EngineInputError(
          "invalid_parameter",
          `${field} must be ${spec.type === "int" ? "a whole number" : "a number"} (${spec.doc})`,
          field
        );
      }
      if (spec.min !== void 0 && v < spec.min)
        throw new EngineInputError(
          "invalid_parameter",
          `${field} must be at least ${spec.min}`,
          field
        );
    }
    params[name] = v;
  }
  const problem = def.check(params);
  if (problem)
    throw new EngineInputError(
      "invalid_parameter",
      `strategy.parameters.${problem.param}: ${problem.message}`,
      `strategy.parameters.${problem.param}`
    );
  return { family: def, params };
}

// services/bots/src/execution/risk-controls/limits.ts
var FLOAT_NOISE = 1e-9;
function riskLimitsFrom(spec, fleet) {
  return {
    maxOrderNotional: spec?.maxOrderNotional ?? 0,
    maxOrderUnits: spec?.maxOrderUnits ?? 0,
    capitalLimit: spec?.capitalLimit ?? 0,
    creditLimit: spec?.creditLimit ?? 0,
    priceCollarPct: spec?.priceCollarPct ?? 0,
    maxOrdersPerWindow: spec?.maxOrdersPerWindow ?? 0,
    throttleWindowMs: (spec?.throttleWindowS ?? 0) * 1e3,
    duplicateWindowMs: (spec?.duplicateWindowS ?? 0) * 1e3,
    duplicateTolerance: Math.max(FLOAT_NOISE, (spec?.duplicateTolerancePct ?? 0) / 100),
    restricted: new Set(spec?.restrictedSymbols ?? []),
    fleetCapitalLimit: fleet?.capitalLimit ?? 0,
    fleetCreditLimit: fleet?.creditLimit ?? 0
  };
}
function anyLimit(l) {
  return l.maxOrderNotional > 0 || l.maxOrderUnits > 0 || l.capitalLimit > 0 || l.creditLimit > 0 || l.priceCollarPct > 0 || l.maxOrdersPerWindow > 0 || l.duplicateWindowMs > 0 || l.restricted.size > 0 || l.fleetCapitalLimit > 0 || l.fleetCreditLimit > 0;
}

// services/bots/src/execution/risk-controls/controls.ts
var CONTROL = {
  restrictedInstrument: "restricted_instrument",
  maxOrderUnits: "max_order_units",
  maxOrderNotional: "max_order_notional",
  priceCollar: "price_collar",
  capitalThreshold: "capital_threshold",
  creditThreshold: "credit_threshold",
  fleetCapitalThreshold: "fleet_capital_threshold",
  fleetCreditThreshold: "fleet_credit_threshold",
  duplicateOrder: "duplicate_order",
  messageThrottle: "message_throttle",
  /** Not a control of its own: the refusal of every order while a throttle breach stands. */
  riskDisabled: "risk_disabled"
};

// services/bots/src/execution/risk-controls/refusal.ts
function refuse(control, limit, value, reason) {
  return { accept: false, control, limit, value, reason };
}

// services/bots/src/execution/risk-controls/order-size.ts
function maxOrderUnits(order, _ctx, l) {
  if (l.maxOrderUnits <= 0 || order.units <= l.maxOrderUnits) return null;
  return refuse(
    CONTROL.maxOrderUnits,
    l.maxOrderUnits,
    order.units,
    `order of ${order.units} units is over the maximum of ${l.maxOrderUnits}`
  );
}
function maxOrderNotional(order, ctx, l) {
  if (l.maxOrderNotional <= 0) return null;
  const notional = order.units * ctx.price;
  if (notional <= l.maxOrderNotional) return null;
  return refuse(
    CONTROL.maxOrderNotional,
    l.maxOrderNotional,
    notional,
    `order value ${notional} is over the maximum of ${l.maxOrderNotional}`
  );
}

// services/bots/src/execution/risk-controls/price-collar.ts
function priceCollar(_order, ctx, l) {
  if (l.priceCollarPct <= 0 || !(ctx.reference > 0)) return null;
  const pct = Math.abs(ctx.price - ctx.reference) / ctx.reference * 100;
  if (pct <= l.priceCollarPct) return null;
  return refuse(
    CONTROL.priceCollar,
    l.priceCollarPct,
    pct,
    `price ${ctx.price} is ${pct.toFixed(4)} % from the reference ${ctx.reference}; the collar is ${l.priceCollarPct} %`
  );
}

// services/bots/src/execution/risk-controls/rate.ts
function messageThrottle(_order, ctx, l) {
  if (l.maxOrdersPerWindow <= 0 || l.throttleWindowMs <= 0) return null;
  const { recent } = ctx;
  const from = ctx.time - l.throttleWindowMs;
  let count = 1;
  for (let i = recent.time.length - 1; i >= recent.start && recent.time[i] > from; i--) count++;
  if (count <= l.maxOrdersPerWindow) return null;
  return refuse(
    CONTROL.messageThrottle,
    l.maxOrdersPerWindow,
    count,
    `${count} orders within ${l.throttleWindowMs / 1e3} s; at most ${l.maxOrdersPerWindow} are allowed`
  );
}
function duplicateOrder(order, ctx, l) {
  if (l.duplicateWindowMs <= 0) return null;
  const { recent } = ctx;
  const from = ctx.time - l.duplicateWindowMs;
  const tol = l.duplicateTolerance;
  for (let i = recent.time.length - 1; i >= recent.start && recent.time[i] > from; i--) {
    if (recent.side[i] !== order.side) continue;
    const units = recent.units[i];
    const price = recent.price[i];
    if (Math.abs(units - order.units) > tol * units) continue;
    if (Math.abs(price - ctx.price) > tol * price) continue;
    const ageS = (ctx.time - recent.time[i]) / 1e3;
    return refuse(
      CONTROL.duplicateOrder,
      l.duplicateWindowMs / 1e3,
      ageS,
      `same side, size and price as an order ${ageS} s earlier (window ${l.duplicateWindowMs / 1e3} s)`
    );
  }
  return null;
}

// services/bots/src/execution/risk-controls/recent-orders.ts
var RecentOrders = class {
  constructor(horizonMs) {
    this.horizonMs = horizonMs;
  }
  horizonMs;
  // Each born in the kind of element it holds (see warm-shapes.ts).
  time = emptyNumbers();
  side = emptyObjects();
  units = emptyNumbers();
  price = emptyNumbers();
  /** Index of the oldest entry still inside the horizon. */
  start = 0;
  get size() {
    return this.time.length - this.start;
  }
  add(time, side, units, price) {
    if (this.horizonMs <= 0) return;
    this.time.push(time);
    this.side.push(side);
    this.units.push(units);
    this.price.push(price);
    const from = time - this.horizonMs;
    while (this.start < this.time.length && this.time[this.start] < from) this.start++;
    if (this.start > 64 && this.start * 2 > this.time.length) this.compact();
  }
  compact() {
    for (const a of [this.time, this.side, this.units, this.price]) a.splice(0, this.start);
    this.start = 0;
  }
};

// services/bots/src/execution/risk-controls/exposure.ts
function heldBefore(ctx) {
  return ctx.position + ctx.accepted;
}
function heldAfter(order, ctx) {
  return heldBefore(ctx) + (order.side === "buy" ? order.units : -order.units);
}
function reducesExposure(order, ctx) {
  return Math.abs(heldAfter(order, ctx)) < Math.abs(heldBefore(ctx)) * (1 + 1e-12);
}
function lossOf(ctx) {
  return ctx.startEquity - ctx.equity;
}

// services/bots/src/execution/risk-controls/restricted.ts
function restrictedInstrument(order, ctx, l) {
  if (l.restricted.size === 0 || !l.restricted.has(ctx.symbol) || reducesExposure(order, ctx))
    return null;
  return refuse(
    CONTROL.restrictedInstrument,
    [...l.restricted].join(","),
    ctx.symbol,
    `${ctx.symbol} is a restricted instrument`
  );
}

// services/bots/src/execution/risk-controls/thresholds.ts
function capitalThreshold(order, ctx, l) {
  if (l.capitalLimit <= 0 || reducesExposure(order, ctx)) return null;
  const exposure = Math.abs(heldAfter(order, ctx)) * ctx.price;
  if (exposure <= l.capitalLimit) return null;
  return refuse(
    CONTROL.capitalThreshold,
    l.capitalLimit,
    exposure,
    `position value ${exposure} after the order is over the bot's capital threshold ${l.capitalLimit}`
  );
}
function creditThreshold(order, ctx, l) {
  if (l.creditLimit <= 0 || reducesExposure(order, ctx)) return null;
  const loss = lossOf(ctx);
  if (loss <= l.creditLimit) return null;
  return refuse(
    CONTROL.creditThreshold,
    l.creditLimit,
    loss,
    `loss ${loss} is over the bot's credit threshold ${l.creditLimit}; only closing orders pass`
  );
}
function fleetCapitalThreshold(order, ctx, l) {
  if (l.fleetCapitalLimit <= 0 || reducesExposure(order, ctx)) return null;
  const exposure = ctx.fleet.exposure + Math.abs(heldAfter(order, ctx)) * ctx.price;
  if (exposure <= l.fleetCapitalLimit) return null;
  return refuse(
    CONTROL.fleetCapitalThreshold,
    l.fleetCapitalLimit,
    exposure,
    `fleet position value ${exposure} after the order is over the fleet's capital threshold ${l.fleetCapitalLimit}`
  );
}
function fleetCreditThreshold(order, ctx, l) {
  if (l.fleetCreditLimit <= 0 || reducesExposure(order, ctx)) return null;
  const loss = ctx.fleet.loss + lossOf(ctx);
  if (loss <= l.fleetCreditLimit) return null;
  return refuse(
    CONTROL.fleetCreditThreshold,
    l.fleetCreditLimit,
    loss,
    `fleet loss ${loss} is over the fleet's credit threshold ${l.fleetCreditLimit}; only closing orders pass`
  );
}

// services/bots/src/execution/risk-controls/risk-guard.ts
var CONTROLS = [
  restrictedInstrument,
  maxOrderUnits,
  maxOrderNotional,
  priceCollar,
  capitalThreshold,
  creditThreshold,
  fleetCapitalThreshold,
  fleetCreditThreshold,
  duplicateOrder,
  messageThrottle
];
var NO_FLEET = { exposure: 0, loss: 0 };
var RiskGuard = class {
  constructor(o) {
    this.o = o;
    const l = o.limits;
    this.recent = new RecentOrders(Math.max(l.throttleWindowMs, l.duplicateWindowMs));
    this.disabledBy = o.disabled;
  }
  o;
  name = "risk_controls";
  recent;
  disabledBy;
  get disabled() {
    return this.disabledBy;
  }
  /** A named person re-enabled the bot: orders are judged again. */
  reEnable() {
    this.disabledBy = void 0;
  }
  check(order, context) {
    const by = this.disabledBy;
    if (by)
      return {
        accept: false,
        control: CONTROL.riskDisabled,
        limit: by.limit,
        value: by.value,
        reason: `bot disabled by ${by.control} until a person re-enables it: ${by.reason}`
      };
    const ctx = {
      ...context,
      startEquity: this.o.startEquity,
      recent: this.recent,
      fleet: this.o.fleet ? this.o.fleet() : NO_FLEET
    };
    const l = this.o.limits;
    for (let i = 0; i < CONTROLS.length; i++) {
      const refusal = CONTROLS[i](order, ctx, l);
      if (!refusal) continue;
      if (refusal.control === CONTROL.messageThrottle) this.disable(refusal);
      return refusal;
    }
    return ACCEPT;
  }
  accepted(order, context) {
    this.recent.add(context.time, order.side, order.units, context.price);
  }
  disable(r) {
    const by = {
      control: r.control,
      reason: r.reason,
      limit: Number(r.limit),
      value: Number(r.value)
    };
    this.disabledBy = by;
    this.o.emit?.({ type: "risk_disabled", data: by });
  }
};

// services/bots/src/engine/settings.ts
var DEFAULT_MAX_VOLUME_PARTICIPATION = 1;
var DEFAULT_ENGINE_SETTINGS = {
  initialCash: 1e5,
  feeBps: 0,
  slippageBps: 0,
  positionSize: 1
};
function engineSettingsFrom(spec) {
  const s = {
    initialCash: spec?.initialCash || DEFAULT_ENGINE_SETTINGS.initialCash,
    feeBps: spec?.feeBps ?? 0,
    slippageBps: spec?.slippageBps ?? 0,
    positionSize: spec?.positionSize || DEFAULT_ENGINE_SETTINGS.positionSize,
    maxVolumeParticipation: spec?.maxVolumeParticipation || DEFAULT_MAX_VOLUME_PARTICIPATION
  };
  if (!(s.initialCash > 0))
    throw new EngineInputError(
      "invalid_parameter",
      "engine.initial_cash must be positive",
      "engine.initial_cash"
    );
  return s;
}

// services/bots/src/execution/reduce-only.ts
var REDUCE_ONLY_CHECK = "reduce_only";
function onlyReduces(order, context) {
  const held = context.position + context.accepted;
  const signed = order.side === "buy" ? order.units : -order.units;
  return held !== 0 && Math.sign(signed) === -Math.sign(held) && Math.abs(signed) <= Math.abs(held) * (1 + 1e-12);
}
function reduceOnlyWhile(reason) {
  return {
    name: REDUCE_ONLY_CHECK,
    check(order, context) {
      const why = reason();
      if (why === void 0 || onlyReduces(order, context)) return ACCEPT;
      return { accept: false, reason: `reduce-only: ${why}` };
    }
  };
}

export {
  EngineInputError,
  allocateBars,
  setBar,
  barsAt,
  CSV_CHUNK_BARS,
  CsvBarParser,
  engineSettingsFrom,
  ACCEPT,
  OrderPipeline,
  VOLUME_CANCEL,
  SimulatedBroker,
  namingSymbol,
  BacktestRun,
  vectorisedRun,
  DEFAULT_DATA_SOURCE,
  BUNDLED_DATASETS,
  timeframeMs,
  describeSource,
  streamBars,
  loadBars,
  checkBars,
  resolveStrategy,
  reduceOnlyWhile,
  CONTROL,
  riskLimitsFrom,
  anyLimit,
  RiskGuard
};
//# sourceMappingURL=chunk-TVOHPEJA.js.map
