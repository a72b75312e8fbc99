"""One run of one Python strategy: the context it reads and the decisions it makes, answering the
kernel's decide protocol (proto/svc/strategy/v1, services/bots/src/execution/kernel/
strategy-host.ts) the way the TypeScript sandbox's runtime does, so the twin of a TypeScript
strategy gives the same orders bit for bit."""

import collections
import json
import math
import random

from svc_strategy.params import InvalidParams, ParamSpec, resolve_params

MAX_LOOKBACK = 100_000
FIELDS = ("open", "high", "low", "close", "volume")

Bar = collections.namedtuple("Bar", ("time", "open", "high", "low", "close", "volume"))


class Series:
    """A symbol's latest closed bars, at most `lookback` of them, oldest first."""

    def __init__(self, symbol, lookback):
        self.symbol = symbol
        self._bars = collections.deque(maxlen=lookback)

    def push(self, bar):
        self._bars.append(bar)

    @property
    def latest(self):
        return self._bars[-1] if self._bars else None

    def __len__(self):
        return len(self._bars)

    def __getitem__(self, i):
        return self._bars[i]

    def closes(self):
        return [b.close for b in self._bars]


class Portfolio:
    def __init__(self, message):
        self.cash = message.cash
        self.positions = {p.symbol: p.units for p in message.positions}
        self.average_prices = {p.symbol: p.average_price for p in message.positions}
        self.open_orders = list(message.open_orders)


class Context:
    """What a strategy's functions get: params, symbols, bars, portfolio, state; target, order,
    cancel and log."""

    def __init__(self, run):
        self._run = run
        self.params = run.params
        self.symbols = list(run.symbols)
        self.state = {}
        self.random = random.Random(run.seed)

    @property
    def time(self):
        return self._run.time

    @property
    def portfolio(self):
        return self._run.portfolio

    def bars(self, symbol):
        series = self._run.series_of.get(symbol)
        if series is None:
            raise KeyError(f"bars({symbol!r}): not in the universe")
        return series

    def target(self, symbol, weight=None, units=None):
        if symbol not in self._run.series_of:
            raise KeyError(f"target({symbol!r}): not in the universe")
        if (weight is None) == (units is None):
            raise TypeError(f"target({symbol}): give exactly one of weight= or units=")
        value = weight if weight is not None else units
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
            raise TypeError(f"target({symbol}): {'weight' if weight is not None else 'units'} must be a finite number")
        self._run.targets.append((symbol, "weight" if weight is not None else "units", float(value)))

    def order(self, symbol, side, units, type="market", limit_price=None, stop_price=None):  # noqa: A002
        if symbol not in self._run.series_of:
            raise KeyError(f"order({symbol!r}): not in the universe")
        if side not in ("buy", "sell") or type not in ("market", "limit", "stop"):
            raise ValueError("order: side is buy or sell, type market, limit or stop")
        self._run.order_seq += 1
        order_id = f"o{self._run.order_seq}"
        self._run.orders.append((order_id, symbol, side, type, float(units), limit_price, stop_price))
        return order_id

    def cancel(self, order_id):
        self._run.cancels.append(str(order_id))

    def log(self, message, level="info"):
        self._run.log(str(message), "warn" if level == "warn" else "info")


class Run:
    """Loads the strategy's namespace, resolves params, and runs its functions bar by bar."""

    def __init__(self, namespace, given_params, symbols, lookback, seed, log_lines, log_line_chars):
        declared = namespace.get("params", {})
        if not isinstance(declared, dict) or not all(isinstance(s, ParamSpec) for s in declared.values()):
            raise TypeError("params must be a dict of param.int(...), param.number(...), ...")
        self.declared = {name: spec.declaration() for name, spec in declared.items()}
        self.params = resolve_params(declared, given_params)
        if not symbols:
            raise InvalidParams("a strategy needs at least one symbol")
        self.lookback = lookback or int(namespace.get("lookback", 1))
        if not 1 <= self.lookback <= MAX_LOOKBACK:
            raise InvalidParams(f"lookback must be an integer from 1 to {MAX_LOOKBACK}, not {self.lookback}")
        self.symbols = list(symbols)
        self.seed = seed
        self.series = [Series(s, self.lookback) for s in self.symbols]
        self.series_of = {s.symbol: s for s in self.series}
        self.fns = {name: namespace.get(name) for name in ("init", "on_bar", "on_fill", "on_stop")}
        self.time = None
        self.bar = -1
        self.portfolio = None
        self.targets = []
        self.orders = []
        self.cancels = []
        self.order_seq = 0
        self.standing = {}
        self.logs = []
        self.logs_kept = 0
        self.logs_dropped = 0
        self.log_lines = log_lines
        self.log_line_chars = log_line_chars
        self.held = None
        self.ctx = Context(self)

    def log(self, message, level):
        if self.logs_kept >= self.log_lines:
            self.logs_dropped += 1
            return
        self.logs_kept += 1
        self.logs.append((self.bar, self.time, level, message[: self.log_line_chars]))

    def take_logs(self):
        logs, self.logs = self.logs, []
        return logs

    def call(self, name, *args):
        fn = self.fns[name]
        if fn is not None:
            fn(self.ctx, *args)

    def init(self):
        self.bar = -1
        self.call("init")

    def snapshot(self):
        """What a resumed run needs (the platform puts the bars back itself), as JSON."""
        try:
            state = json.dumps(self.ctx.state, allow_nan=False)
        except (TypeError, ValueError) as error:
            raise TypeError(f"ctx.state must hold JSON values only (dict, list, str, finite numbers, bool, None): {error}") from None
        return json.dumps(
            {
                "v": 1,
                "state": json.loads(state),
                "standing": [[symbol, kind, value] for symbol, (kind, value) in self.standing.items()],
                "order_seq": self.order_seq,
                "random": _state_json(self.ctx.random.getstate()),
                "global_random": _state_json(random.getstate()),
                "logs_kept": self.logs_kept,
                "logs_dropped": self.logs_dropped,
            }
        )

    def restore(self, text):
        """Resumes from a snapshot (with its bars put back under "bars"); init runs after it."""
        snap = json.loads(text)
        if snap.get("v") != 1:
            raise ValueError("the snapshot is not one this runtime wrote")
        state = snap.get("state")
        self.ctx.state = state if isinstance(state, dict) else {}
        for symbol, kind, value in snap.get("standing", []):
            self.standing[symbol] = (kind, value)
        self.order_seq = int(snap.get("order_seq", 0))
        self.ctx.random.setstate(_state_tuple(snap["random"]))
        random.setstate(_state_tuple(snap["global_random"]))
        self.logs_kept = int(snap.get("logs_kept", 0))
        self.logs_dropped = int(snap.get("logs_dropped", 0))
        for series in self.series:
            for row in snap.get("bars", {}).get(series.symbol, []):
                series.push(Bar(*row))

    def hold(self, base, time, symbols):
        """A block's rows: time, then per symbol its open, high, low, close and volume columns."""
        if len(symbols) != len(self.series):
            raise ValueError("the host sent a block of the wrong size")
        self.held = (base, list(time), [tuple(list(getattr(s, f)) for f in FIELDS) for s in symbols])

    def decide(self, start, end, portfolio, fills):
        """Runs the fills, then bars start..end-1; stops after the first bar that decided."""
        held = self.held
        if held is None or start < held[0] or end > held[0] + len(held[1]) or start > end:
            raise ValueError("the host asked for bars the strategy does not hold")
        base, times, columns = held
        self.portfolio = portfolio
        self.bar = start - 1
        for fill in fills:
            self.time = fill.time
            self.call("on_fill", fill)
        decisions = []
        stopped_after = start - 1
        series = self.series
        on_bar = self.fns["on_bar"]
        ctx = self.ctx
        for i in range(start, end):
            r = i - base
            t = times[r]
            for s, (o, h, lo, c, v) in zip(series, columns):
                close = c[r]
                if close != close:  # NaN: no bar of this symbol at this row
                    continue
                s.push(Bar(t, o[r], h[r], lo[r], close, v[r]))
            self.time = t
            self.bar = i
            if on_bar is not None:
                on_bar(ctx)
            stopped_after = i
            decision = self.collect(i)
            if decision is not None:
                decisions.append(decision)
                break
        return stopped_after, decisions

    def stop(self):
        self.bar = -1
        self.call("on_stop")

    def collect(self, bar):
        """What the bar asked for, when anything changed (a target equal to the standing one is not)."""
        changed = {}
        for symbol, kind, value in self.targets:
            standing = self.standing.get(symbol)
            if standing is not None and standing[0] == kind and standing[1] == value:
                continue
            self.standing[symbol] = (kind, value)
            changed.pop(symbol, None)
            changed[symbol] = (kind, value)
        self.targets = []
        if not changed and not self.orders and not self.cancels:
            return None
        decision = (bar, self.time, list(changed.items()), self.orders, self.cancels)
        self.orders = []
        self.cancels = []
        return decision


def _state_json(state):
    version, internal, gauss = state
    return [version, list(internal), gauss]


def _state_tuple(value):
    version, internal, gauss = value
    return (version, tuple(internal), gauss)
