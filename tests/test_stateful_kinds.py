"""The ``stateful`` check of samplers, rules and transforms: every planted mutant caught at the default profile with
its minimal program, every twin and the reference implementations pass, a finding confirmed in a fresh Python
interpreter, the quick profile a smoke budget."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

from rfverify.containment.fresh import FreshUnavailable, run_fresh
from rfverify.kinds.orthogonal import verify_orthogonal
from rfverify.kinds.quadrature import verify_quadrature
from rfverify.kinds.transform import verify_transform
from tests.mutants import stateful_kinds_mutants as km

M = "tests.mutants.stateful_kinds_mutants:"


def _stateful(kind, impl, profile="default", **kw):
    if kind == "orthogonal":
        return verify_orthogonal(impl, dim=16, profile=profile, checks=["stateful"], **kw)["stateful"]
    if kind == "quadrature":
        return verify_quadrature(impl, dim=8, degree=0, profile=profile, checks=["stateful"], **kw)["stateful"]
    return verify_transform(impl, dim=16, profile=profile, checks=["stateful"], **kw)["stateful"]


#: (kind, mutant): what the finding and the minimal program must show.
EXPECTED = {
    ("orthogonal", "shared_generator_sampler"): ("the same seed does not reproduce the draw",
                                                 "a.sample(8, np.random.default_rng(0))"),
    ("orthogonal", "folded_seed_sampler"): ("two draws from one generator give the same draw", "Q2 = sampler(16, r)"),
    ("quadrature", "buffer_rule"): ("was changed by a later call", "P2, w2 = a(8, r)"),
    ("quadrature", "cached_rule"): ("two draws from one generator give the same draw", "P2, w2 = rule(8, r)"),
    ("transform", "identity_memo_transform"): ("differs from a pristine copy applied to the same values",
                                               "B[...] = np.random.default_rng("),
    ("transform", "shape_cached_transform"): ("the calls before it", "Y1 = apply("),
    ("transform", "wrapping_transform"): ("uint8 input gives other rows than float64 input of the same values",
                                          "np.abs(np.rint(40 * X)).astype(np.uint8)"),
}
TWINS = {**km.SAMPLER_BUGS, **km.RULE_BUGS, **km.TRANSFORM_BUGS}


def _a_module_cache_is_shown_by_a_program_that_runs(res):
    # a function's module state is shared by the pristine reference: the declared matrix shows the stale rows, and
    # the printed program (with the check's first call) reproduces them in a fresh interpreter
    check = ("\nfrom tests.mutants.stateful_kinds_mutants import _fwht\n"
             "print(np.array_equal(Y1, Y0), np.allclose(Y1, _fwht(np.rint(40 * X))))")
    out = subprocess.run([sys.executable, "-c", res.details["program"] + check], capture_output=True, text=True,
                         check=True)
    assert out.stdout.split() == ["True", "False"]  # stale rows, in a fresh interpreter too


def _the_program_runs_and_shows_the_defect(res):
    env: dict = {}
    exec(res.details["program"], env)  # noqa: S102 - our own generated program
    assert env["P1"] is env["P2"]  # the first draw's points were overwritten by the second: one buffer


def _confirmed_in_a_fresh_process(res):
    """The sampler keeping a generator in a class attribute: its second call at seed 0 differs from the first in a
    fresh interpreter too."""
    assert res.details["fresh_process"] == {"replayed": True, "finding": "confirmed in a fresh Python process: "
                                            "call 2 differs from the first there too"}
    assert "confirmed in a fresh Python process" in res.message


def _a_conversion_not_state(res):
    """The truncating transform gives the same rows in a fresh interpreter (a conversion, not state)."""
    assert res.details["fresh_process"]["replayed"] is True
    assert "the conversion itself, not state" in res.message


#: What more a mutant's finding must show (asserted on the same run: one default-profile run per mutant).
MORE = {("transform", "shape_cached_transform"): _a_module_cache_is_shown_by_a_program_that_runs,
        ("quadrature", "buffer_rule"): _the_program_runs_and_shows_the_defect,
        ("orthogonal", "shared_generator_sampler"): _confirmed_in_a_fresh_process,
        ("transform", "wrapping_transform"): _a_conversion_not_state}


#: A memo keyed by id(X) is also inherited by deep copies of an object rfverify called before the check (its
#: dimension probe): where a new array in the plug-in's process reuses the freed array's address, a pristine copy
#: answers with the stale rows.  Which of the two shows first depends on that process's allocator; both are the
#: defect, and the second is reported as first found (it does not replay).
ALSO = {("transform", "identity_memo_transform"): ("a pristine copy of the plug-in failed on the same values as "
                                                   "float64: IdentityMemoTransform: apply returned shape",
                                                   "Y1 = a.apply(")}


@pytest.mark.parametrize("kind,mutant", list(EXPECTED), ids=lambda v: v if isinstance(v, str) else None)
def test_mutant_caught_with_its_program(kind, mutant):
    res = _stateful(kind, M + mutant)
    assert res.status == "fail", res.message
    finding, line = EXPECTED[(kind, mutant)]
    if (kind, mutant) in ALSO and "a pristine copy of the plug-in fails" in res.message:
        finding, line = ALSO[(kind, mutant)]
        assert "as first found, not shrunk" in res.message
    assert finding in res.message
    program = res.details["program"]
    assert line in program and line in res.message
    assert f"import {mutant} as " in program
    assert res.reproduce.endswith("--check stateful") and "replay: " + res.reproduce in res.message
    assert "copy.deepcopy" not in program or any(f"{n}." in program or f"{n}(" in program for n in "abc")
    MORE.get((kind, mutant), lambda res: None)(res)


@pytest.mark.parametrize("kind,mutant", list(EXPECTED), ids=lambda v: v if isinstance(v, str) else None)
def test_twin_passes(kind, mutant):
    res = _stateful(kind, M + TWINS[mutant])
    assert res.status == "pass", res.message
    assert "replay" in res.details["judged"] and "repeat" in res.details["judged"]


@pytest.mark.parametrize("kind,impl", [("orthogonal", "rfverify.implementations.orthogonal:haar_qr"),
                                       ("orthogonal", "scipy.stats:ortho_group"),
                                       ("quadrature", "rfverify.implementations.quadrature:sr33_haar"),
                                       ("transform", "rfverify.implementations.structured:fwht")])
def test_reference_implementations_pass(kind, impl):
    res = _stateful(kind, impl)
    assert res.status == "pass", res.message
    if kind != "transform":
        assert {"seeds-differ", "same-seed", "generator-advances"} <= set(res.details["judged"])
    else:
        assert {"int32", "uint8", "bool", "list", "tuple"} <= set(res.details["judged"])
        assert "float16 input" in res.details["refused"]  # fwht refuses float16 cleanly: set aside, stated


def test_a_polluted_reference_is_diagnosed_as_state_in_the_process():
    """The rule caching its points in the module keyed by d: distinct seeds give the same draw in this process; a
    fresh interpreter gives the other seed another draw — the message says the state lives in the process."""
    from rfverify.properties.stateful_kinds import fresh_draw
    from rfverify.kinds.quadrature import QuadraturePlugin

    plugin = QuadraturePlugin(M + "cached_rule")
    first = fresh_draw(plugin, 8, 0)
    again = fresh_draw(plugin, 8, 1)  # this process: the module cache answers
    assert np.array_equal(first[0], again[0])
    fresh = run_fresh(fresh_draw, plugin, 8, 1)  # a fresh interpreter: seed 1's own points
    assert not np.array_equal(fresh[0], first[0])


def test_a_plug_in_that_cannot_be_pickled_is_stated():
    with pytest.raises(FreshUnavailable, match="cannot be pickled"):
        run_fresh(lambda: 1)


def test_quick_is_a_smoke_budget():
    res = _stateful("orthogonal", "rfverify.implementations.orthogonal:haar_qr", profile="quick")
    assert res.status == "pass" and res.details["sequences"] <= 6 and res.details["repeats"] == 3


def test_refused_input_types_are_set_aside():
    res = _stateful("transform", "tests.test_stateful_kinds:float_only_transform")
    assert res.status == "pass", res.message
    assert "uint8 input" in res.details["refused"] and "set aside: refuses" in res.message


def float_only_transform(X):
    """A correct transform that refuses non-float input with a TypeError (a clean refusal)."""
    A = np.asarray(X)
    if A.dtype.kind != "f":
        raise TypeError(f"float input required, got {A.dtype}")
    return km.converting_transform(A)


def test_a_container_the_plug_in_does_not_take_is_set_aside_an_array_it_chokes_on_fails():
    """Lists and tuples are taken where the plug-in accepts them: any exception on one sets that input type aside
    (fht-cpu's fht raises AttributeError on a list of rows); an array of another dtype must give the float64 values
    or be refused cleanly, so the same AttributeError on a uint8 array fails."""
    res = _stateful("transform", "tests.test_stateful_kinds:arrays_only_transform")
    assert res.status == "pass", res.message
    assert "list input" in res.details["refused"] and "tuple input" in res.details["refused"], res.details["refused"]
    bad = _stateful("transform", "tests.test_stateful_kinds:float_arrays_only_transform")
    assert bad.status == "fail" and "AttributeError" in bad.message, bad.message


def arrays_only_transform(X):
    """A correct transform of numpy arrays that, like a C extension, fails on a list (X.dtype)."""
    return km.converting_transform(X.astype(np.float64, copy=False) if X.dtype.kind != "f" else X)


def float_arrays_only_transform(X):
    """The same, choking (not refusing) on an integer array as well: an AttributeError is not a clean refusal."""
    if X.dtype.kind in "iub":
        raise AttributeError("'numpy.ndarray' object has no attribute 'as_float'")
    return km.converting_transform(X)


@pytest.mark.parametrize("group,impl", [("O", "haar_qr"), ("SO", "haar_qr_so")])
def test_d_1_is_not_judged_for_distinct_seeds(group, impl):
    """O(1) = {1, -1}: two seeds share a draw half the time; SO(1) = {1}: always. Not a finding."""
    res = verify_orthogonal(f"rfverify.implementations.orthogonal:{impl}", dim=1, group=group,
                            checks=["stateful"])["stateful"]
    assert res.status == "pass", res.message
    assert "seeds-differ" not in res.details["judged"] and "distinct seeds not judged: d = 1" in res.message


def test_a_rule_refusing_half_the_dimension_is_set_aside():
    """A rule for even d only (rfverify's UsageError, as the butterfly rules raise it): at d = 6 its refusal of
    d = 3 is set aside and stated, not an error."""
    res = verify_quadrature("tests.test_stateful_kinds:even_rule", dim=6, degree=0, checks=["stateful"])["stateful"]
    assert res.details["dims"] == [3, 6]
    assert res.status == "pass", res.message
    assert "d = 3" in res.details["refused"] and "even d only" in res.message


def even_rule(d, rng):
    """Monte Carlo points for even d; odd d refused."""
    from rfverify.errors import UsageError

    if d % 2:
        raise UsageError(f"even d only, got d={d}")
    return km.uncached_rule(d, rng)


def test_a_machine_whose_only_failure_does_not_replay_is_never_a_pass():
    """An exception that is not a finding, raised once and not again on replay (Hypothesis: Flaky), is raised — the
    check errors — never read as a run in which nothing failed."""
    from hypothesis.errors import Flaky
    from hypothesis.stateful import rule

    from rfverify.properties.stateful_base import Log, MachineBase, run_machine

    calls = []

    class Once(MachineBase):
        log = Log()

        @rule()
        def step(self) -> None:
            calls.append(1)
            if len(calls) == 3:
                raise ValueError("once only")

    with pytest.raises((Flaky, ValueError)):
        run_machine(Once, Once.log, runs=20, steps=4, seed=1)
    assert Once.log.first is None
