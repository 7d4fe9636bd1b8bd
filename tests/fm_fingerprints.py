"""Fingerprints of every reference feature map (and every feature-map mutant) at a fixed seed.

A fingerprint has two parts, computed from what a map returns (``transform`` on two input sets, after one
``fit``, plus its ``get_params()``):

* ``exact`` — SHA-256 of the dtypes, shapes and parameters (or of the error a refused mutant raises);
* ``sketch`` — for each returned array, its sum of squares and six projections on fixed unit vectors.

Equal ``exact`` parts and sketches within round-off (``sqrt(eps)`` of the array's norm) mean the same random
draws in the same order and the same arithmetic.  The sketch, not the bytes, is compared because numpy's
``cos``/``exp`` and the BLAS kernels take different code paths on different CPUs (AVX2 vs AVX-512) and
round differently in the last bit; a changed draw order or formula moves the sketch by O(1).
``tests/data/fm_fingerprints.json`` was first recorded *before* the feature-map template
replaced the six base classes; the test in ``tests/test_feature_map_template.py`` keeps every map
equal to it.

Re-record (only for a deliberate change of a scheme's output, said so in the commit)::

    python -m tests.fm_fingerprints --record
"""

from __future__ import annotations

import hashlib
from unittest import mock
import json
import sys
from pathlib import Path
from typing import Any, Callable

import numpy as np

from rfverify.adapters import as_feature_map

DATA = Path(__file__).parent / "data" / "fm_fingerprints.json"
SEED = 20261123
N_COMPONENTS = 24

_IMPL = "rfverify.implementations."
_RBF = {"gamma": 0.5}

#: Reference maps not in the zoo (or in another configuration than the zoo's): name -> (spec, params, dim).
EXTRA: dict[str, tuple[str, dict[str, Any], int]] = {
    "maxout-hash-codes-q3": (_IMPL + "maxout:MaxoutHash", {"q": 3}, 6),
    "maxout-q1": (_IMPL + "maxout:MaxoutFeatures", {"q": 1}, 6),
    "rff-phase-d1": (_IMPL + "rff:RandomFourierFeatures", {"gamma": 2.0}, 1),
    "orf-float32": (_IMPL + "orf:OrthogonalRandomFeatures", {"gamma": 0.5, "dtype": np.float32}, 5),
    "sorf-1-float32": (_IMPL + "structured_features:SORF1", {"gamma": 0.5, "dtype": np.float32}, 6),
    "sorf-2-d5": (_IMPL + "structured_features:SORF2", _RBF, 5),
    "sorf-n-blocks-2": (_IMPL + "structured_features:StructuredOrthogonalFeatures", {"gamma": 0.5, "n_blocks": 2}, 7),
    "fastfood-float32": (_IMPL + "structured_features:FastfoodFeatures", {"gamma": 0.5, "dtype": np.float32}, 9),
    "qmc-sobol-d3": (_IMPL + "qmc_features:SobolFourierFeatures", {"gamma": 2.0}, 3),
    "qmc-halton-float32": (_IMPL + "qmc_features:HaltonFourierFeatures", {"gamma": 0.5, "dtype": np.float32}, 4),
    "arccos-1-float32": (_IMPL + "arccos:ArcCosineFeatures", {"order": 1, "dtype": np.float32}, 5),
    "arccos-deep-3-order-0": (_IMPL + "arccos:DeepArcCosineFeatures", {"order": 0, "layers": 3}, 5),
    "laplacian-d3": (_IMPL + "laplacian:LaplacianRandomFeatures", {"gamma": 1.5}, 3),
    "composite-rbf-plus-laplacian": (_IMPL + "composite:RBFPlusLaplacianFeatures",
                                     {"rbf_gamma": 0.5, "laplacian_gamma": 0.25}, 4),
    "composite-rbf-times-polynomial": (_IMPL + "composite:RBFTimesPolynomialFeatures", {"rbf_gamma": 0.5}, 3),
    "composite-rbf-times-polynomial-wide": (_IMPL + "composite:RBFTimesPolynomialFeatures", {"degree": 2}, 9),
    "composite-exp-linear": (_IMPL + "composite:ExpLinearFeatures", {"gamma": 0.3}, 4),
    "sr33-rbf": (_IMPL + "quadrature:SR33RBF", _RBF, 5),
    "sr33-resampled-rbf": (_IMPL + "quadrature:SR33ResampledRBF", _RBF, 5),
    "sr33-butterfly-arccos": (_IMPL + "quadrature:SR33ButterflyArcCos", {"order": 1}, 8),
    "uab-orf": (_IMPL + "adapted:UnsupervisedAdaptedBasis", {"gamma": 0.5, "init": "orf", "n_steps": 30}, 6),
    "sab-labels": (_IMPL + "adapted:sab_mixture", {"gamma": 0.5}, 6),
}


def _digest(*parts: Any) -> str:
    h = hashlib.sha256()
    for p in parts:
        h.update(repr(p).encode())
    return h.hexdigest()[:24]


N_PROJECTIONS = 6


def _sketch(a: np.ndarray) -> list[float]:
    """Sum of squares and projections of ``a`` on fixed unit vectors (float64 arithmetic, any input dtype)."""
    a = np.asarray(a)
    v = (np.concatenate([a.real.ravel(), a.imag.ravel()]) if a.dtype.kind == "c" else a.ravel()).astype(np.float64)
    if v.size == 0:
        return [0.0] * (N_PROJECTIONS + 1)
    R = np.random.default_rng([SEED, v.size]).standard_normal((N_PROJECTIONS, v.size))
    R /= np.linalg.norm(R, axis=1, keepdims=True)
    return [float(np.dot(v, v))] + [float(np.dot(r, v)) for r in R]


def _fingerprint_of(arrays: tuple[np.ndarray, ...], params: str) -> dict[str, Any]:
    return {"exact": _digest(*[f"{a.dtype.str}{a.shape}" for a in arrays], params),
            "dtype": arrays[0].dtype.str, "sketch": [_sketch(a) for a in arrays]}


def mismatch(got: dict[str, Any] | str, recorded: dict[str, Any] | str) -> str | None:
    """Why two fingerprints differ, or ``None`` when they agree (sketches within round-off of the norms)."""
    if isinstance(got, str) or isinstance(recorded, str):
        return None if got == recorded else f"{got!r} != recorded {recorded!r}"
    if got["exact"] != recorded["exact"]:
        return f"dtypes, shapes or parameters changed ({got['exact']} != recorded {recorded['exact']})"
    dtype = np.dtype(got["dtype"])
    eps = float(np.finfo(dtype).eps) if dtype.kind in "fc" else float(np.finfo(np.float64).eps)
    for i, (g, r) in enumerate(zip(got["sketch"], recorded["sketch"])):
        g, r = np.asarray(g), np.asarray(r)
        norm = np.sqrt(max(g[0], r[0], 0.0))
        tol = np.sqrt(eps) * (1.0 + norm)
        # the sum of squares moves by about 2 * norm * (a change of the array's norm)
        worst = max(abs(g[0] - r[0]) / (2.0 * (1.0 + norm)), float(np.max(np.abs(g[1:] - r[1:]))))
        if not worst <= tol:
            return (f"output {i}: sketch moved by {worst:.3g} (round-off allowance {tol:.3g} for a norm of "
                    f"{norm:.3g}) — not a last-bit difference")
    return None


def _params_repr(obj: Any) -> str:
    if not hasattr(obj, "get_params"):
        return "-"
    def show(v: Any) -> str:
        if callable(v) and not isinstance(v, type):
            return getattr(v, "__qualname__", None) or repr(v)
        if v is None or isinstance(v, (bool, int, float, str, type, np.dtype, np.generic)):
            return repr(v)
        return f"<{type(v).__qualname__}>"  # an object (a skeleton, a tree): its repr may hold addresses

    return repr({k: show(v) for k, v in obj.get_params(deep=False).items()})


def _inputs(domain: Any, d: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(SEED)
    if callable(domain):
        return np.asarray(domain(9, d, rng), dtype=np.float64), np.asarray(domain(5, d, rng), dtype=np.float64)
    X, Y = rng.standard_normal((9, d)) / np.sqrt(d), rng.standard_normal((5, d)) / np.sqrt(d)
    if domain == "sphere":
        X /= np.linalg.norm(X, axis=1, keepdims=True)
        Y /= np.linalg.norm(Y, axis=1, keepdims=True)
    elif domain == "positive":
        X, Y = np.abs(X), np.abs(Y)
    return X, Y


def fingerprint(impl: Any, kernel_params: dict[str, Any], d: int, domain: Any = "gaussian") -> dict[str, Any] | str:
    """The fingerprint of one map: fit at SEED on X, transform X twice and Y once (or the error raised)."""
    X, Y = _inputs(domain, d)
    try:
        # the map itself, in this process (a fingerprint is about the map's numbers, not its containment: hosted, its
        # get_params would come back as handles)
        with mock.patch("rfverify.containment.supervise.judge_wanted", return_value=False):
            plugin = as_feature_map(impl, kernel_params=kernel_params)
        obj = plugin.build(N_COMPONENTS, SEED)
        ret = obj.fit(X) if not hasattr(obj, "label_fn") or obj.label_fn else obj.fit(X, np.arange(9) % 2)
        obj = ret if ret is not None and hasattr(ret, "transform") else obj
        F1, F2, G = (np.asarray(obj.transform(A)) for A in (X, X.copy(), Y))
        return _fingerprint_of((F1, F2, G), _params_repr(obj))
    except Exception as exc:  # a mutant may be refused: the message is then the fingerprint
        return "raises " + _digest(type(exc).__name__, str(exc))


def subjects() -> dict[str, Callable[[], dict[str, Any] | str]]:
    """name -> a thunk computing its fingerprint: zoo reference maps, EXTRA, feature-map mutants."""
    from rfverify.studies.zoo import ZOO
    from tests.mutants import LIBRARY

    out: dict[str, Callable[[], str]] = {}
    for e in ZOO:
        if e.kind == "feature-map" and e.implementation.startswith(_IMPL):
            opts = dict(e.options)
            out["zoo:" + e.name] = (lambda o=opts, i=e.implementation: fingerprint(
                i, dict(o.get("kernel_params", {})), int(o.get("dim", 16)), o.get("domain", "gaussian")))
    for name, (spec, params, d) in EXTRA.items():
        out["extra:" + name] = lambda s=spec, p=params, dd=d: fingerprint(s, dict(p), dd)
    for mu in LIBRARY:
        if mu.kind == "feature-map":
            opts = dict(mu.options)
            out["mutant:" + mu.name] = (lambda o=opts, i=mu.implementation: fingerprint(
                i, dict(o.get("kernel_params", {})) if isinstance(o.get("kernel"), str) else {},
                int(o.get("dim", 16)), o.get("domain", "gaussian")))
    return out


def compute() -> dict[str, Any]:
    """Every fingerprint; a map whose output is not reproducible (fresh entropy) is marked so."""
    out: dict[str, Any] = {}
    for name, thunk in subjects().items():
        a, b = thunk(), thunk()
        out[name] = a if a == b else "nondeterministic"
    return out


if __name__ == "__main__":  # pragma: no cover - recording tool
    if "--record" not in sys.argv:
        sys.exit("usage: python -m tests.fm_fingerprints --record")
    DATA.parent.mkdir(exist_ok=True)
    # one line per subject: a re-record shows as one changed line per map
    body = ",\n".join(f" {json.dumps(k)}: {json.dumps(v)}" for k, v in sorted(compute().items()))
    DATA.write_text("{\n" + body + "\n}\n")
    print(f"wrote {DATA}")
