"""Error rate: the exact-map threshold pinned at both sides (issue 22: EXACT_MSE survived its mutation run).

A map whose mean squared error is below ``EXACT_MSE`` (1e-24) — or below the round-off of the estimate squared,
whichever is larger — is exact: there is no 1/m law to fit.  The kernel here is scaled so that its round-off
(2e-14, squared 5e-28) is far below 1e-24, and the map is deterministic with a relative error delta, so its MSE
is a known constant at every m: 0.5e-24 is exact, 1.5e-24 is not.
"""

from __future__ import annotations

import numpy as np
import pytest

import rfverify
from rfverify.properties.error_rate import EXACT_MSE

S = 1e-2


def _scaled(delta):
    def features(X, n_components, random_state):
        return np.asarray(X, dtype=np.float64) * S * (1.0 + delta)

    return features


def _kernel(X, Y):
    return S * S * (np.asarray(X) @ np.asarray(Y).T)


@pytest.mark.parametrize("mse_over_threshold, exact", [(0.5, True), (1.5, False)])
def test_a_map_is_exact_below_the_threshold_only(mse_over_threshold, exact):
    # MSE = c delta^2 for this deterministic map (c from the designed pairs): delta = 3e-9 gives 7.26e-23
    delta = 3e-9 * np.sqrt(mse_over_threshold * EXACT_MSE / 7.262860723879044e-23)
    res = rfverify.verify(_scaled(delta), kernel=_kernel, checks=["error-rate"], profile="quick",
                          metrics=False)["error-rate"]
    assert res.details["roundoff"] ** 2 < 1e-3 * EXACT_MSE  # the threshold decides, not the round-off
    assert res.details["mse"][0] == pytest.approx(mse_over_threshold * EXACT_MSE, rel=1e-3)
    assert ("the map is exact" in res.message) is exact
    assert res.status == ("pass" if exact else "fail")
