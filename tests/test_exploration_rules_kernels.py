"""``explore`` for quadrature rules and kernels: planted corner bugs found with their minimal configuration, the
correct twins pass, the reproduce command replays the corner, declared spaces are respected; the coverage table.

False-alarm rate and power: both explorations are deterministic (no alpha).  A correct rule or kernel can fail
only through a round-off tolerance too tight for it, which the twins and every reference rule and kernel bound
here (0 failures; 20 more seeds each in the slow test); the planted bugs are caught with certainty once the
search reaches their corner — at the default seed here and 20 other seeds in the slow test (power 21/21 each).
"""

from __future__ import annotations

import json
import shlex
import warnings

import hypothesis
import pytest

from rfverify.cli import main
from rfverify.errors import UsageError
from rfverify.explore import Exploration, coverage, d_band
from rfverify.implementations import quadrature as Q
from rfverify.kinds import get_kind
from rfverify.report.html import render_report_page
from rfverify.report.provenance import provenance
from rfverify.seeding import DEFAULT_SEED
from tests.mutants import explore_mutants as em


def _quadrature(rule, seed=DEFAULT_SEED, profile="default", **kw):
    verify = get_kind("quadrature").verify_function()
    return verify(rule, **{"dim": 8, "degree": 3, **kw}, seed=seed, profile=profile, checks=["explore"]).results[0]


def _kernel(kernel, seed=DEFAULT_SEED, profile="default", **kw):
    verify = get_kind("kernel").verify_function()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        return verify(kernel, **{"dim": 16, **kw}, seed=seed, profile=profile, checks=["explore"]).results[0]


def _replay(reproduce: str, capsys) -> dict:
    code = main(shlex.split(reproduce)[1:] + ["--json", "-"])
    assert code == 1, capsys.readouterr().err
    return json.loads(capsys.readouterr().out)["checks"][0]


# ---------------------------------------------------------------- quadrature rules
@pytest.mark.parametrize("bug", list(em.QUADRATURE_CORNERS), ids=lambda r: type(r).__name__)
def test_quadrature_corner_bug_found_at_its_minimal_d_degree_and_monomial(bug):
    res = _quadrature(bug)
    assert res.status == "fail", res.message
    for needle in em.QUADRATURE_CORNERS[bug]:
        assert needle in res.message, (needle, res.message)
    ex = res.details["minimal_example"]
    assert res.reproduce.endswith(f"--pin d={ex['d']} --pin seed={ex['seed']}")


@pytest.mark.parametrize("twin", em.QUADRATURE_TWINS, ids=lambda r: r.name)
def test_quadrature_twins_pass_at_every_d(twin):
    res = _quadrature(twin, profile="quick")  # the default profile: the slow test, 21 seeds
    assert res.status == "pass" and "d 1 … 64" in res.message, res.message


def test_reference_rules_pass_and_the_butterfly_is_held_to_powers_of_two():
    for rule, degree in ((Q.sr11_haar, 1), (Q.sr33_butterfly, 3)):
        res = _quadrature(rule, degree=degree, profile="quick")
        assert res.status == "pass", (rule, res.message)
    assert res.details["space_searched"].startswith("d = 1, 2, 4, 8, 16, 32, 64,")


def test_quadrature_reproduce_replays_the_minimal_configuration(capsys):
    res = _quadrature("tests.mutants.explore_mutants:sr33_half_above_20")
    replay = _replay(res.reproduce, capsys)
    assert replay["status"] == "fail" and replay["details"]["minimal_example"] == res.details["minimal_example"]
    assert replay["details"]["calls"] == 1  # the pinned (d, seed) is tried first and fails at once


def test_quadrature_space_is_narrowed_by_declaration_space_and_pins():
    class FromD2(em.SR33SpecialCaseD1):
        """Declares d >= 2: its d = 1 special case is outside its space."""

        rfverify_space = {"d": (2, 64)}

    assert _quadrature(FromD2(), profile="quick").status == "pass"
    res = _quadrature(em.sr33_half_above_20, profile="quick", space={"d": (1, 16)})
    assert res.status == "pass" and res.details["space_searched"].startswith("d 1 … 16"), res.message
    res = _quadrature(em.sr33_half_above_20, profile="quick", pins={"d": 40, "seed": 7})
    assert res.status == "fail" and res.details["minimal_example"] == {"d": 40, "seed": 7}, res.message
    with pytest.raises(UsageError, match="unknown configuration key 'colour'"):
        _quadrature(Q.sr33_haar, space={"colour": 1})
    with pytest.raises(UsageError, match="outside the range"):
        _quadrature(Q.sr33_haar, space={"d": (1, 5000)})


def test_quadrature_rule_ignoring_its_rng_at_large_d_is_caught():
    class CachedAbove32(Q.SR33):
        """Caches its draw per d above d = 32 (the rng is ignored there)."""

        def __init__(self):
            super().__init__("haar")
            self.cache = {}

        def _nodes(self, d, gen):
            if d <= 32:
                return super()._nodes(d, gen)
            return self.cache.setdefault(d, super()._nodes(d, gen))

    res = _quadrature(CachedAbove32())
    assert res.status == "fail" and "the same draw" in res.message and "d = 33," in res.message, res.message


# ---------------------------------------------------------------- kernels
@pytest.mark.parametrize("bug", list(em.KERNEL_CORNERS), ids=lambda k: k.__name__)
def test_kernel_corner_bug_found_with_its_minimal_configuration(bug):
    options, needle = em.KERNEL_CORNERS[bug]
    res = _kernel(bug, **options)
    assert res.status == "fail" and needle in res.message, res.message
    ex = res.details["minimal_example"]
    if bug is em.mix_weight_clipped:
        # bisected towards the simplest weight: reported just above the clip, where the property starts to break
        assert em.CLIP_WEIGHT < ex["params"]["weight"] <= 0.905 and f"weight={ex['params']['weight']!r}" in res.message
    assert f"--pin d={ex['d']}" in res.reproduce and f"--pin n={ex['n']}" in res.reproduce


@pytest.mark.parametrize("twin", list(em.KERNEL_TWINS), ids=lambda k: k.__name__)
def test_kernel_twins_pass(twin):
    res = _kernel(twin, profile="quick", **em.KERNEL_TWINS[twin])  # the default profile: the slow test
    assert res.status == "pass", res.message


@pytest.mark.parametrize("name", ["polynomial", "rbf_laplacian_mix"])
def test_registry_kernels_pass_over_their_parameter_ranges(name):
    res = _kernel(name, profile="quick")
    assert res.status == "pass", res.message
    assert "gamma 0.001 … 1000" in res.details["space_searched"], res.details["space_searched"]


def test_kernel_reproduce_replays_the_minimal_configuration(capsys):
    res = _kernel("tests.mutants.explore_mutants:mix_weight_clipped", normalized=True)
    replay = _replay(res.reproduce, capsys)
    assert replay["status"] == "fail" and replay["details"]["minimal_example"] == res.details["minimal_example"]
    assert replay["details"]["calls"] == 1


def test_kernel_space_is_narrowed_and_a_declared_not_psd_kernel_is_not_held_to_psd():
    res = _kernel(em.rbf_fast_path_above_32, normalized=True, profile="quick", space={"d": (1, 32)})
    assert res.status == "pass" and res.details["space_searched"].startswith("d 1 … 32"), res.message
    res = _kernel(em.mix_weight_clipped, normalized=True, profile="quick", pins={"weight": 0.5})
    assert res.status == "pass" and "weight = 0.5" in res.details["space_searched"], res.message
    assert _kernel("sigmoid", profile="quick").status == "pass"  # declared not PSD in the registry
    with pytest.raises(UsageError, match="unknown configuration key 'colour'"):
        _kernel("rbf", space={"colour": 1})


def test_kernel_whose_value_depends_on_the_batch_is_caught():
    def rbf_rescaled_by_batch(X, Y):
        """gamma 'clipped for stability' from the batch: 1 / max |x - y|^2 over the whole Gram."""
        import numpy as np

        sq = em._sq_l1(X, Y)[0]
        return np.exp(-sq / max(1.0, float(sq.max())))

    res = _kernel(rbf_rescaled_by_batch, normalized=True)
    assert res.status == "fail" and "depends on the other points" in res.message, res.message


# ---------------------------------------------------------------- coverage and provenance
def test_coverage_table_shows_where_the_property_breaks_and_the_page_renders_it():
    found = Exploration(3, "bad", 4, 4, True, ((1, False), (30, True), (3, True), (2, False)))
    rows = coverage(found, {"d": d_band}, size=lambda d: d, describe=lambda d: f"d = {d}")
    assert [(r["d"], r["tried"], r["failed"], r["smallest failing"]) for r in rows] == [
        ("1", 1, 0, ""), ("2 … 4", 2, 1, "d = 3 (minimal)"), ("17 … 64", 1, 1, "d = 30")]
    report = get_kind("quadrature").verify_function()(em.sr33_half_above_20, dim=8, degree=3, checks=["explore"])
    html = render_report_page("sr33-half-above-20", report, provenance=provenance())
    assert "Where in the space it holds" in html and "BREAKS" in html and "HOLDS" in html
    assert f"d = {em.D_HALF + 1}, rng = numpy.random.default_rng(0) (minimal)" in html


def test_provenance_records_hypothesis_version():
    assert provenance()["hypothesis"] == hypothesis.__version__


# ---------------------------------------------------------------- power and false alarms over 20 more seeds
@pytest.mark.slow
@pytest.mark.parametrize("seed", range(1, 21))
def test_rule_and_kernel_corners_under_20_seeds(seed):
    for bug, needles in em.QUADRATURE_CORNERS.items():
        res = _quadrature(bug, seed=seed)
        assert res.status == "fail" and all(n in res.message for n in needles), (bug.name, seed, res.message)
    for twin in em.QUADRATURE_TWINS:
        assert _quadrature(twin, seed=seed).status == "pass", (twin.name, seed)
    for bug, (options, needle) in em.KERNEL_CORNERS.items():
        res = _kernel(bug, seed=seed, **options)
        assert res.status == "fail" and needle in res.message, (bug.__name__, seed, res.message)
    for twin, options in em.KERNEL_TWINS.items():
        assert _kernel(twin, seed=seed, **options).status == "pass", (twin.__name__, seed)
