"""The Hypothesis private-internals patch, isolated in ``rfverify.hypothesis_compat``: verified for the pinned
releases, effective, restored afterwards, and a loud error — never a silent no-op — on a Hypothesis that changed
the internals it needs."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import hypothesis
import pytest

from rfverify import hypothesis_compat as hc

ROOT = Path(__file__).resolve().parents[1]


def _pin() -> str:
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover
        import tomli as tomllib
    deps = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["dependencies"]
    return next(d for d in deps if d.startswith("hypothesis"))


def test_the_pin_has_the_verified_bounds_and_the_installed_release_is_within_them():
    lo, hi = (".".join(map(str, v)) for v in hc.VERIFIED)
    assert re.sub(r"\s", "", _pin()) == f"hypothesis>={lo},<{hi}"
    assert hc.VERIFIED[0] <= hc.hypothesis_version()[:2] < hc.VERIFIED[1], (
        f"Hypothesis {hypothesis.__version__} is outside the releases rfverify.hypothesis_compat is verified for")


@pytest.mark.skipif(hc.hypothesis_version()[:2] < hc.LOCAL_CONSTANTS_SINCE, reason="no local constants to hide")
def test_the_patch_empties_the_local_constants_and_restores_them():
    from hypothesis.internal.conjecture import providers as p

    before = (p._get_local_constants, p.CONSTANTS_CACHE)
    with hc.search_constants_hidden():
        local = p._get_local_constants()
        assert not (local.integers or local.floats or local.bytes or local.strings)
        assert p.CONSTANTS_CACHE is not before[1]
    assert (p._get_local_constants, p.CONSTANTS_CACHE) == before


@pytest.mark.skipif(hc.hypothesis_version()[:2] < hc.LOCAL_CONSTANTS_SINCE, reason="no local constants to hide")
def test_changed_internals_are_a_loud_error_naming_the_release(monkeypatch):
    from hypothesis.internal.conjecture import providers as p

    monkeypatch.delattr(p, "_get_local_constants")
    with pytest.raises(hc.HypothesisIncompatible, match=re.escape(f"Hypothesis {hypothesis.__version__} changed")):
        with hc.search_constants_hidden():
            pass  # pragma: no cover - never entered


def test_before_local_constants_nothing_is_patched(monkeypatch):
    monkeypatch.setattr(hc, "hypothesis_version", lambda: (6, 130, 0))
    monkeypatch.setitem(sys.modules, "hypothesis.internal.conjecture.providers", None)  # importing it would fail
    with hc.search_constants_hidden():
        pass
