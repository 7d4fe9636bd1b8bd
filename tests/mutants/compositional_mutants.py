"""daniely2017 Comment 1 as printed, planted in the compositional feature maps (tests/test_compositional_harness.py)."""

from __future__ import annotations

import numpy as np

from rfverify.implementations.compositional import zoo as cz
from rfverify.implementations.compositional.features import CompositionalFeatures, comment1_printed


class PrintedComment1Features(CompositionalFeatures):
    """Broken on purpose: Comment 1 as printed, √(2R cos(θ + b)) (principal complex root), per feature."""

    def transform(self, X: np.ndarray) -> np.ndarray:
        psi = self.feature_values(X)
        return comment1_printed(psi, self.b_[None, :]) * np.sqrt(self.counts_ / self.n_components)[None, :]


def printed_shallow(n_components, random_state):
    return PrintedComment1Features(cz.shallow(), n_components, random_state, deduplicate=False)


def printed_deep1d(n_components, random_state):
    return PrintedComment1Features(cz.deep1d(), n_components, random_state, deduplicate=False)
