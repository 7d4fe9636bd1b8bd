"""Clean refusals: a plug-in that declines a configuration narrows the space it is judged on.

scikit-learn's samplers validate their arguments and raise ``ValueError("n_components must be >= 2")``; a map
that draws ``m // 2`` frequencies may refuse ``n_components = 1``, a quadrature rule ``d = 1``, a transform an
odd width.  Such a refusal is the plug-in's *boundary*, not a defect, and the exploration treats it as
Hypothesis treats ``assume(False)``: the configuration is set aside, never judged, and the search goes on.

The rule (the README's "Where a verdict holds"):

* **A clean refusal** is an exception of :data:`REFUSAL_TYPES` (``ValueError``, ``TypeError``,
  ``NotImplementedError`` or a subclass) raised by the plug-in's own code — its constructor, ``fit``, a
  sampler or rule call, or ``transform`` for an input form (dtype, layout, batch size) — at a configuration
  other than the main one.  Everything else stays what it was: another exception type
  (``ZeroDivisionError``, ``IndexError``, ``AttributeError``, ``FloatingPointError`` …), a crash, a hang,
  NaN/inf, a wrong shape or wrong numbers.
* **A refusal at the main configuration** (the one the caller asked for) is an error, as before: nothing
  could be judged where the verdict was wanted.
* **A refusal must be consistent**: the same configuration replayed refuses again, and so does the same
  configuration with another seed; a plug-in that accepts a configuration once and refuses it once, or
  refuses it for one seed and not for another, has a defect, not a boundary (:class:`InconsistentRefusal`,
  an error).
* **The refused region is stated**: each refusal is explained axis by axis against the main configuration
  (:meth:`SpaceLog.rules`): the axes whose value alone makes the difference, each described in its simplest
  form — ``n_components < 2``, ``odd n_components``, ``d = 1``, ``float32 input``, ``Fortran-ordered input``,
  ``batches of 1 row`` — with the plug-in's own message.  The verdict carries it: where the property held,
  where it was not tried and why.
* **Strict mode** (``--strict-space``, ``strict_space=True``, the pytest ini option ``rfverify_strict_space``):
  a refusal anywhere in the default space is a failure of ``explore``, with the refused rule as its finding —
  for a library that promises every configuration.

>>> log = SpaceLog([Axis("n_components")], {"n_components": 8},
...                probe=lambda form, seed: Refusal("ValueError", "n_components must be >= 2", "fit")
...                if form["n_components"] < 2 else None)
>>> for m in (1, 3, 8, 64):
...     r = log.probe(dict(n_components=m), 0)
...     _ = log.refuse(dict(n_components=m), r, seed=0) if r else log.accept(dict(n_components=m))
>>> [rule.text for rule in log.rules()]
['n_components < 2']
>>> log.rules()[0].describe()
'refuses n_components < 2 (ValueError: n_components must be >= 2, at fit)'
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Mapping, Protocol, Sequence, TypeVar

from rfverify.errors import PluginError
from rfverify.jsontypes import JSONRecord, JSONValue


R = TypeVar("R", covariant=True)


class _Judging(Protocol[R]):
    """The check context :func:`strict_failure` reports through (a :class:`rfverify.registry.BaseContext`, whose
    failing result is a :class:`rfverify.results.CheckResult`)."""

    def fail(self, headline: str, observed: str | None = None, expected: str | None = None,
             **kw: Any) -> R:
        """A failing result."""

__all__ = ["REFUSAL_TYPES", "Refusal", "Refused", "InconsistentRefusal", "Axis", "Rule", "SpaceLog", "refusal_of",
           "is_refusal", "MOSTLY_REFUSED", "coverage_statement"]

#: Exception types that are a clean refusal of a configuration (subclasses included).
REFUSAL_TYPES: tuple[type[BaseException], ...] = (ValueError, TypeError, NotImplementedError)

#: A search whose share of refused configurations is above this says so as a warning: the verdict covers little.
MOSTLY_REFUSED = 0.5


@dataclass(frozen=True)
class Refusal:
    """What a plug-in said when it declined a call: its exception type, its own one-line message, and the call
    (``fit``, ``transform``, ``constructing with n_components=1, random_state=0``, ``sampler(1, rng)``)."""

    exception: str
    message: str
    action: str

    def text(self) -> str:
        return f"{self.exception}: {self.message}"


def is_refusal(exc: BaseException) -> bool:
    """True when ``exc`` (raised by plug-in code) is a clean refusal (:data:`REFUSAL_TYPES`)."""
    return isinstance(exc, REFUSAL_TYPES) and not isinstance(exc, PluginError)


def refusal_of(exc: BaseException) -> Refusal | None:
    """The :class:`Refusal` a :class:`~rfverify.errors.PluginError` carries (set by :func:`rfverify.guard.call`
    when the plug-in raised a clean refusal), else None."""
    ref = getattr(exc, "refusal", None) if isinstance(exc, PluginError) else None
    return ref if isinstance(ref, Refusal) else None


class Refused(Exception):
    """Raised inside an explored property: this configuration is outside the plug-in's supported space (the
    search rejects it, as Hypothesis' ``assume(False)``)."""

    def __init__(self, refusal: Refusal, form: JSONRecord) -> None:
        super().__init__(refusal.text())
        self.refusal, self.form = refusal, dict(form)


class InconsistentRefusal(PluginError):
    """The plug-in refused a configuration once and accepted it once (another seed, or a replay): a defect."""


@dataclass(frozen=True)
class Axis:
    """One axis of a configuration space, for describing a refused region: ``kind`` is ``"int"`` (ordered:
    a boundary located by probing, a parity or a list of values), ``"float"`` (a continuous parameter: the
    refused values seen, bounded by the accepted ones) or ``"choice"`` (a set of names)."""

    name: str
    kind: str = "int"


#: How a refused region reads, per axis and value, for the named choice axes.
_CHOICE_TEXT = {("dtype", "float32"): "float32 input", ("dtype", "float64"): "float64 input",
                ("layout", "F"): "Fortran-ordered input", ("layout", "strided"): "strided (non-contiguous) input",
                ("layout", "C"): "C-ordered input", ("norm", "near-zero"): "inputs of near-zero norm",
                ("norm", "large"): "inputs of large norm", ("norm", "typical"): "inputs of typical norm"}


def _int_text(axis: str, op: str, value: JSONValue) -> str:
    axis = axis.removeprefix("param:")
    if axis == "batch":
        if op == "==":
            return f"batches of {value} row{'s' if value != 1 else ''}"
        if op in ("<", ">"):
            return f"batches of {'fewer' if op == '<' else 'more'} than {value} rows"
        if op in ("odd", "even"):
            return f"batches of an {op} number of rows"
        return f"batches of {', '.join(map(str, value))} rows"
    if op in ("odd", "even"):
        return f"{op} {axis}"
    if op == "in":
        return f"{axis} in {{{', '.join(map(str, value))}}}"
    shown = f"{value:g}" if isinstance(value, float) else value
    return f"{axis} {op.replace('<=', '≤').replace('>=', '≥')} {shown}".replace(" == ", " = ")


@dataclass(frozen=True)
class Rule:
    """A refused region: ``axes`` -> (op, value) — op ``"<"``, ``">"``, ``"<="``, ``">="``, ``"=="``, ``"in"`` (a
    list of values), ``"odd"``, ``"even"`` (value None) — what the plug-in said there, and how many explored configurations it
    set aside.  Several axes: the refusal needs all of them (a combination)."""

    conditions: tuple[tuple[str, str, JSONValue], ...]
    refusal: Refusal
    count: int = 1

    @property
    def text(self) -> str:
        parts = []
        for axis, op, value in self.conditions:
            if op == "in" and all((axis, v) in _CHOICE_TEXT for v in value):
                parts.append(" or ".join(_CHOICE_TEXT[(axis, v)] for v in value))
            else:
                parts.append(_int_text(axis, op, value))
        return " and ".join(parts) if parts else "the configuration as a whole"

    def describe(self) -> str:
        return f"refuses {self.text} ({self.refusal.text()}, at {self.refusal.action})"

    def matches(self, form: JSONRecord) -> bool:
        """True when ``form`` lies in this region."""
        if not self.conditions:
            return False
        for axis, op, value in self.conditions:
            v = form.get(axis)
            if v is None:
                return False
            ok = ((op == "<" and v < value) or (op == ">" and v > value) or (op == "==" and v == value)
                  or (op == "<=" and v <= value) or (op == ">=" and v >= value)
                  or (op == "in" and v in value) or (op == "odd" and int(v) % 2 == 1)
                  or (op == "even" and int(v) % 2 == 0))
            if not ok:
                return False
        return True

    def to_dict(self) -> dict[str, object]:
        """Machine-readable: ``{"rule": text, "conditions": [{"axis", "op", "value"}], "exception", "message",
        "action", "configurations"}``."""
        return {"rule": self.text,
                "conditions": [{"axis": a, "op": op, "value": list(v) if isinstance(v, tuple) else v}
                               for a, op, v in self.conditions],
                "exception": self.refusal.exception, "message": self.refusal.message, "action": self.refusal.action,
                "configurations": self.count}


#: Axes whose region at the lowest value reads as an equality (``d = 1``, ``batches of 1 row``).
_EQUAL_AT_LOWEST = {"d", "batch", "width"}


def _shown(form: JSONRecord) -> str:
    return ", ".join(f"{k.removeprefix('param:')}={v!r}" for k, v in form.items())


def _key(form: JSONRecord) -> tuple[tuple[str, JSONValue], ...]:
    return tuple(sorted((k, v if not isinstance(v, list) else tuple(v)) for k, v in form.items()))


class SpaceLog:
    """The refusals met while exploring one plug-in's space, and the regions they describe.

    ``axes``: the axes a refusal is explained along; ``baseline``: the main configuration's value on each (where
    the plug-in accepts); ``probe(form, seed)``: calls the plug-in at ``form`` with ``seed`` (no property judged)
    and returns its :class:`Refusal`, or None when it accepted (a non-refusal error counts as accepted: it is
    judged where it happens, by the property).
    """

    #: Refusals confirmed by replaying (the same seed, two other seeds) before the rest are only recorded: a
    #: refusal that depends on the seed shows in the first ones with high probability, and a plug-in that
    #: refuses most of its space is not charged four calls per configuration.
    CONFIRMED = 16

    def __init__(self, axes: Sequence[Axis], baseline: JSONRecord,
                 probe: Callable[[JSONRecord, int], Refusal | None], *, name: str = "implementation") -> None:
        self.axes, self.baseline, self.probe_fn, self.name = tuple(axes), dict(baseline), probe, name
        #: every refused configuration (on the log's axes) with what the plug-in said
        self.refused: list[tuple[dict[str, JSONValue], Refusal]] = []
        #: every configuration the properties were judged at
        self.accepted_forms: list[dict[str, JSONValue]] = []
        self._probes: dict[tuple[tuple[tuple[str, JSONValue], ...], int], Refusal | None] = {}
        #: every configuration accepted and refused so far (all of its keys, seeds and data excluded by the caller)
        self._accepted_keys: set[tuple[tuple[str, JSONValue], ...]] = set()
        self._refused_keys: dict[tuple[tuple[str, JSONValue], ...], Refusal] = {}

    @property
    def probes(self) -> int:
        """Plug-in calls made to explain and confirm refusals."""
        return len(self._probes)

    def probe(self, form: JSONRecord, seed: int) -> Refusal | None:
        key = (_key(form), seed)
        if key not in self._probes:
            self._probes[key] = self.probe_fn(dict(form), seed)
        return self._probes[key]

    def accept(self, form: JSONRecord) -> None:
        """``form`` was accepted (a configuration the properties were judged at); an :class:`InconsistentRefusal`
        when the same configuration was refused earlier in the search."""
        key = _key(form)
        if key in self._refused_keys:
            ref = self._refused_keys[key]
            raise InconsistentRefusal(
                self.name, f"accepted {_shown(form)} after refusing it earlier ({ref.text()}, at {ref.action}): a "
                "refusal must not depend on the seed or on the call's history",
                "refuse a configuration always or never (validate the arguments, not the draw)")
        self._accepted_keys.add(key)
        self.accepted_forms.append({a.name: form[a.name] for a in self.axes if a.name in form})

    def refuse(self, form: JSONRecord, refusal: Refusal, *, seed: int, other_seed: int | None = None) -> None:
        """``form`` was refused with ``seed``: confirm it (the same call again, with ``other_seed`` and with a seed
        far from both) and keep it; an :class:`InconsistentRefusal` when any of them is accepted (a refusal that
        depends on the seed half the time escapes the three with probability 1/4 per configuration, 2^-32 over the
        16 confirmed)."""
        other = seed + 1 if other_seed is None else other_seed
        third = (other + 2 ** 16 + 1) % 2 ** 32  # a seed far from both: a refusal tied to a seed's low bits shows
        shown = _shown(form)
        checks = ((seed, "the same configuration and seed, replayed,"), (other, f"seed {other}"),
                  (third, f"seed {third}"))
        if _key(form) in self._accepted_keys:
            raise InconsistentRefusal(
                self.name, f"refused {shown} with seed {seed} ({refusal.text()}, at {refusal.action}) after accepting "
                "it earlier in the search: a refusal must not depend on the seed or on the call's history",
                "refuse a configuration always or never (validate the arguments, not the draw)")
        for s, what in checks if len(self.refused) < self.CONFIRMED else ():
            again = self.probe_fn(dict(form), s)
            if again is None:
                raise InconsistentRefusal(
                    self.name, f"refused {shown} with seed {seed} ({refusal.text()}, at {refusal.action}) "
                    f"but accepted it with {what}: a refusal must not depend on the seed or on the call's history",
                    "refuse a configuration always or never (validate the arguments, not the draw)")
        self._refused_keys.setdefault(_key(form), refusal)
        self.refused.append(({a.name: form[a.name] for a in self.axes if a.name in form}, refusal))

    # -- explaining the refused configurations ----------------------------------------------------------
    def rules(self) -> list[Rule]:
        """The refused regions, simplest first: each refused configuration explained by the axes whose value
        alone (with every other axis at the baseline) is refused, each axis' region described by its simplest
        rule (a boundary located by probing, a parity, or the values refused)."""
        rules: list[Rule] = []
        order = sorted(self.refused, key=lambda fr: sum(fr[0].get(a.name) != self.baseline.get(a.name)
                                                        for a in self.axes))
        groups: dict[tuple[str, ...], list[tuple[dict[str, JSONValue], Refusal]]] = {}
        for form, ref in order:
            if any(r.matches(form) for r in rules):
                continue
            names = self._responsible(form)
            groups.setdefault(names, []).append((form, ref))
            rules = self._describe(groups)
        counts = [sum(1 for form, _ in self.refused if r.matches(form)) for r in rules]
        return [Rule(r.conditions, r.refusal, max(c, 1)) for r, c in zip(rules, counts)]

    def _moved(self, form: JSONRecord) -> list[str]:
        return [a.name for a in self.axes if a.name in form and form[a.name] != self.baseline.get(a.name)]

    def _responsible(self, form: JSONRecord) -> tuple[str, ...]:
        """The axes whose value alone, at the baseline, is refused; else the smallest set found by putting the
        other axes back to the baseline one by one (a combination)."""
        moved = self._moved(form)
        alone = [a for a in moved if self.probe({**self.baseline, a: form[a]}, 0) is not None]
        if alone:
            return tuple(alone[:1])
        needed = list(moved)
        for a in moved:
            trial = {**self.baseline, **{b: form[b] for b in needed if b != a}}
            if self.probe(trial, 0) is not None:
                needed.remove(a)
        return tuple(needed)

    def _accepted_values(self, axis: str) -> set[JSONValue]:
        vals = {f[axis] for f in self.accepted_forms if axis in f}
        if axis in self.baseline:
            vals.add(self.baseline[axis])
        refused = {f[axis] for f, _ in self.refused if axis in f}
        return {v for v in vals if v not in refused or self.probe({**self.baseline, axis: v}, 0) is None}

    def _describe(self, groups: Mapping[tuple[str, ...], list[tuple[dict[str, JSONValue], Refusal]]]) -> list[Rule]:
        out = []
        for names, members in groups.items():
            conditions = []
            for name in names:
                kind = next(a.kind for a in self.axes if a.name == name)
                values = sorted({f[name] for f, _ in members}, key=repr if kind == "choice" else None)
                conditions.append((name, *self._region(name, kind, values)))
            out.append(Rule(tuple(conditions), members[0][1], len(members)))
        return out

    def _region(self, name: str, kind: str, refused: list[JSONValue]) -> tuple[str, JSONValue]:
        if kind == "choice":
            return "in", tuple(refused)
        accepted = sorted(v for v in self._accepted_values(name) if v not in refused)
        if kind == "float":  # a continuous parameter: the refused values seen, bounded by the accepted ones
            if accepted and max(refused) < accepted[0]:
                return "<=", max(refused)
            if accepted and min(refused) > accepted[-1]:
                return ">=", min(refused)
            return ("==", refused[0]) if len(refused) == 1 else ("in", tuple(refused[:8]))
        if accepted and max(refused) < accepted[0]:  # the smallest accepted value, between the two
            first = self._boundary(name, max(refused), accepted[0], refused_below=True)
            # a dimension refused at its one lowest value reads "d = 1"; a count reads "n_components < 2"
            return ("==", first - 1) if name in _EQUAL_AT_LOWEST and first - 1 == min(refused) <= 1 else ("<", first)
        if accepted and min(refused) > accepted[-1]:  # the largest accepted value, between the two
            return ">", self._boundary(name, accepted[-1], min(refused), refused_below=False)
        if accepted and all(int(v) % 2 == 1 for v in refused) and all(int(v) % 2 == 0 for v in accepted):
            return "odd", None
        if accepted and all(int(v) % 2 == 0 for v in refused) and all(int(v) % 2 == 1 for v in accepted):
            return "even", None
        if len(refused) == 1:
            return "==", refused[0]
        return "in", tuple(refused[:8])

    def _boundary(self, name: str, lo: int, hi: int, *, refused_below: bool) -> int:
        """Bisection on axis ``name`` (the other axes at the baseline) between ``lo`` and ``hi``, one refused and
        the other accepted: the accepted end of the boundary (the smallest accepted value when the refused region
        lies below, the largest when it lies above)."""
        while hi - lo > 1:
            mid = (lo + hi) // 2
            accepted = self.probe({**self.baseline, name: mid}, 0) is None
            if accepted == refused_below:
                hi = mid
            else:
                lo = mid
        return hi if refused_below else lo

    # -- what the verdict says ----------------------------------------------------------------------------
    def summary(self, searched: str, tried: int) -> dict[str, object]:
        """``details["space"]``'s coverage fields: what was searched, the refused rules, and the counts."""
        rules = self.rules()
        n = len(self.refused)
        return {"searched": searched, "refused": [r.to_dict() for r in rules], "configurations_tried": tried + n,
                "configurations_refused": n,
                "refused_share": (n / (tried + n)) if tried + n else 0.0}


def coverage_statement(space: JSONRecord) -> str:
    """One line from ``details["space"]``: ``over <searched>; refuses <rule> (<exception>: <message>); …``
    (what the terminal, the Markdown summary and the HTML page print under an ``explore`` verdict)."""
    text = f"over {space.get('searched', '?')}"
    for rule in space.get("refused", []) or []:
        text += f"; refuses {rule['rule']} ({rule['exception']}: {rule['message']})"
    share = float(space.get("refused_share", 0.0) or 0.0)
    if share > MOSTLY_REFUSED:
        text += (f"; WARNING: {space.get('configurations_refused')} of {space.get('configurations_tried')} explored "
                 f"configurations were refused, so the verdict covers little of the space")
    return text


def held_where(space: JSONRecord, searched: str) -> str:
    """Where a passing exploration's verdict holds: ``space: <searched>`` when nothing was refused, else the
    coverage statement (:func:`coverage_statement`)."""
    return f"space: {searched}" if not space.get("refused") else coverage_statement(space)


def refused_note(space: JSONRecord) -> str:
    """The refused regions as a note under a failure (empty when none)."""
    rules = space.get("refused") or []
    return "; ".join(f"set aside: refuses {r['rule']} ({r['exception']}: {r['message']})" for r in rules)


def strict_failure(ctx: _Judging[R], space: JSONRecord, refused_examples: Sequence[str], **kw: Any) -> R | None:
    """Strict mode (``ctx.strict_space``): a refusal anywhere in the searched space fails ``explore``, the refused
    rule as the finding and the smallest refused configuration as where; None when not strict or nothing was
    refused."""
    rules = space.get("refused") or []
    if not getattr(ctx, "strict_space", False) or not rules:
        return None
    observed = "; ".join(f"refuses {r['rule']} ({r['exception']}: {r['message']}, at {r['action']}, "
                         f"{r['configurations']} configuration{'s' if r['configurations'] != 1 else ''})"
                         for r in rules)
    statistic = kw.pop("statistic", None)
    return ctx.fail("the plug-in refuses part of its configuration space (strict space)", observed,
                    f"every configuration of the space accepted ({space.get('searched', '?')})",
                    where=f"first refused: {refused_examples[0]}" if refused_examples else "",
                    cause="an argument check narrower than the space the library promises (or a limitation to "
                          "document: declare the supported space with rfverify_space, --space or space=)",
                    statistic=None if statistic is None else float(statistic), **kw)
