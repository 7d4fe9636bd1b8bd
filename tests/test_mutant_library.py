"""The mutant library (the package tests/mutants/): its shape, every bug caught, every equivalent mutant passing.

* the library has >= 40 bugs and >= 5 equivalent mutants, spans every plug-in kind the zoo verifies,
  every feature-map scheme family and every category the issue lists, and each entry is documented;
* every bug is caught by its ``caught_by`` check(s) at the default seed (CI) and another one (the slow set), at the
  first profile it claims (``quick`` unless its bug needs the default profile's budget);
* every equivalent mutant passes the whole suite at the default seed (``quick``; the two phase-range
  mutants also at ``default``: the quarter range, whose phase is conditionally biased, in CI, the half range in
  the slow set), and the counterexample in the U[0, pi/2] phase's docstring is real.

Power over many seeds is measured by ``rfverify calibrate`` (reports/calibration/), not here.
"""

from __future__ import annotations

import importlib
import inspect
import math
import warnings

import numpy as np
import pytest
from scipy import integrate

from rfverify.studies.calibration import Mutant, load_mutants
from rfverify.kinds import checks_for
from rfverify.seeding import DEFAULT_SEED
from rfverify.kinds import KINDS
from tests.mutants import BUGS, CATEGORIES, EQUIVALENT, LIBRARY

SEEDS = [DEFAULT_SEED, 1]  # many more seeds: the power runs of rfverify calibrate
#: CI: the default seed; the slow set: the other one too.
SEED_PARAMS = [SEEDS[0], pytest.param(SEEDS[1], marks=pytest.mark.slow)]


def _scheme(m: Mutant) -> str:
    """The module of the reference scheme a feature-map mutant was derived from."""
    impl = m.implementation
    if inspect.isclass(impl):
        for base in impl.__mro__:
            if base.__module__.startswith("rfverify.implementations."):
                return base.__module__.rsplit(".", 1)[-1]
    return getattr(impl, "__module__", "")


def test_library_size_kinds_categories_and_docs():
    assert len(BUGS) >= 40 and len(EQUIVALENT) >= 5, (len(BUGS), len(EQUIVALENT))
    names = [m.name for m in LIBRARY]
    assert len(set(names)) == len(names), "duplicate mutant names"
    kinds = {m.kind for m in BUGS}
    assert set(KINDS) <= kinds, f"kinds without a mutant: {sorted(set(KINDS) - kinds)}"
    assert {m.kind for m in EQUIVALENT} >= {"feature-map", "orthogonal", "transform", "quadrature"}
    missing = [c for c in CATEGORIES if c not in {m.category for m in BUGS}]
    assert not missing, f"categories without a bug: {missing}"
    schemes = {_scheme(m) for m in BUGS if m.kind == "feature-map"}
    for family in ("rff", "orf", "structured_features", "qmc_features", "arccos", "laplacian", "maxout"):
        assert family in schemes, f"no feature-map mutant derived from {family}: {sorted(schemes)}"
    assert any("compositional" in s for s in schemes), schemes
    for m in LIBRARY:
        registered = {s.name for s in checks_for(m.kind)}
        assert set(m.caught_by) <= registered, (m.name, m.caught_by)
        assert bool(m.caught_by) != m.equivalent, m.name
        assert len(m.doc) >= 60, f"{m.name}: document the bug, where it occurs and why the check catches it"
        if m.equivalent:
            assert "proof" in m.doc.lower(), f"{m.name}: an equivalent mutant carries its proof"


def test_library_loads_through_the_calibrate_loader():
    names = [m.name for m in LIBRARY]
    assert [m.name for m in load_mutants("tests.mutants")] == names
    assert [m.name for m in load_mutants("tests/mutants")] == names  # a package directory
    assert [m.name for m in load_mutants("tests/mutants/__init__.py")] == names
    assert [m.name for m in load_mutants("tests.mutants:EQUIVALENT")] == [m.name for m in EQUIVALENT]
    # every form imports the one package: the same objects, so the same reproduce commands
    assert load_mutants("tests/mutants")[0].implementation is LIBRARY[0].implementation


def test_library_is_a_package_of_modules_within_the_line_limit():
    import pathlib

    import tests.mutants as pkg

    folder = pathlib.Path(pkg.__file__).parent
    long = {p.name: n for p in folder.glob("*.py") if (n := len(p.read_text().splitlines())) > 800}
    assert not long, f"modules over 800 lines: {long}"
    by_kind = {m.kind for m in LIBRARY}
    for kind in by_kind:  # one module per plug-in kind holds that kind's entries
        module = importlib.import_module("tests.mutants." + kind.replace("-", "_"))
        assert {m.kind for m in module.BUGS + module.EQUIVALENT} == {kind}, module.__name__


def _verify(m: Mutant, seed: int, profile: str, checks=None):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        return m.verify(seed=seed, profile=profile, checks=checks)


@pytest.mark.parametrize("seed", SEED_PARAMS)
@pytest.mark.parametrize("mutant", BUGS, ids=lambda m: m.name)
def test_bug_caught_by_its_check(mutant, seed):
    profile = mutant.profiles[0]
    report = _verify(mutant, seed, profile, mutant.caught_by)
    for check in mutant.caught_by:
        res = report[check]
        assert res.status == mutant.expect, (
            f"{mutant.name} ({mutant.kind}) not caught by {check} under seed {seed}, profile {profile}: "
            f"{res.status}: {res.message}")


@pytest.mark.parametrize("mutant", EQUIVALENT, ids=lambda m: m.name)
def test_equivalent_mutant_passes_whole_suite(mutant):
    report = _verify(mutant, DEFAULT_SEED, "quick")
    assert report.passed, f"equivalent mutant {mutant.name} flagged:\n{report.table()}"


@pytest.mark.parametrize("name", [pytest.param("rff-phase-half-range", marks=pytest.mark.slow),
                                  "rff-phase-quarter-range"])
def test_phase_mutants_pass_at_default_profile(name):
    mutant = next(m for m in EQUIVALENT if m.name == name)
    report = _verify(mutant, DEFAULT_SEED, "default")
    assert report.passed, report.table()


def test_quarter_range_phase_is_conditionally_biased():
    """The docstring's counterexample: given w with theta = w.(x + y) = pi/2, E_b cos(theta + 2b) = -2/pi for
    b ~ U[0, pi/2], but 0 for b ~ U[0, pi] (and U[0, 2 pi]); averaged over a symmetric w it vanishes."""
    def cond_mean(theta, b_max):
        val, _ = integrate.quad(lambda b: math.cos(theta + 2 * b), 0.0, b_max)
        return val / b_max

    assert cond_mean(math.pi / 2, math.pi / 2) == pytest.approx(-2 / math.pi, abs=1e-12)
    assert cond_mean(math.pi / 2, math.pi) == pytest.approx(0.0, abs=1e-12)
    assert cond_mean(math.pi / 2, 2 * math.pi) == pytest.approx(0.0, abs=1e-12)
    # symmetric w: theta and -theta equally likely, -2 sin(theta)/pi averages to 0
    thetas = np.linspace(-3.0, 3.0, 7)
    assert np.mean([cond_mean(t, math.pi / 2) + cond_mean(-t, math.pi / 2) for t in thetas]) == pytest.approx(0.0, abs=1e-12)
