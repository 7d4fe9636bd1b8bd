"""Parameter maps: pass a kernel's parameters to a library under the library's own names and units.

A third-party map rarely names its parameters as rfverify's kernel registry does: scikit-learn-extra's
``Fastfood`` takes the bandwidth ``sigma`` of exp(-r^2 / (2 sigma^2)) where the registry's ``rbf`` takes
``gamma`` of exp(-gamma r^2).  A parameter map says, per kernel parameter, which constructor argument
receives it and how it converts::

    gamma=sigma:1/sqrt(2*gamma)     # pass sigma = 1/sqrt(2 gamma)
    gamma=std_kernel:1/sqrt(2*gamma)
    gamma=gamma                     # the same name and value (the default for a name the constructor accepts)
    gamma=                          # do not pass gamma at all (the constructor's gamma means something else)
    gamma=.lengthscale:1/sqrt(2*gamma)   # set the attribute after construction (gpytorch's RFFKernel)

The expression is evaluated by a small, safe evaluator over the :mod:`ast` of the text (numbers, the
kernel's parameters, ``+ - * / **``, unary minus, ``sqrt exp log abs`` and ``pi``, ``e``): no names,
attributes, calls or subscripts beyond those, so a command line can never run code.

>>> pm = parse_param_map(["gamma=sigma:1/sqrt(2*gamma)"])
>>> apply_param_map(pm, {"gamma": 0.5})
{'sigma': 1.0}
"""

from __future__ import annotations

import ast
import math
import operator
from typing import Any, Callable, Iterable, Mapping, NamedTuple

from rfverify.errors import UsageError

__all__ = ["ParamRoute", "parse_param_map", "as_param_map", "apply_param_map", "evaluate"]

_BINARY: dict[type, Callable[[Any, Any], Any]] = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Div: operator.truediv,
           ast.Pow: operator.pow}
_UNARY: dict[type, Callable[[Any], Any]] = {ast.USub: operator.neg, ast.UAdd: operator.pos}
_FUNCTIONS: dict[str, Callable[[Any], Any]] = {"sqrt": math.sqrt, "exp": math.exp, "log": math.log, "abs": abs}
_CONSTANTS = {"pi": math.pi, "e": math.e}
#: Longest expression accepted (a parameter conversion is a few symbols; this bounds the AST walk).
MAX_EXPRESSION = 200


class ParamRoute(NamedTuple):
    """``(target, expression)``: the constructor argument (None: not passed) and the conversion text."""

    target: str | None
    expression: str


def evaluate(expression: str, names: Mapping[str, Any]) -> float:
    """The value of an arithmetic ``expression`` over ``names`` (a UsageError for anything else)."""
    if not isinstance(expression, str) or not expression.strip() or len(expression) > MAX_EXPRESSION:
        raise UsageError(f"a parameter conversion must be a short arithmetic expression, got {expression!r}")
    try:
        tree = ast.parse(expression.strip(), mode="eval")
    except SyntaxError:
        raise UsageError(f"cannot parse the parameter conversion {expression!r}") from None

    def ev(node: ast.AST) -> float:
        if isinstance(node, ast.Expression):
            return ev(node.body)
        if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)) and not isinstance(node.value, bool):
            return float(node.value)
        if isinstance(node, ast.Name):
            if node.id in names:
                v = names[node.id]
                if isinstance(v, bool) or not isinstance(v, (int, float)):
                    raise UsageError(f"kernel parameter {node.id}={v!r} is not a number; it cannot enter {expression!r}")
                return float(v)
            if node.id in _CONSTANTS:
                return _CONSTANTS[node.id]
            raise UsageError(f"unknown name {node.id!r} in {expression!r}; use the kernel's parameters "
                             f"({', '.join(sorted(names)) or 'none'}), numbers, pi, e")
        if isinstance(node, ast.BinOp) and type(node.op) in _BINARY:
            return _BINARY[type(node.op)](ev(node.left), ev(node.right))
        if isinstance(node, ast.UnaryOp) and type(node.op) in _UNARY:
            return _UNARY[type(node.op)](ev(node.operand))
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in _FUNCTIONS
                and len(node.args) == 1 and not node.keywords):
            return float(_FUNCTIONS[node.func.id](ev(node.args[0])))
        raise UsageError(f"{expression!r}: only numbers, the kernel's parameters, + - * / **, "
                         f"{', '.join(_FUNCTIONS)} and pi, e are allowed")

    try:
        value = ev(tree)
    except (ZeroDivisionError, OverflowError, ValueError) as exc:
        raise UsageError(f"the parameter conversion {expression!r} failed ({exc}) at {dict(names)}") from None
    if not math.isfinite(value):
        raise UsageError(f"the parameter conversion {expression!r} is not finite at {dict(names)}")
    return value


def _route(key: str, text: Any) -> ParamRoute:
    if isinstance(text, tuple) and len(text) == 2:
        target, expr = text
        return _route(key, f"{target}:{expr}" if target else "")
    if not isinstance(text, str):
        raise UsageError(f"param_map[{key!r}] must be 'NAME', 'NAME:EXPRESSION' or '' (not passed), got {text!r}")
    if not text.strip():
        return ParamRoute(None, "")
    target, _, expr = text.partition(":")
    target = target.strip()
    if not (target[1:] if target.startswith(".") else target).isidentifier():
        raise UsageError(f"param_map[{key!r}]: {target!r} is not a parameter name (or .ATTRIBUTE)")
    return ParamRoute(target, expr.strip() or key)


def as_param_map(value: Mapping[str, Any] | None) -> dict[str, ParamRoute]:
    """Validate a Python ``param_map={kernel_param: "NAME[:EXPRESSION]" | "" | (NAME, EXPRESSION)}``."""
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise UsageError(f"param_map must be a dict {{kernel parameter: 'NAME[:EXPRESSION]'}}, got "
                         f"{type(value).__name__}")
    out = {}
    for key, text in value.items():
        if not isinstance(key, str) or not key.isidentifier():
            raise UsageError(f"param_map key {key!r} is not a parameter name")
        out[key] = _route(key, text)
    return out


def parse_param_map(items: Iterable[str]) -> dict[str, ParamRoute]:
    """``--param-name KEY=NAME[:EXPRESSION]`` options (repeatable) as a parameter map."""
    out: dict[str, Any] = {}
    for text in items:
        if not isinstance(text, str) or "=" not in text or text.startswith("="):
            raise UsageError(f"--param-name takes KERNEL_PARAM=NAME[:EXPRESSION] (e.g. gamma=sigma:1/sqrt(2*gamma)), "
                             f"got {text!r}")
        key, rest = text.split("=", 1)
        out[key.strip()] = rest
    return as_param_map(out)


def apply_param_map(routes: Mapping[str, ParamRoute], params: Mapping[str, Any]) -> dict[str, Any]:
    """The constructor arguments ``routes`` make of the kernel's ``params`` (routed parameters only).

    An unknown kernel parameter in ``routes`` is a usage error naming the kernel's parameters.
    """
    unknown = sorted(set(routes) - set(params))
    if unknown:
        raise UsageError(f"param_map names {', '.join(unknown)}, not parameters of the kernel "
                         f"({', '.join(sorted(params)) or 'none'})")
    out: dict[str, Any] = {}
    for key, route in routes.items():
        if route.target is None:
            continue
        out[route.target] = params[key] if route.expression == key else evaluate(route.expression, params)
    return out


def describe(routes: Mapping[str, ParamRoute]) -> list[str]:
    """The ``--param-name`` options that give ``routes`` back (for the reproduce command)."""
    return [f"{k}={r.target}:{r.expression}" if r.target else f"{k}=" for k, r in sorted(routes.items())]
