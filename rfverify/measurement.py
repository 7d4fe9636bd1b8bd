"""What a check measured, typed: the middle part of *design, measure, decide*.

A statistical check is three pure parts: ``design(ctx, pilot) -> Plan`` (the sample sizes a pilot calls for),
``measure(ctx, plan) -> Measurement`` (the numbers, from the plug-in) and ``verdict(ctx, measurement) ->
CheckResult`` (the decision and its message, from the numbers alone).  Each check's measurement is a frozen
dataclass deriving from :class:`Measurement`; it declares

- its fields, each with a type and a one-line meaning (:func:`detail`): :meth:`Measurement.to_details` makes the
  result's JSON ``details`` from them, and :func:`details_markdown` documents them (``docs/details.md``, held to
  the dataclasses by ``tests/test_measurement_docs.py``);
- its figures (``FIGURES``: names in :data:`rfverify.report.plots.PLOTTERS`), which the check registers
  (``register_check(..., measurement=...)``), so a report draws exactly those.
"""

from __future__ import annotations

import dataclasses
import re
import typing
from typing import Any, ClassVar

from rfverify.jsontypes import JSONValue

__all__ = ["Measurement", "detail", "details_fields", "details_markdown"]

_MISSING: Any = dataclasses.MISSING


def detail(doc: str, *, default: Any = _MISSING, key: str | None = None, optional: bool = False,
           internal: bool = False) -> Any:
    """A measurement field: ``doc`` its meaning in the details' documentation; ``key`` its JSON name when it
    differs from the field's; ``optional``: left out of the details when None (measured only on some paths);
    ``internal``: used by the verdict but not written to the details (raw samples)."""
    meta = {"doc": doc, "key": key, "optional": optional, "internal": internal}
    if optional and default is _MISSING:
        default = None
    return dataclasses.field(default=default, metadata=meta)


@dataclasses.dataclass(frozen=True)
class Measurement:
    """Base of every check's measurement (see the module's docstring)."""

    #: The plots this measurement's details feed, in the order a report draws them.
    FIGURES: ClassVar[tuple[str, ...]] = ()

    def to_details(self) -> dict[str, object]:
        """The result's ``details``: every documented field under its key, optional ones only when measured."""
        out: dict[str, JSONValue] = {}
        for f in dataclasses.fields(self):
            meta = _declared(type(self), f)
            if meta["internal"]:
                continue
            value = getattr(self, f.name)
            if meta["optional"] and value is None:
                continue
            out[meta["key"] or f.name] = value
        return out


def _declared(cls: type, f: dataclasses.Field[Any]) -> Any:
    """A field's :func:`detail` metadata; a field declared without it is an error (nothing goes undocumented)."""
    if "doc" not in f.metadata:
        raise TypeError(f"{cls.__name__}.{f.name} is not declared with rfverify.measurement.detail(doc, ...): every "
                        "field of a measurement says what it means")
    return f.metadata


def details_fields(cls: type[Measurement]) -> list[tuple[str, str, str, bool]]:
    """``(key, type, meaning, optional)`` for each field ``cls.to_details`` writes, in field order."""
    hints = typing.get_type_hints(cls)
    rows = []
    for f in dataclasses.fields(cls):
        meta = _declared(cls, f)
        if meta["internal"]:
            continue
        kind = _type_text(hints.get(f.name, Any))
        rows.append((meta["key"] or f.name, kind, " ".join(str(meta["doc"]).split()), bool(meta["optional"])))
    return rows


def _type_text(tp: object) -> str:
    """A field's type as the details page states it (``list[str]``, ``array``, ``float or null``)."""
    text = str(tp) if getattr(tp, "__args__", None) else getattr(tp, "__name__", str(tp))
    text = re.sub(r"\b(numpy\.)?ndarray(\[[^\]]*\]\])?", "array", text.replace("typing.", ""))
    text = re.sub(r"\b[\w.]+\.(\w+)", r"\1", text)  # module prefixes of named types
    return text.replace(" | None", " or null").replace("NoneType", "null").replace(" | ", " or ")


def details_markdown(checks: list[tuple[str, str, type[Measurement]]], notes: str = "") -> str:
    """The documentation of every check's details: one section per ``(kind, check, Measurement class)``, after
    ``notes`` (keys a harness adds to every check's details)."""
    lines = ["# The details of each check", "",
             "Generated from the checks' measurement dataclasses (`rfverify.measurement`); "
             "`tests/test_measurement_docs.py` fails when this page and the code differ "
             "(regenerate: `python -m tests.test_measurement_docs`). A field marked *optional* is present only "
             "where the check measured it (the condition is in its meaning). Fields the verdict uses but the "
             "details do not carry (raw samples) are not listed.", ""]
    if notes:
        lines += [notes.strip(), ""]
    for kind, name, cls in checks:
        lines += [f"## `{kind}` / `{name}` (`{cls.__name__}`)", ""]
        doc = " ".join((cls.__doc__ or "").strip().split("\n\n")[0].split())
        if doc:
            lines += [doc, ""]
        if cls.FIGURES:
            lines += ["Figures: " + ", ".join(f"`{f}`" for f in cls.FIGURES) + ".", ""]
        lines += ["| key | type | meaning |", "|---|---|---|"]
        for key, kind_text, meaning, optional in details_fields(cls):
            cell = meaning.replace("|", "\\|")
            lines.append(f"| `{key}` | {kind_text.replace('|', 'or')} | {'*optional*: ' if optional else ''}{cell} |")
        lines.append("")
    return "\n".join(lines)
