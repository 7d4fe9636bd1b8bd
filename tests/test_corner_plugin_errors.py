"""A plug-in that fails at a corner configuration, and the domains whose pair design has a smallest d.

* A map that crashes at one corner (here d = 1, with an exception that is not a clean refusal) is an ``error`` of
  each statistical check that needed that corner, naming it — never a pass — and the other corners are still
  judged (their outcomes in ``details["corners"]``).  A clean refusal (ValueError, TypeError,
  NotImplementedError) sets the corner aside instead (``tests/test_refusals.py``).
* A declared expected failure covers a plug-in that crashes where the check needed it (as pytest's ``xfail``
  covers a test that raises): the ecosystem's rfflearn QRF, whose fit raises IndexError at odd n_components, is an
  expected failure of explore and of the statistical checks at their odd-m corners.  It never covers an rfverify
  internal error or a usage error.
* The sphere S^0 = {-1, +1} has no pair with a correlation strictly between -1 and 1: the sphere domain needs
  d >= 2 (a clear usage error at d = 1), and the statistical corners of a sphere-domain map start at d = 2 (they
  asked for d = 1 and every check of scikit-learn's PolynomialCountSketch errored with "kernel polynomial
  returned non-finite values").
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import rfverify
from rfverify.domains import make_pairs, min_dim
from rfverify.errors import PLUGIN_RAISED, UsageError
from rfverify.implementations.rff import RandomFourierFeatures
from rfverify.kernels import get_kernel
from rfverify.kinds import checks_for
from rfverify.kinds.feature_map import FeatureMapConfig
from rfverify.properties.corner_runs import corners_of
from rfverify.results import CheckResult
from rfverify.runner import apply_xfail

RBF = dict(kernel="rbf", kernel_params={"gamma": 0.5}, dim=16, bound=2 ** 0.5)


class RaisesAtD1(RandomFourierFeatures):
    """Correct random Fourier features, except that fit crashes on one-column data (an IndexError: not a clean
    refusal, so a defect at that corner)."""

    def fit(self, X, y=None):
        if np.asarray(X).shape[1] == 1:
            raise IndexError("rows of length 1 are not supported")
        return super().fit(X, y)


def _unbiasedness(cls, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return rfverify.verify(cls, profile="default", checks=["unbiasedness"], metrics=False, **RBF, **kw).results[0]


def test_a_plugin_raising_at_a_corner_is_an_error_naming_it_and_the_other_corners_are_judged():
    r = _unbiasedness(RaisesAtD1)
    assert r.status == "error"
    assert r.details["error_source"] == PLUGIN_RAISED
    assert "corner configuration d = 1" in r.message and "rows of length 1" in r.message
    statuses = {(c["d"], c["n_components"], c["dtype"]): c["status"] for c in r.details["corners"]}
    assert statuses[(1, 1, "float64")] == "error"
    assert len(statuses) >= 3 and all(s == "pass" for k, s in statuses.items() if k[0] != 1), statuses


def test_a_declared_expected_failure_covers_a_plugin_that_raises_and_is_stale_on_the_correct_twin():
    reason = "fit crashes on one-column data"
    r = _unbiasedness(RaisesAtD1, xfail={"unbiasedness": reason})
    assert r.status == "xfail" and r.message.startswith(f"expected failure ({reason}): the plug-in failed")
    twin = _unbiasedness(RandomFourierFeatures, xfail={"unbiasedness": reason})
    assert twin.status == "fail" and "expected to fail" in twin.message


@pytest.mark.parametrize("message,details", [
    ("rfverify internal error in check unbiasedness: KeyError: 'x'", {}),
    ("configuration: kernel polynomial returned non-finite values", {}),
    ("a time limit of ours", {"error_source": "rfverify"}),
])
def test_an_expected_failure_never_covers_an_error_of_ours(message, details):
    r = CheckResult(check="unbiasedness", implementation="m", status="error", message=message, details=details)
    assert apply_xfail(r, "declared").status == "error"
    plugin = CheckResult(check="unbiasedness", implementation="m", status="error", message="m: fit raised",
                         details={"error_source": PLUGIN_RAISED})
    assert apply_xfail(plugin, "declared").status == "xfail"


def test_the_sphere_domain_needs_two_dimensions():
    assert min_dim("sphere") == 2 and min_dim("gaussian") == 1 and min_dim(lambda n, d, rng: None) == 1
    kernel = get_kernel("polynomial", degree=2, gamma=1.0, coef0=1.0)
    with pytest.raises(UsageError, match=r"sphere domain needs d >= 2.*S\^0"):
        make_pairs("sphere", 1, kernel, np.random.default_rng(0))
    ps = make_pairs("sphere", 2, kernel, np.random.default_rng(0))
    assert np.all(np.isfinite(ps.exact)) and np.all(np.isfinite(ps.Y))


@pytest.mark.parametrize("domain,smallest", [("sphere", 2), ("gaussian", 1)])
def test_statistical_corners_start_at_the_domains_smallest_dimension(domain, smallest):
    spec = next(s for s in checks_for("feature-map") if s.name == "unbiasedness")
    cfg = FeatureMapConfig(RandomFourierFeatures, profile="default", **{**RBF, "domain": domain})
    corners, with_main = corners_of(cfg.context(spec))
    assert with_main and min(c.d for c in corners) == smallest
