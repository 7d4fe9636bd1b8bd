"""The feature-map template: one base class, one validation, outputs equal to the recorded fingerprints.

* every reference feature map in ``rfverify.implementations`` derives from
  :class:`~rfverify.implementations._base.FeatureMap` (found by walking the package, so a new scheme
  that bypasses the template fails here);
* every one answers each bad input (X not 2-D, non-numeric or non-finite X, n_components 0, -1, 2.5
  or True, transform before fit, transform at another width) with one one-line ``UsageError``;
  :func:`validation_problems` lists what a map gets wrong and is shown to catch a broken twin;
* every map's output equals (to round-off) the fingerprint recorded before the template existed
  (``tests/fm_fingerprints.py``); the fingerprint is shown to catch a changed draw order.
"""

from __future__ import annotations

import importlib
import inspect
import json
import os
import subprocess
import sys
import pkgutil
from pathlib import Path
from typing import Any, Callable

import numpy as np
import pytest

import rfverify.implementations as impl_pkg
from rfverify.adapters import as_feature_map
from rfverify.errors import UsageError
from rfverify.implementations._base import FeatureMap
from rfverify.implementations.rff import RandomFourierFeatures
from rfverify.studies.zoo import ZOO
from tests import fm_fingerprints as fp

#: Modules that define no feature map of their own.
_SKIP_MODULES = ("_claims", "scheme_study", "quadrature_experiment")


def _reference_maps() -> dict[str, tuple[Any, dict[str, Any], int, Any]]:
    """name -> (implementation, kernel params, dim, domain) for the zoo's and fp.EXTRA's reference maps."""
    out: dict[str, tuple[Any, dict[str, Any], int, Any]] = {}
    for e in ZOO:
        if e.kind == "feature-map" and e.implementation.startswith(fp._IMPL):
            o = dict(e.options)
            out[e.name] = (e.implementation, dict(o.get("kernel_params", {})), int(o.get("dim", 16)),
                           o.get("domain", "gaussian"))
    for name, (spec, params, d) in fp.EXTRA.items():
        out[name] = (spec, dict(params), d, "gaussian")
    return out


MAPS = _reference_maps()


def _maker(impl: Any, params: dict[str, Any]) -> Callable[[Any], Any]:
    plugin = as_feature_map(impl, kernel_params=params)
    return lambda m: plugin._build(m, 7)


def _fit(obj: Any, X: np.ndarray) -> Any:
    if getattr(obj, "data_dependent", False) and getattr(obj, "label_fn", 0) is None:
        return obj.fit(X, np.arange(len(X)) % 2)
    return obj.fit(X)


def validation_problems(make: Callable[[Any], Any], X: np.ndarray) -> list[str]:
    """What a map does wrong on bad input: each case must raise exactly one one-line UsageError."""
    problems: list[str] = []

    def expect(label: str, call: Callable[[], Any], needle: str) -> None:
        try:
            call()
        except UsageError as exc:
            msg = str(exc)
            if "\n" in msg or needle not in msg:
                problems.append(f"{label}: UsageError {msg!r} should be one line naming {needle!r}")
            return
        except Exception as exc:  # noqa: BLE001 - reported
            problems.append(f"{label}: raised {type(exc).__name__}: {exc} instead of a UsageError")
            return
        problems.append(f"{label}: accepted")

    m = 8
    bad_nan, bad_inf = X.copy(), X.copy()
    bad_nan[0, 0], bad_inf[-1, -1] = np.nan, np.inf
    expect("fit(1-D X)", lambda: _fit(make(m), X[0]), "2-D")
    expect("fit(3-D X)", lambda: _fit(make(m), X[None]), "2-D")
    expect("fit(non-numeric X)", lambda: _fit(make(m), [["a"] * X.shape[1]] * 2), "X")
    expect("fit(X with NaN)", lambda: _fit(make(m), bad_nan), "non-finite")
    for bad in (0, -1, 2.5, True):
        expect(f"n_components={bad!r}", lambda b=bad: _fit(make(b), X), "n_components")
    expect("transform before fit", lambda: make(m).transform(X), "not fitted")
    try:
        fitted = _fit(make(m), X)
    except Exception as exc:  # noqa: BLE001 - reported
        return problems + [f"fit on valid X raised {type(exc).__name__}: {exc}"]
    expect("transform(1-D X)", lambda: fitted.transform(X[0]), "2-D")
    expect("transform(X with inf)", lambda: fitted.transform(bad_inf), "non-finite")
    expect("transform(X of another width)", lambda: fitted.transform(np.hstack([X, X[:, :1]])), "")
    return problems


@pytest.mark.parametrize("name", sorted(MAPS))
def test_every_reference_map_validates_through_the_template(name):
    impl, params, d, domain = MAPS[name]
    X, _ = fp._inputs(domain, d)
    assert validation_problems(_maker(impl, params), X) == []


class _NoValidation(RandomFourierFeatures):
    """Broken twin: a map that bypasses the template's public methods (no conversion, no checks)."""

    def fit(self, X, y=None):
        X = np.asarray(X)
        self._draw(X.shape[-1], np.random.default_rng(self.random_state))
        return self

    def transform(self, X):
        return self._features(np.asarray(X, dtype=float))


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
def test_validation_problems_catch_a_map_without_validation():
    X, _ = fp._inputs("gaussian", 4)
    problems = validation_problems(lambda m: _NoValidation(m, 0, gamma=0.5), X)
    labels = {p.split(":")[0] for p in problems}
    assert {"fit(X with NaN)", "n_components=2.5", "transform before fit", "transform(X with inf)"} <= labels, problems
    assert validation_problems(lambda m: RandomFourierFeatures(m, 0, gamma=0.5), X) == []


def _feature_map_classes() -> list[type]:
    found = []
    for info in pkgutil.walk_packages(impl_pkg.__path__, impl_pkg.__name__ + "."):
        if info.name.endswith(_SKIP_MODULES):
            continue
        mod = importlib.import_module(info.name)
        for _, obj in inspect.getmembers(mod, inspect.isclass):
            if obj.__module__ == mod.__name__ and callable(getattr(obj, "fit", None)) and \
                    callable(getattr(obj, "transform", None)):
                found.append(obj)
    return found


def test_every_reference_feature_map_class_uses_the_one_template():
    classes = _feature_map_classes()
    assert len(classes) >= 30, [c.__qualname__ for c in classes]
    outside = [f"{c.__module__}.{c.__qualname__}" for c in classes if not issubclass(c, FeatureMap)]
    assert outside == [], f"feature maps outside the template (derive them from FeatureMap): {outside}"
    overriding = [f"{c.__module__}.{c.__qualname__}.{meth}" for c in classes for meth in ("fit", "transform")
                  if getattr(c, meth) is not getattr(FeatureMap, meth)]
    assert overriding == [], f"public methods overridden (implement the hooks instead): {overriding}"


RECORDED = json.loads(fp.DATA.read_text())
SUBJECTS = fp.subjects()


@pytest.mark.parametrize("name", sorted(RECORDED))
def test_output_matches_the_recorded_fingerprint(name):
    assert name in SUBJECTS, f"{name} is recorded but no longer exists; re-record deliberately"
    if RECORDED[name] == "nondeterministic":  # a mutant seeded from fresh entropy: two runs must still differ
        first, again = SUBJECTS[name](), SUBJECTS[name]()
        assert fp.mismatch(first, again) is not None, f"{name} is recorded as nondeterministic but now repeats"
        return
    why = fp.mismatch(SUBJECTS[name](), RECORDED[name])
    assert why is None, (f"{name}: {why} — the map's draws or arithmetic changed; `rfverify report --all` verdicts "
                         "may change too")


def test_every_subject_is_recorded():
    assert sorted(set(SUBJECTS) - set(RECORDED)) == []


class _SwappedDrawOrder(RandomFourierFeatures):
    """Broken twin: the phases drawn before the frequencies (same laws, different draws)."""

    def _draw(self, d, rng):
        self.b_ = rng.uniform(0.0, 2.0 * np.pi, size=self.n_components)
        self.W_ = self._draw_frequencies(d, rng)


def test_fingerprint_catches_a_changed_draw_order():
    assert "sketch moved" in fp.mismatch(fp.fingerprint(_SwappedDrawOrder, {"gamma": 0.5}, 16), RECORDED["zoo:rff-phase"])
    assert fp.mismatch(fp.fingerprint(RandomFourierFeatures, {"gamma": 0.5}, 16), RECORDED["zoo:rff-phase"]) is None


def test_fingerprint_tolerates_last_bit_differences_only():
    """A relative change of 1e-13 in every output (another CPU's cos) passes; 1e-5 in one entry does not."""
    got = fp.fingerprint(RandomFourierFeatures, {"gamma": 0.5}, 16)

    def perturbed(scale: float, only_first: bool) -> dict:
        class _Noisy(RandomFourierFeatures):
            def transform(self, X):
                F = np.array(super().transform(X))
                if only_first:
                    F[0, 0] += scale
                else:
                    F *= 1.0 + scale * np.random.default_rng(0).standard_normal(F.shape)
                return F
        return fp.fingerprint(_Noisy, {"gamma": 0.5}, 16)

    assert fp.mismatch(perturbed(1e-13, only_first=False), got) is None
    assert "sketch moved" in fp.mismatch(perturbed(1e-5, only_first=True), got)
    assert "shapes or parameters" in fp.mismatch(fp.fingerprint(RandomFourierFeatures, {"gamma": 0.25}, 16), got)


def test_fingerprints_hold_on_another_cpu_code_path():
    """numpy's SIMD dispatch and OpenBLAS's kernels switched down to older CPUs' paths (as on a machine without
    AVX2/AVX-512): the outputs' bytes change, the fingerprints still match."""
    from numpy._core import _multiarray_umath as mu

    found = [f for f in mu.__cpu_dispatch__ if mu.__cpu_features__.get(f)]
    names = ["zoo:rff-phase", "zoo:orf", "zoo:sr33-rbf", "zoo:maxout-q2", "extra:uab-orf"]
    code = ("import json, sys; from tests import fm_fingerprints as fp; s = fp.subjects(); "
            f"print(json.dumps({{n: s[n]() for n in {names!r}}}))")
    env = dict(os.environ, NPY_DISABLE_CPU_FEATURES=" ".join(found), OPENBLAS_CORETYPE="Sandybridge")
    out = subprocess.run([sys.executable, "-c", code], env=env, cwd=Path(__file__).resolve().parent.parent,
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    other = json.loads(out.stdout.strip().splitlines()[-1])
    for n in names:
        assert fp.mismatch(other[n], RECORDED[n]) is None, (n, fp.mismatch(other[n], RECORDED[n]))
