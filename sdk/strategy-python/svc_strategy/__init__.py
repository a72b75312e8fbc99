"""What a Python strategy file imports: parameter declarations. The platform's runtime
(svc_strategy.runtime) loads the file, serves it over gRPC (proto/svc/strategy/v1) and hands its
functions a Context.

A strategy file declares ``params`` and defines any of ``init(ctx)``, ``on_bar(ctx)``,
``on_fill(ctx, fill)`` and ``on_stop(ctx)``::

    from svc_strategy import param

    params = {"fast": param.int(default=10, min=1, description="bars in the fast average")}

    def on_bar(ctx):
        ctx.target(ctx.symbols[0], weight=1.0)
"""

from svc_strategy.params import param

__all__ = ["param"]
SDK_VERSION = "0.1.0"
