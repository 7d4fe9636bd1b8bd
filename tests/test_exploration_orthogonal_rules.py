"""The orthogonal exploration's rules, pinned: the dimensions it searches (default, declared, pinned,
capped), the calls it always makes, and each deterministic property it judges at one explored call."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from rfverify.implementations.orthogonal import haar_qr
from rfverify.kinds.orthogonal import OrthogonalConfig
from rfverify.properties.exploration_orthogonal import OrthExample, _problem
from rfverify.spaces import OrthogonalSpace, orthogonal_space
from rfverify.strategies import Range
from tests.hostile_kinds import FailsAtCall, RecordingGuard


def _ctx(sampler, group="O", **kw):
    config = OrthogonalConfig(sampler, dim=16, group=group, **kw)
    return config.context(next(s for s in config.checks() if s.name == "explore"))


def declaring(space):
    def sampler(d, rng):
        return haar_qr(d, rng)
    sampler.rfverify_space = space
    return sampler


@pytest.mark.parametrize("sampler,kw,space", [
    (haar_qr, {}, Range(1, 256)),
    (declaring({"d": (3, 40)}), {}, Range(3, 40)),
    (declaring({"d": (0, 5000)}), {}, Range(1, 1024)),  # never below 1 nor above what the kind accepts
    (declaring({"m": (1, 8)}), {}, Range(1, 256)),  # no d in the declaration: the default
    (haar_qr, {"pins": {"d": 7}}, Range(7, 7)),
])
def test_the_dimensions_searched(sampler, kw, space):
    assert orthogonal_space(_ctx(sampler, **kw).config).d == space


def test_the_four_smallest_dimensions_are_always_tried():
    assert OrthogonalSpace().explicit() == [OrthExample(d, 0) for d in (1, 2, 3, 4)]
    assert OrthogonalSpace((7, 8)).explicit() == [OrthExample(7, 0), OrthExample(8, 0)]
    assert OrthogonalSpace((5, 5)).explicit() == [OrthExample(5, 0)]


def test_an_example_is_a_value_named_with_its_generator():
    ex = OrthExample(3, 9)
    assert ex.describe() == "d = 3, rng = numpy.random.default_rng(9)"
    assert hash(ex) == hash(OrthExample(3, 9))
    with pytest.raises(dataclasses.FrozenInstanceError):
        ex.d = 4


def _fails_at_5(d, rng):
    if d == 5:
        raise ValueError("no d = 5")
    return haar_qr(d, rng)


def _crashes_at_5(d, rng):
    if d == 5:
        raise ZeroDivisionError("no d = 5")
    return haar_qr(d, rng)


def _fresh_entropy(d, rng):
    return haar_qr(d, np.random.default_rng())


def _unnormalised(d, rng):
    return 2 * haar_qr(d, rng)


def _ignores_rng(d, rng):
    return haar_qr(d, np.random.default_rng(0))


def _reflection(d, rng):
    Q = haar_qr(d, rng)
    return Q if np.linalg.det(Q) < 0 else Q * np.r_[-1.0, np.ones(d - 1)]


@pytest.mark.parametrize("sampler,group,ex,problem", [
    (haar_qr, "O", OrthExample(3, 0), None),
    (_fails_at_5, "O", OrthExample(5, 0), "the sampler failed: _fails_at_5: "),
    (_fresh_entropy, "O", OrthExample(3, 0), "two draws with Generators seeded alike differ by up to "),
    (_unnormalised, "O", OrthExample(3, 0), "not orthogonal: max|Q^T Q - I| = 3 > "),
    (_reflection, "SO", OrthExample(3, 0), "det Q = -1 for a sampler declared on SO(d)"),
    (_reflection, "O", OrthExample(3, 0), None),  # det -1 is in O(d)
    (_ignores_rng, "O", OrthExample(2, 0), "Generators seeded differently gave the same matrix (the rng is ignored)"),
    (_ignores_rng, "O", OrthExample(1, 0), None),  # O(1) = {±1}: two seeds may well agree
])
def test_each_property_at_one_call(sampler, group, ex, problem):
    got = _problem(_ctx(sampler, group=group), ex)
    if problem is None:
        assert got is None
    else:
        assert got is not None and got.startswith(problem), got


def test_the_problem_messages_in_full():
    ctx = _ctx(_unnormalised)
    assert _problem(ctx, OrthExample(2, 0)).endswith(" (round-off tolerance, float64)")
    msg = _problem(_ctx(_fresh_entropy), OrthExample(4, 0))
    assert msg.endswith(" (randomness not drawn from the rng given)") and float(msg.split()[10]) > 0.01, msg


def test_a_failure_names_its_minimal_dimension_and_pins_it():
    from rfverify.kinds import get_kind

    verify = get_kind("orthogonal").verify_function()
    res = verify(_crashes_at_5, dim=16, group="O", checks=["explore"]).results[0]
    assert res.status == "fail"
    assert res.message.startswith("a deterministic property breaks at some dimension — observed: the sampler failed: "
                                  "_crashes_at_5: "), res.message
    assert ("; expected: orthogonal (and on O(d)), deterministic in the rng, at every d in 1 … 256; where: d = 5, "
            "rng = numpy.random.default_rng(0) (minimal, shrunk by Hypothesis); likely cause: a code path of its own "
            "at this d (a special case for small d, a fast path for large d?)") in res.message, res.message
    assert res.details["minimal_example"] == {"d": 5, "seed": 0}
    assert res.reproduce.endswith(" --check explore --pin d=5"), res.reproduce
    # its twin refusing d = 5 cleanly (a ValueError) narrows the space instead: the region is stated
    refusing = verify(_fails_at_5, dim=16, group="O", checks=["explore"]).results[0]
    assert refusing.status == "pass" and "refuses d = 5 (ValueError: no d = 5)" in refusing.message, refusing.message
    ok = verify(haar_qr, dim=16, group="O", checks=["explore"]).results[0]
    assert ok.status == "pass" and ok.message == f"{ok.details['calls']} dimensions, every property held (d 1 … 256)"


class _SecondDrawShifted:
    """Not reproducible in a known way: every second call adds 0.5 to entry (0, 0)."""

    calls = 0

    def __call__(self, d, rng):
        type(self).calls += 1
        Q = haar_qr(d, rng)
        if type(self).calls % 2 == 0:
            Q[0, 0] += 0.5
        return Q


def test_draws_seeded_alike_are_compared_entry_by_entry():
    _SecondDrawShifted.calls = 0
    msg = _problem(_ctx(_SecondDrawShifted()), OrthExample(3, 0))
    assert msg == "two draws with Generators seeded alike differ by up to 0.5 (randomness not drawn from the rng given)"


class _RvsRefusing:
    def rvs(self, dim, random_state=None):
        raise ValueError("not here")


@pytest.mark.parametrize("n,seed,other", [(1, 7, 8), (2, 7, 8), (3, 8, 7)])
def test_a_refusal_is_set_aside_with_the_seed_it_happened_at(n, seed, other):
    """The explored call draws at its seed twice, then at seed + 1: a refusal is confirmed with the seed of the draw
    that refused and another one, and names the call as the sampler's form has it."""
    guard = RecordingGuard()
    assert _problem(_ctx(FailsAtCall(n, haar_qr)), OrthExample(4, 7), guard).startswith("the sampler failed: ")
    assert guard.rejected == [({"d": 4}, seed, other, "sample(d, rng)")]
    guard = RecordingGuard()
    _problem(_ctx(_RvsRefusing()), OrthExample(4, 7), guard)
    assert guard.rejected == [({"d": 4}, 7, 8, "rvs(dim=d, random_state=rng)")]


def _refuses(at):
    def sampler(d, rng):
        if d == at:
            raise ValueError(f"no d = {at}")
        return haar_qr(d, rng)
    return sampler


def test_a_refusal_at_the_asked_dimension_is_never_set_aside_and_a_strict_failure_keeps_its_details():
    """The declared d (or the pinned one) is the configuration asked for: a refusal there is not a narrowing of the
    space (nothing could be judged); under strict_space a refusal elsewhere fails, with the space in its details."""
    from rfverify.kinds import get_kind

    verify = get_kind("orthogonal").verify_function()
    assert verify(_refuses(16), dim=16, checks=["explore"]).results[0].status != "pass"
    assert verify(_refuses(7), dim=16, pins={"d": 7}, checks=["explore"]).results[0].status != "pass"
    assert verify(_refuses(5), dim=16, checks=["explore"]).results[0].status == "pass"
    strict = verify(_refuses(5), dim=16, checks=["explore"], strict_space=True).results[0]
    assert strict.status == "fail" and strict.details["space"]["refused"], strict.details
