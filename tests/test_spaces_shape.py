"""Every kind's explored space has one shape (:class:`rfverify.spaces.Space`: narrow, describe; strategy and
explicit where the search draws from it) and one range rule (:func:`rfverify.spaces.as_range`)."""

from __future__ import annotations

import pytest

from rfverify.errors import UsageError
from rfverify.spaces import (QUADRATURE_SPACE, FeatureMapSpace, KernelSpace, QuadratureSpace, Space, as_range,
                             narrowed)
from rfverify.strategies import Range


@pytest.mark.parametrize("space", [FeatureMapSpace(), KernelSpace(known=("gamma",), kernel_name="rbf"),
                                   QuadratureSpace()])
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
    for space in (FeatureMapSpace(), KernelSpace(), QuadratureSpace()):
        assert isinstance(space, Space)
    assert not isinstance(Range(1, 2), Space)
    assert FeatureMapSpace.strategy is FeatureMapSpace.examples
