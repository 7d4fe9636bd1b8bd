"""docs/details.md is generated from the checks' measurement dataclasses, and the recorded verdicts carry exactly
the keys it documents.

Regenerate after changing a measurement: ``python -m tests.test_measurement_docs``.
"""

from __future__ import annotations

import dataclasses
import sys
from pathlib import Path
from typing import ClassVar

import numpy as np
import pytest

from rfverify.kinds import KINDS, checks_for
from rfverify.measurement import Measurement, detail, details_fields, details_markdown
from rfverify.properties.corner_runs import CORNER_DETAILS
from rfverify.results import SCHEMA_VERSION
from tests.verdict_snapshots import SCENARIOS, key, load

ROOT = Path(__file__).resolve().parent.parent
PAGE = ROOT / "docs" / "details.md"
#: Keys the corner runs add to a check's details (documented in CORNER_DETAILS, not by the measurement).
CORNER_KEYS = {"alpha_split", "corners", "corner", "error_source"}


def measured_checks() -> list[tuple[str, str, type[Measurement]]]:
    return [(kind, spec.name, spec.measurement) for kind in KINDS for spec in checks_for(kind)
            if spec.measurement is not None]


def page() -> str:
    return details_markdown(measured_checks(), notes=CORNER_DETAILS)


def test_the_details_page_is_generated_from_the_measurements():
    assert PAGE.exists() and PAGE.read_text(encoding="utf-8") == page(), (
        "docs/details.md differs from the measurement dataclasses: python -m tests.test_measurement_docs")


def test_the_schema_page_states_the_version_and_its_change():
    text = (ROOT / "docs" / "reports.md").read_text(encoding="utf-8")
    assert f"(`schema_version` {SCHEMA_VERSION})" in text and f"| {SCHEMA_VERSION - 1} -> {SCHEMA_VERSION} |" in text
    assert "[details.md](details.md)" in text


def test_the_statistical_feature_map_checks_and_contract_declare_measurements():
    names = {name for _, name, _ in measured_checks()}
    assert {"unbiasedness", "concentration", "error-rate", "adapted-approximation", "contract"} <= names
    for kind, name, cls in measured_checks():
        spec = next(s for s in checks_for(kind) if s.name == name)
        assert spec.figures == cls.FIGURES, f"{kind}/{name}: its figures are its measurement's"
        assert all(meaning for _, _, meaning, _ in details_fields(cls)), f"{cls.__name__}: a field without meaning"


def _recorded_measured() -> list[tuple[str, str]]:
    measured = {(kind, name) for kind, name, _ in measured_checks()}
    return sorted({(s.kind, s.check) for s in SCENARIOS} & measured)


@pytest.mark.parametrize("kind, check", _recorded_measured())
def test_recorded_verdicts_carry_the_documented_keys(kind, check):
    """Every recorded verdict's details: only documented keys, and every key that is not optional."""
    spec = next(s for s in checks_for(kind) if s.name == check)
    assert spec.measurement is not None
    fields = details_fields(spec.measurement)
    documented = {k for k, *_ in fields}
    required = {k for k, _, _, optional in fields if not optional}
    recorded = load()
    seen = 0
    for s in (s for s in SCENARIOS if (s.kind, s.check) == (kind, check)):
        keys = set(recorded[key(s)]["details"]) - CORNER_KEYS
        if not keys:  # a skip before measuring, or a corner's error
            continue
        seen += 1
        assert keys <= documented, f"{key(s)}: undocumented detail keys {sorted(keys - documented)}"
        assert required <= keys, f"{key(s)}: documented keys missing {sorted(required - keys)}"
    assert seen, f"no recorded verdict of {kind}/{check} has details"


@dataclasses.dataclass(frozen=True, kw_only=True)
class _Declared(Measurement):
    """A toy measurement."""

    FIGURES: ClassVar[tuple[str, ...]] = ("bias",)
    mean: np.ndarray = detail("per pair: the mean")
    note: str | None = detail("only sometimes", optional=True)
    raw: np.ndarray = detail("the samples", internal=True)


@dataclasses.dataclass(frozen=True, kw_only=True)
class _Undeclared(Measurement):
    mean: float = 0.0


def test_a_measurement_writes_declared_fields_and_refuses_an_undeclared_one():
    ms = _Declared(mean=np.zeros(2), raw=np.ones(3))
    assert list(ms.to_details()) == ["mean"]  # optional None left out, internal never written
    assert list(dataclasses.replace(ms, note="n").to_details()) == ["mean", "note"]
    assert [k for k, *_ in details_fields(_Declared)] == ["mean", "note"]
    assert "`_Declared`" in details_markdown([("k", "toy", _Declared)]) and "`bias`" in details_markdown(
        [("k", "toy", _Declared)])
    with pytest.raises(TypeError, match="_Undeclared.mean is not declared"):
        _Undeclared().to_details()
    with pytest.raises(TypeError, match="_Undeclared.mean is not declared"):
        details_fields(_Undeclared)



def _values() -> list[type]:
    """Every plan and measurement dataclass of the checks (the values ``design`` and ``measure`` hand on)."""
    import importlib
    import inspect
    import pkgutil

    import rfverify.properties as props

    found = []
    for info in pkgutil.iter_modules(props.__path__):
        mod = importlib.import_module(f"rfverify.properties.{info.name}")
        found += [c for _, c in inspect.getmembers(mod, inspect.isclass)
                  if c.__module__ == mod.__name__ and dataclasses.is_dataclass(c)
                  and (issubclass(c, Measurement) or c.__name__.endswith("Plan"))]
    return sorted(found, key=lambda c: f"{c.__module__}.{c.__name__}")


def test_the_values_between_design_measure_and_verdict_are_frozen_and_measurements_are_built_by_keyword():
    """A verdict is a function of its measurement alone: nothing may change a plan or a measurement once made
    (frozen), and a measurement of 20 fields is never filled in by position (keyword-only)."""
    values = _values()
    assert {c.__name__ for c in values} >= {"UnbiasednessMeasurement", "UnbiasednessPlan", "AdaptedMeasurement",
                                            "ContractMeasurement", "ErrorRateMeasurement"}, values
    for cls in values:
        assert cls.__dataclass_params__.frozen, f"{cls.__module__}.{cls.__name__} is not frozen"  # type: ignore[attr-defined]
        if issubclass(cls, Measurement):
            positional = [f.name for f in dataclasses.fields(cls) if not f.kw_only]
            assert not positional, f"{cls.__name__}: fields that can be given by position: {positional}"


if __name__ == "__main__":
    PAGE.write_text(page(), encoding="utf-8")
    sys.stdout.write(f"wrote {PAGE.relative_to(ROOT)}\n")
