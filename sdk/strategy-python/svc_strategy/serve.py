"""Serves one Python strategy over gRPC (proto/svc/strategy/v1) on a Unix domain socket: the
platform's client calls Init, Decide until the bars run out, then Stop.

    python3 -m svc_strategy.serve <socket path> <strategy file>

The generated stubs (strategy_pb2, strategy_pb2_grpc) must be importable: the platform generates
them from the proto with python3-grpc-tools and puts them on sys.path (see docs/strategies.md).
"""

import json
import os
import random
import sys
import threading
import traceback
from concurrent import futures

import grpc
from google.protobuf import json_format

from svc.strategy.v1 import strategy_pb2 as pb
from svc.strategy.v1 import strategy_pb2_grpc as pb_grpc
from svc_strategy.params import InvalidParams
from svc_strategy.runtime import Run

SIDES = {"buy": pb.SIDE_BUY, "sell": pb.SIDE_SELL}
SIDE_NAMES = {pb.SIDE_BUY: "buy", pb.SIDE_SELL: "sell"}
TYPES = {"market": pb.ORDER_TYPE_MARKET, "limit": pb.ORDER_TYPE_LIMIT, "stop": pb.ORDER_TYPE_STOP}
STACK_FRAMES = 20


class Fill:
    """A fill as on_fill gets it."""

    def __init__(self, message):
        self.order_id = message.order_id
        self.symbol = message.symbol
        self.side = SIDE_NAMES.get(message.side, "buy")
        self.units = message.units
        self.price = message.price
        self.fee = message.fee
        self.time = message.time


def strategy_stack(error, filename):
    """The strategy's own frames only (no runtime path), most recent last."""
    frames = [f for f in traceback.extract_tb(error.__traceback__) if f.filename == filename]
    lines = [f'  File "{f.filename}", line {f.lineno}, in {f.name}' for f in frames[-STACK_FRAMES:]]
    said = str(error)
    return "\n".join(lines + [f"{type(error).__name__}: {said}" if said else type(error).__name__])


class Servicer(pb_grpc.StrategyServiceServicer):
    def __init__(self, namespace, filename, stopped):
        self.namespace = namespace
        self.filename = filename
        self.stopped = stopped
        self.run = None

    def fail(self, context, error):
        if isinstance(error, InvalidParams):
            context.abort(grpc.StatusCode.INVALID_ARGUMENT, str(error))
        stack = strategy_stack(error, self.filename)
        metadata = [("strategy-stack-bin", stack.encode("utf-8"))]
        if self.run is not None:
            # The lines the failing call wrote before it raised: the run keeps them.
            lines = [[bar, time or 0, level, message] for bar, time, level, message in self.run.take_logs()]
            logs = json.dumps({"lines": lines, "dropped": self.run.logs_dropped})
            metadata.append(("strategy-logs-bin", logs.encode("utf-8")))
        context.set_trailing_metadata(tuple(metadata))
        said = str(error)
        message = f"{type(error).__name__}: {said}" if said else type(error).__name__
        context.abort(grpc.StatusCode.UNKNOWN, message)

    def logs(self):
        out = []
        for bar, time, level, message in self.run.take_logs():
            out.append(pb.LogLine(bar=bar, time=time or 0, level=level, message=message))
        return out

    def Init(self, request, context):  # noqa: N802 - gRPC's method names
        try:
            if self.run is not None:
                raise RuntimeError("init runs once")
            random.seed(request.seed)
            given = json_format.MessageToDict(request.params)
            self.run = Run(
                self.namespace,
                given,
                list(request.symbols),
                request.lookback,
                request.seed,
                request.log_lines or 1000,
                request.log_line_chars or 1000,
            )
            if request.restore:
                self.run.restore(request.restore)
            self.run.init()
            answer = pb.InitResponse(
                lookback=self.run.lookback,
                logs=self.logs(),
                logs_dropped=self.run.logs_dropped,
            )
            answer.params.update(self.run.params)
            answer.declared.update(self.run.declared)
            return answer
        except BaseException as error:  # noqa: BLE001 - every failure (sys.exit too) is the answer
            self.fail(context, error)

    def Decide(self, request, context):  # noqa: N802
        try:
            run = self.run
            if run is None:
                raise RuntimeError("Decide before Init")
            if request.HasField("block"):
                run.hold(request.block.base, request.block.time, request.block.symbols)
            stopped_after, decisions = run.decide(
                request.start,
                request.end,
                _portfolio(request.portfolio),
                [Fill(f) for f in request.fills],
            )
            return pb.DecideResponse(
                stopped_after=stopped_after,
                decisions=[_decision(d) for d in decisions],
                logs=self.logs(),
                logs_dropped=run.logs_dropped,
            )
        except BaseException as error:  # noqa: BLE001
            self.fail(context, error)

    def Snapshot(self, request, context):  # noqa: N802
        try:
            if self.run is None:
                raise RuntimeError("Snapshot before Init")
            return pb.SnapshotResponse(state=self.run.snapshot())
        except BaseException as error:  # noqa: BLE001
            self.fail(context, error)

    def Stop(self, request, context):  # noqa: N802
        try:
            run = self.run
            if run is None:
                raise RuntimeError("Stop before Init")
            for fill in request.fills:
                run.time = fill.time
                run.call("on_fill", Fill(fill))
            run.stop()
            return pb.StopResponse(logs=self.logs(), logs_dropped=run.logs_dropped)
        except BaseException as error:  # noqa: BLE001
            self.fail(context, error)
        finally:
            self.stopped.set()


def _portfolio(message):
    from svc_strategy.runtime import Portfolio

    return Portfolio(message)


def _decision(d):
    bar, time, targets, orders, cancels = d
    out = pb.Decision(bar=bar, time=time if time is not None else 0, cancels=cancels)
    for symbol, (kind, value) in targets:
        change = out.targets.add(symbol=symbol)
        setattr(change, kind, value)
    for order_id, symbol, side, kind, units, limit_price, stop_price in orders:
        order = out.orders.add(id=order_id, symbol=symbol, side=SIDES[side], type=TYPES[kind], units=units)
        if limit_price is not None:
            order.limit_price = limit_price
        if stop_price is not None:
            order.stop_price = stop_price
    return out


def load_strategy(filename):
    """The strategy file's namespace (its module-level names), run once as a module would be."""
    with open(filename, encoding="utf-8") as f:
        source = f.read()
    namespace = {"__name__": "strategy", "__file__": filename}
    exec(compile(source, filename, "exec"), namespace)  # noqa: S102 - running it is the point
    return namespace


def main(argv):
    socket_path, filename = argv[1], argv[2]
    namespace = load_strategy(filename)
    stopped = threading.Event()
    # One worker: the client makes one call at a time, and the strategy's code is not thread-safe.
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=1), maximum_concurrent_rpcs=2)
    pb_grpc.add_StrategyServiceServicer_to_server(Servicer(namespace, filename, stopped), server)
    # Bound under another name and renamed once it listens: the platform waits for the socket's
    # path to appear, and a socket bound but not yet listening would refuse its first call.
    binding = f"{socket_path}.binding"
    if server.add_insecure_port(f"unix:{binding}") == 0:
        raise SystemExit(f"cannot listen on {socket_path}")
    server.start()
    # The caller may be another user in the socket folder's group (a runner beside a sidecar).
    os.chmod(binding, 0o660)
    os.rename(binding, socket_path)
    stopped.wait()
    server.stop(grace=1).wait()


if __name__ == "__main__":
    main(sys.argv)
