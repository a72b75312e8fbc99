"""Declared parameters: a type, a default, optional bounds; the runtime resolves given values
against them (defaults fill the rest) and refuses what does not fit before init runs."""

import math


class InvalidParams(ValueError):
    """The given parameters do not fit the declarations: the run fails invalid_params."""


class ParamSpec:
    def __init__(self, kind, default, minimum=None, maximum=None, choices=None, description=""):
        self.kind = kind
        self.default = default
        self.minimum = minimum
        self.maximum = maximum
        self.choices = choices
        self.description = description

    def resolve(self, name, value):
        if self.kind == "int":
            # JSON numbers arrive as floats; a whole one is an int.
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                raise InvalidParams(f"{name}: give a whole number, not {value!r}")
            if isinstance(value, float):
                if not value.is_integer():
                    raise InvalidParams(f"{name}: give a whole number, not {value!r}")
                value = int(value)
        elif self.kind == "number":
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                raise InvalidParams(f"{name}: give a number, not {value!r}")
            value = float(value)
            if not math.isfinite(value):
                raise InvalidParams(f"{name}: give a finite number, not {value!r}")
        elif self.kind == "boolean":
            if not isinstance(value, bool):
                raise InvalidParams(f"{name}: give true or false, not {value!r}")
        elif self.kind == "choice":
            if value not in self.choices:
                raise InvalidParams(f"{name}: give one of {', '.join(self.choices)}, not {value!r}")
        if self.minimum is not None and value < self.minimum:
            raise InvalidParams(f"{name}: at least {self.minimum}, not {value!r}")
        if self.maximum is not None and value > self.maximum:
            raise InvalidParams(f"{name}: at most {self.maximum}, not {value!r}")
        return value

    def declaration(self):
        """As the platform names it (a choice is an "enum", as in the TypeScript SDK)."""
        out = {"type": "enum" if self.kind == "choice" else self.kind, "default": self.default}
        if self.minimum is not None:
            out["min"] = self.minimum
        if self.maximum is not None:
            out["max"] = self.maximum
        if self.choices is not None:
            out["values"] = list(self.choices)
        if self.description:
            out["description"] = self.description
        return out


class _Param:
    """param.int(...), param.number(...), param.boolean(...), param.choice(...)."""

    @staticmethod
    def int(default, min=None, max=None, description=""):  # noqa: A002 - the SDK's own names
        return ParamSpec("int", default, min, max, None, description)

    @staticmethod
    def number(default, min=None, max=None, description=""):  # noqa: A002
        return ParamSpec("number", default, min, max, None, description)

    @staticmethod
    def boolean(default, description=""):
        return ParamSpec("boolean", default, None, None, None, description)

    @staticmethod
    def choice(default, choices, description=""):
        return ParamSpec("choice", default, None, None, list(choices), description)


param = _Param()


def resolve_params(declared, given):
    """Defaults overlaid with the given values; an unknown name or a bad value raises."""
    out = {}
    if "__proto__" in declared:
        # The platform's JSON objects give that name to their prototype: it could not be kept.
        raise InvalidParams("__proto__: a parameter may not be named __proto__ (JavaScript objects give that name to their prototype); rename it")
    for name in given:
        if name not in declared:
            known = ", ".join(sorted(declared)) or "none"
            raise InvalidParams(f"{name}: the strategy declares no such parameter (it declares {known})")
    for name, spec in declared.items():
        out[name] = spec.resolve(name, given[name] if name in given else spec.default)
    return out
