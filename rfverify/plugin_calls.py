"""How a plug-in is called, declared instead of wrapped: the method that returns features, extra call keywords,
the output width and a normalisation as expressions of the requested width, and the names under which the
width and the seed reach the constructor (or a plain function).

A library is rarely written to rfverify's contract (``Cls(n_components=, random_state=)``, ``fit(X)``,
``transform(X)`` returning normalised features).  :class:`CallSpec` states the difference::

    method="conv"                     # rfflearn: the features are Base.conv(X), not transform(X)
    call_kw={"axes": 1}               # fht (2017): fht2(X, axes=1) is the row-wise transform
    width="2*m"                       # gpytorch: 2 num_samples columns (cos and sin)
    feature_scale="sqrt(2/m)"         # rfflearn: cos(XW + b) unscaled; judged as sqrt(2/m) cos(XW + b)
    names={"n_components": "num_samples", "random_state": None}   # --param-name n_components=num_samples

Expressions use the safe evaluator of :mod:`rfverify.param_map` over ``m`` (the requested n_components) and
``d`` (the input dimension).  A declaration that cannot be delivered (a keyword the callable does not accept, a
method the object does not have) is a one-line :class:`~rfverify.errors.UsageError`, never dropped.

>>> CallSpec(width="2*m").declared_width(16, 3)
32
"""

from __future__ import annotations

import importlib
import inspect
import keyword
import sys
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping

from rfverify.errors import UsageError

__all__ = ["CallSpec", "RESERVED", "as_call_kw", "parse_call_kw", "call_kw_options", "check_accepts",
           "with_call_kw"]

#: The two arguments set per draw; ``--param-name n_components=NAME`` / ``random_state=NAME`` (or ``=``) rename them.
RESERVED = ("n_components", "random_state")


def _expr(text: Any, what: str) -> str | None:
    """``text`` validated as an expression of m and d (evaluated once at m = d = 16)."""
    if text is None:
        return None
    if not isinstance(text, str) or not text.strip():
        raise UsageError(f"{what} must be an expression of m (the requested n_components) and d, e.g. '2*m', "
                         f"got {text!r}")
    _evaluate(text, 16, 16, what)
    return text.strip()


def _evaluate(text: str, m: int, d: int, what: str) -> float:
    from rfverify.param_map import evaluate

    try:
        return evaluate(text, {"m": m, "d": d})
    except UsageError as exc:
        raise UsageError(f"{what} {text!r}: {exc} (names: m, the requested n_components; d, the input dimension)") \
            from None


def as_call_kw(value: Any, what: str = "call_kw") -> dict[str, Any]:
    """None or a mapping {keyword: value} with identifier keys."""
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise UsageError(f"{what} must be a mapping {{keyword: value}}, got {type(value).__name__}")
    for k in value:
        if not isinstance(k, str) or not k.isidentifier() or keyword.iskeyword(k):
            raise UsageError(f"{what} keys must be keyword names, got {k!r}")
    return dict(value)


def parse_call_kw(items: list[str] | None) -> dict[str, Any]:
    """``--call-kw KEY=VALUE`` options (a Python literal or a bare word) as a mapping."""
    from rfverify.options import parse_param

    out: dict[str, Any] = {}
    for text in items or []:
        if "=" not in str(text):
            raise UsageError(f"--call-kw takes KEY=VALUE (e.g. --call-kw axes=1), got {text!r}")
        k, v = parse_param(text, "--call-kw")
        out[k] = v
    return as_call_kw(out, "--call-kw")


def call_kw_options(call_kw: Mapping[str, Any]) -> list[str]:
    """The ``--call-kw`` options that give ``call_kw`` back (for a reproduce command)."""
    out: list[str] = []
    for k in sorted(call_kw):
        out += ["--call-kw", f"{k}={call_kw[k]!r}"]
    return out


def check_accepts(fn: Any, names: Any, who: str, what: str = "call keyword") -> None:
    """A UsageError if ``fn``'s signature (when it has one) accepts neither ``names`` nor ``**kwargs``."""
    try:
        sig = inspect.signature(fn)
    except (TypeError, ValueError):  # a C function without a signature: delivered, its own error if wrong
        return
    params = sig.parameters.values()
    if any(p.kind == p.VAR_KEYWORD for p in params):
        return
    accepted = {p.name for p in params if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)}
    missing = sorted(set(names) - accepted)
    if missing:
        raise UsageError(f"{who} does not accept the {what}{'s' if len(missing) > 1 else ''} {', '.join(missing)} "
                         f"(it accepts {', '.join(sorted(accepted)) or 'no keywords'}); it cannot be delivered")


def with_call_kw(fn: Callable[..., Any], call_kw: Mapping[str, Any], who: str) -> Callable[..., Any]:
    """``fn`` with ``call_kw`` added to every call (checked against its signature first)."""
    if not call_kw:
        return fn
    check_accepts(fn, call_kw, who)
    import functools

    return functools.partial(fn, **call_kw)


@dataclass(frozen=True)
class CallSpec:
    """The call declarations of one feature-map plug-in (see the module doc)."""

    #: The method returning features (None: ``transform``, or a torch module's ``forward``).
    method: str | None = None
    call_kw: Mapping[str, Any] = field(default_factory=dict)
    #: The output width as an expression of m and d (None: whatever fit fixes, the same for every draw).
    width: str | None = None
    #: A declared normalisation: the features are judged multiplied by this expression of m and d.
    feature_scale: str | None = None
    #: ``n_components`` / ``random_state`` -> the constructor's (or function's) name for it; None: not passed.
    names: Mapping[str, str | None] = field(default_factory=dict)

    @classmethod
    def make(cls, *, method: Any = None, call_kw: Any = None, width: Any = None, feature_scale: Any = None,
             names: Mapping[str, str | None] | None = None) -> "CallSpec":
        if method is not None and (not isinstance(method, str) or not method.isidentifier()):
            raise UsageError(f"method must be a method name (e.g. 'conv' or '_featurize'), got {method!r}")
        return cls(method, as_call_kw(call_kw), _expr(width, "width"), _expr(feature_scale, "feature_scale"),
                   dict(names or {}))

    def name_of(self, reserved: str) -> str | None:
        """The name under which ``n_components`` / ``random_state`` is passed (None: not passed)."""
        return self.names.get(reserved, reserved)

    @property
    def renamed(self) -> bool:
        return any(self.names.get(r, r) != r for r in RESERVED)

    def declared_width(self, m: int, d: int) -> int | None:
        """The declared output width at n_components ``m`` and dimension ``d`` (None: not declared)."""
        if self.width is None:
            return None
        w = _evaluate(self.width, m, d, "width")
        if w != int(w) or w < 0:
            raise UsageError(f"the declared width {self.width!r} is {w:g} at m = {m}, d = {d}: not a whole number")
        return int(w)

    def scale(self, m: int, d: int) -> float | None:
        """The declared feature scale at ``m`` and ``d`` (None: the features are judged as returned)."""
        return None if self.feature_scale is None else _evaluate(self.feature_scale, m, d, "feature_scale")

    def is_private(self) -> bool:
        return bool(self.method and self.method.startswith("_"))

    def options(self) -> list[str]:
        """The command-line options that give this declaration back (for the reproduce command)."""
        out: list[str] = []
        if self.method:
            out += ["--method", self.method]
        out += call_kw_options(self.call_kw)
        if self.width:
            out += ["--width", self.width]
        if self.feature_scale:
            out += ["--feature-scale", self.feature_scale]
        for r in RESERVED:
            if r in self.names and self.names[r] != r:
                out += ["--param-name", f"{r}={self.names[r] or ''}"]
        return out

    def as_dict(self) -> dict[str, Any]:
        """For the report: what was declared, and the notes it implies."""
        notes = []
        if self.is_private():
            notes.append(f"the features come from the private method {self.method} (not part of the library's "
                         "public API: it may change without notice)")
        if self.feature_scale:
            notes.append(f"the library returns unnormalised features: they are judged multiplied by the declared "
                         f"scale {self.feature_scale} (m = the requested n_components)")
        if self.names.get("random_state", "random_state") is None:
            notes.append("random_state is not passed (the map is deterministic or seeded through a global generator)")
        return {"method": self.method, "call_kw": dict(self.call_kw), "width": self.width,
                "feature_scale": self.feature_scale, "names": dict(self.names), "notes": notes}

    def declared(self) -> bool:
        return bool(self.method or self.call_kw or self.width or self.feature_scale or self.names)


def spec_of(obj: Any, instances: bool = False) -> str | None:
    """``module:qualname`` if importing it gives back ``obj`` (a plug-in's name in any kind's commands), else None;
    ``instances``: an instance is named by the public name its class's module binds it to (``quadrature:sr33_haar``)."""
    mod = getattr(obj, "__module__", None)
    qual = getattr(obj, "__qualname__", None)
    if instances and isinstance(mod, str) and not isinstance(qual, str):
        module = sys.modules.get(mod)  # the class is defined there, so it is imported
        names = [k for k, v in list(vars(module).items()) if v is obj and not k.startswith("_")] if module else []
        return f"{mod}:{names[0]}" if names else None
    if not mod or not qual or "<" in qual:
        return None
    try:
        target: Any = importlib.import_module(mod)
        for part in qual.split("."):
            target = getattr(target, part)
    except Exception:
        return None
    return f"{mod}:{qual}" if target is obj else None
