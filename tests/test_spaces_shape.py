"""Every kind's explored space has one shape (:class:`rfverify.spaces.Space`: narrow, describe; strategy and
explicit where the search draws from it) and one range rule (:func:`rfverify.spaces.as_range`)."""

from __future__ import annotations

import pytest

from rfverify.errors import UsageError
from hypothesis import find as _find
from hypothesis import settings
from hypothesis.errors import NoSuchExample

from rfverify.spaces import (QUADRATURE_SPACE, FeatureMapSpace, KernelSpace, OrthExample, OrthogonalSpace,
                             QuadratureSpace, Space, TransformExample, TransformSpace, as_range, narrowed)
from rfverify.strategies import Range

def find(strategy, condition):
    """Hypothesis' find, derandomised (the same search every run)."""
    return _find(strategy, condition, settings=settings(derandomize=True, max_examples=100, database=None))


#: One space of each of the five kinds, the keys its error lists, and (where the search draws from it directly)
#: the arguments of its strategy and explicit.
EVERY_KIND = [
    (FeatureMapSpace(), "; use d, n_components, batch, random_state, dtype, layout, norm, data_seed, split", ({},)),
    (KernelSpace(known=("gamma",), kernel_name="rbf"), " for kernel rbf; use d, n, norm, data_seed", None),
    (QuadratureSpace(), " for a quadrature rule; use d, d_exp or seed", None),
    (OrthogonalSpace(), " for an orthogonal sampler; use d", ()),
    (TransformSpace(), " for a transform; use d_exp or d", ()),
]


@pytest.mark.parametrize("space,keys,args", EVERY_KIND, ids=[type(s).__name__ for s, _, _ in EVERY_KIND])
def test_every_kinds_space_has_the_one_shape(space, keys, args):
    """narrow, describe (and strategy, explicit where the search draws from it); an unknown key is a UsageError
    that lists the valid ones; narrowed skips empty layers and returns a space of the same type."""
    assert isinstance(space, Space)
    assert isinstance(space.describe(), str) and space.describe()
    with pytest.raises(UsageError, match=f"unknown configuration key 'nope'{keys}"):
        space.narrow({"nope": 1})
    small = narrowed(space, [None, {}, {"d": (2, 3)}, {"d": 4}])
    assert type(small) is type(space) and small.describe() != space.describe()
    assert narrowed(space, [None, {}]) == space
    assert callable(getattr(space, "strategy", None)) == (args is not None)
    if args is not None:  # every example drawn, and every one tried first, lies in the narrowed space
        assert find(small.strategy(*args), lambda ex: True).d == 4
        explicit = small.explicit(*args)
        assert all(ex.d == 4 for ex in (explicit if isinstance(explicit, list) else [explicit] if explicit else []))


def test_the_shape_test_fails_on_a_space_without_it():
    class NoNarrow:
        def describe(self):
            return "d 1"
    assert not isinstance(NoNarrow(), Space) and not isinstance(Range(1, 2), Space)


@pytest.mark.parametrize("space", [FeatureMapSpace(), KernelSpace(known=("gamma",), kernel_name="rbf"),
                                   QuadratureSpace(), OrthogonalSpace()])
def test_every_space_narrows_and_describes(space):
    assert isinstance(space.describe(), str) and callable(space.narrow)
    small = narrowed(space, [None, {}, {"d": (2, 3)}, {"d": 3}])
    assert small.d == Range(3, 3) and "d 3" in small.describe()
    with pytest.raises(UsageError, match="unknown configuration key 'nope'"):
        space.narrow({"nope": 1})


def test_the_one_range_rule():
    assert as_range("d", (None, 8), Range(1, 64)) == Range(1, 8)
    assert as_range("d", 5, Range(1, 64)) == Range(5, 5)
    assert as_range("d", (2, 100), Range(1, 64), within=Range(1, 4096)) == Range(2, 100)
    for bad in (True, (1.5, 3), "x", (9, 2)):
        with pytest.raises(UsageError, match="must be an integer or a"):
            as_range("d", bad, Range(1, 64))
    with pytest.raises(UsageError, match=r"d 1 … 100 is outside the range rfverify searches \(1 … 64\)"):
        as_range("d", (1, 100), Range(1, 64))


def test_the_quadrature_dimensions():
    """d 1 … 64 by default; d_exp keeps powers of two; a later layer wins; the kind's DIM_RANGE bounds it."""
    within = Range(1, 4096)
    q = QuadratureSpace(within=within)
    assert q.dims() == tuple(range(1, 65)) and q.d == QUADRATURE_SPACE
    assert narrowed(q, [{"d_exp": (1, 3)}]).dims() == (2, 4, 8)
    assert narrowed(q, [{"d_exp": (1, 3)}, {"d": 8}]).dims() == (8,)
    assert narrowed(q, [{"d": (60, 200)}]).dims() == tuple(range(60, 201))
    assert narrowed(q, [{"d": 8}]).explicit() == 8 and q.explicit() is None
    for bad in ({"d": (0, 4)}, {"d": (1, 5000)}, {"d_exp": (0, 13)}):
        with pytest.raises(UsageError, match="outside the range"):
            narrowed(q, [bad])


def test_the_kernel_space_validates_a_registry_kernels_parameters():
    k = KernelSpace(params={"gamma": (1e-3, 1e3, "log")}, known=("gamma",), kernel_name="rbf")
    assert narrowed(k, [{"gamma": 0.5}]).held == {"gamma": 0.5}
    with pytest.raises(UsageError, match="unknown configuration key 'sigma' for kernel rbf"):
        k.narrow({"sigma": 1.0})
    assert KernelSpace().narrow({"sigma": 1.0}).held == {"sigma": 1.0}  # a callable's keywords: any


def test_the_spaces_implement_the_protocol():
    for space in (FeatureMapSpace(), KernelSpace(), QuadratureSpace(), OrthogonalSpace(), TransformSpace()):
        assert isinstance(space, Space)
    assert not isinstance(Range(1, 2), Space)
    assert FeatureMapSpace.strategy is FeatureMapSpace.examples


def test_the_orthogonal_dimensions():
    """d 1 … 256 by default; an open end is the current one's; cut to the kind's range, never below 1; a later
    layer wins; only integers."""
    o = OrthogonalSpace(within=Range(1, 1024))
    assert o.d == Range(1, 256) and o.describe() == "d 1 … 256"
    assert narrowed(o, [{"d": (3, 40)}, {"d": (None, 20)}]).d == Range(3, 20)
    assert narrowed(o, [{"d": (0, 5000)}]).d == Range(1, 1024)
    assert narrowed(o, [{"d": (3, 40)}, {"dim": 7}]).d == Range(7, 7)
    assert o.explicit() == [OrthExample(d, 0) for d in (1, 2, 3, 4)]
    for bad in ({"d": 2.5}, {"d": (9, 2)}, {"d": True}, {"d": "3"}):
        with pytest.raises(UsageError, match="d must be an integer or a \\(lo, hi\\) pair of integers"):
            o.narrow(bad)
    with pytest.raises(UsageError, match=r"d 5000 … 6000 lies outside the dimensions rfverify searches for an "
                                         r"orthogonal sampler \(1 … 1024\)"):  # nothing left once cut
        o.narrow({"d": (5000, 6000)})
    # the strategy: a dimension of the space and any seed, shrinking to the smallest d (seed 0)
    assert find(narrowed(o, [{"d": (5, 9)}]).strategy(), lambda ex: True) == OrthExample(5, 0)
    assert find(o.strategy(), lambda ex: ex.d > 100) == OrthExample(101, 0)


def test_the_transform_widths():
    """2^0 … 2^14 by default; d_exp an exponent range; d a range keeps its powers of two, one value that width;
    a user's dense matrix: its declared d until a layer names d_exp or d, cut at 2^10 (never below the floor)."""
    t = TransformSpace()
    assert t.widths == tuple(2 ** k for k in range(15))
    assert narrowed(t, [{"d_exp": (3, 5)}]).widths == (8, 16, 32)
    assert narrowed(t, [{"d_exp": (3, None)}]).widths == tuple(2 ** k for k in range(3, 15))
    assert narrowed(t, [{"d": (3, 40)}]).widths == (4, 8, 16, 32)
    assert narrowed(t, [{"d_exp": (3, 5)}, {"d": 12}]).widths == (12,)
    assert narrowed(t, [{"d": 12}, {"d_exp": 2}]).widths == (4,)
    dense = TransformSpace(structured=False, only=16)
    assert dense.widths == (16,) and dense.describe().startswith("d = 16, batches")
    assert narrowed(dense, [{"d_exp": (2, 12)}]).widths == tuple(2 ** k for k in range(2, 11))
    assert narrowed(dense, [{"d_exp": (12, 13)}]).widths == (4096,)
    assert TransformSpace((0, 3)).explicit() == [TransformExample(d, 1, "float64", "C", 0) for d in (1, 2, 4)]
    with pytest.raises(UsageError, match="no width d = 2\\^k lies in d 5 … 7: give a range holding a power of two"):
        t.narrow({"d": (5, 7)})
    for bad in ({"d_exp": -1}, {"d_exp": (5, 2)}, {"d": 1.0}):
        with pytest.raises(UsageError, match="must be an integer or a \\(lo, hi\\) pair of integers"):
            t.narrow(bad)
    # beyond the kind's widths: said when the space is narrowed, never an empty search (an internal error of explore)
    assert narrowed(t, [{"d_exp": (14, 20)}]).widths == (2 ** 14,)  # cut to the kind's range where some is left
    with pytest.raises(UsageError, match=r"d = 2\^15 … 2\^16 lies beyond the widths rfverify searches for a "
                                         r"transform \(2\^0 … 2\^14\)"):
        t.narrow({"d_exp": (15, 16)})
    with pytest.raises(UsageError, match=r"d 20000 … 40000 lies beyond the widths .* = 16384\)"):
        t.narrow({"d": (20000, 40000)})


def test_the_transform_strategy_keeps_the_cost_cap_and_the_jit_batches():
    wide = narrowed(TransformSpace(), [{"d_exp": 14}])
    assert find(wide.strategy(), lambda ex: True) == TransformExample(2 ** 14, 1, "float64", "C", 0)
    assert find(wide.strategy(), lambda ex: ex.n > 1).n == 2
    with pytest.raises(NoSuchExample):  # n d <= 2^18: at most 16 rows at d = 2^14
        find(wide.strategy(), lambda ex: ex.n > 16)
    assert find(TransformSpace().strategy(jit=True), lambda ex: ex.n > 3).n == 17  # JIT_BATCHES: 1, 2, 3, 17, 64


@pytest.mark.parametrize("argv", [
    ["orthogonal", "scipy.stats:ortho_group", "--space", "d=x"],
    ["orthogonal", "scipy.stats:ortho_group", "--space", "d=5:3"],
    ["transform", "rfverify.implementations.structured:fwht", "--space", "d=5:7"],
    ["transform", "rfverify.implementations.structured:fwht", "--space", "d_exp=a"],
    ["transform", "rfverify.implementations.structured:fwht", "--space", "d_exp=15:16"],
    ["orthogonal", "scipy.stats:ortho_group", "--space", "d=5000:6000"],
])
def test_a_bad_caller_space_is_a_usage_error_before_any_check(argv, capsys):
    """The caller's space and pins are applied to the kind's whole space when the configuration is built: a bad
    value exits 2 with the one-line usage error, it is not an ``explore`` error found after the other checks."""
    from rfverify.cli import main

    assert main(["check", *argv, "--profile", "quick", "--check", "explore"]) == 2
    out, err = capsys.readouterr()
    assert "rfverify: error:" in err and "configuration:" not in err, err  # not the check's error, re-raised
    assert "ERROR: 1 check" not in out and "reproduce:" not in out, out  # no check ran


def test_a_bad_caller_space_raises_from_the_api_before_any_check():
    import rfverify
    from rfverify.errors import UsageError

    with pytest.raises(UsageError, match="empty range|pair of integers|lo <= hi|LO <= HI"):
        rfverify.verify("scipy.stats:ortho_group", kind="orthogonal", space={"d": (5, 3)}, profile="quick",
                        checks=["explore"])
