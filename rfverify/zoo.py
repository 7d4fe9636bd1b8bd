"""The reference zoo: every reference implementation (and the real third-party
samplers we verify), each with the configuration it is verified under.

Scheme issues add their entries here; ``rfverify report --all`` verifies them all.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Mapping

__all__ = ["ZooEntry", "ZOO", "zoo_entries", "VERIFIERS", "verify_entry"]

#: kind -> "module:function" verifying one implementation of that kind; called as
#: ``fn(implementation, seed=..., profile=..., xfail=..., **entry.options)`` -> Report.
VERIFIERS: dict[str, str] = {"feature-map": "rfverify.runner:verify"}


@dataclass(frozen=True)
class ZooEntry:
    """One implementation in the zoo and the options of :func:`rfverify.verify` it is checked with."""

    name: str
    implementation: str
    options: Mapping[str, Any] = field(default_factory=dict)
    kind: str = "feature-map"
    third_party: bool = False
    doc: str = ""
    #: Checks expected to fail, with the reason (a documented, real limitation).
    xfail: Mapping[str, str] = field(default_factory=dict)


_SQRT2 = math.sqrt(2.0)
_RBF = {"kernel": "rbf", "kernel_params": {"gamma": 0.5}, "dim": 16}

ZOO: list[ZooEntry] = [
    ZooEntry("rff-phase", "rfverify.implementations.rff:RandomFourierFeatures", {**_RBF, "bound": _SQRT2},
             doc="sqrt(2/m) cos(Wx + b), W ~ N(0, 2 gamma I), b ~ U[0, 2 pi]"),
    ZooEntry("rff-cossin", "rfverify.implementations.rff:RandomFourierFeaturesCosSin", {**_RBF, "bound": _SQRT2},
             doc="sqrt(1/m) [cos Wx, sin Wx], W ~ N(0, 2 gamma I)"),
    ZooEntry("sklearn-RBFSampler", "sklearn.kernel_approximation:RBFSampler", {**_RBF, "bound": _SQRT2},
             third_party=True, doc="scikit-learn's random Fourier features (phase form)"),
]

# Random orthogonal matrices and fast transforms (issue 3).
VERIFIERS.update({"orthogonal": "rfverify.orthogonal_kind:verify_orthogonal",
                  "transform": "rfverify.transform_kind:verify_transform"})
_ORTH = "rfverify.implementations.orthogonal:"
ZOO += [
    ZooEntry("haar-qr", _ORTH + "haar_qr", {"dim": 16, "group": "O"}, kind="orthogonal",
             doc="sign-corrected QR of a Gaussian matrix (Mezzadri 2006), Haar on O(d)"),
    ZooEntry("haar-qr-SO", _ORTH + "haar_qr_so", {"dim": 16, "group": "SO"}, kind="orthogonal",
             doc="sign-corrected QR with the first column flipped when det = -1, Haar on SO(d)"),
    ZooEntry("haar-householder", _ORTH + "haar_householder", {"dim": 16, "group": "O"}, kind="orthogonal",
             doc="product of random Householder reflections and random signs (Stewart 1980), Haar on O(d)"),
    ZooEntry("scipy-ortho_group", "scipy.stats:ortho_group", {"dim": 16, "group": "O"}, kind="orthogonal",
             third_party=True, doc="scipy.stats.ortho_group.rvs, Haar on O(d)"),
    ZooEntry("scipy-special_ortho_group", "scipy.stats:special_ortho_group", {"dim": 16, "group": "SO"},
             kind="orthogonal", third_party=True, doc="scipy.stats.special_ortho_group.rvs, Haar on SO(d)"),
    ZooEntry("fwht", "rfverify.implementations.structured:fwht", {"dim": 256, "matrix": "hadamard"},
             kind="transform", doc="fast Walsh–Hadamard transform (natural order, unnormalised), = X @ H_d"),
    ZooEntry("fwht-normalized", "rfverify.implementations.structured:fwht_normalized",
             {"dim": 256, "matrix": "hadamard-normalized"}, kind="transform",
             doc="fast Walsh–Hadamard transform divided by sqrt(d), = X @ H_d / sqrt(d)"),
]


def zoo_entries(names: list[str] | None = None) -> list[ZooEntry]:
    if not names:
        return list(ZOO)
    by = {e.name: e for e in ZOO}
    from .errors import UsageError

    unknown = [n for n in names if n not in by]
    if unknown:
        raise UsageError(f"unknown zoo entr{'y' if len(unknown) == 1 else 'ies'} {', '.join(unknown)}; "
                         f"known: {', '.join(by)}")
    return [by[n] for n in names]


def verify_entry(entry: ZooEntry, *, seed: int, profile: str) -> Any:
    """Verify one zoo entry with the verifier of its kind."""
    import importlib

    mod, fn = VERIFIERS[entry.kind].split(":")
    verify = getattr(importlib.import_module(mod), fn)
    return verify(entry.implementation, seed=seed, profile=profile, xfail=dict(entry.xfail) or None,
                  **entry.options)
