"""Pinned verdicts: one check on one plug-in at a fixed seed, its whole result recorded.

A scenario runs one check through the public entry point (the kind's ``verify``) at a fixed seed and profile
and records everything a user sees: status, message, p-value, statistic, threshold, effect and details.
``tests/test_verdict_snapshots.py`` re-runs each and compares: statuses and the message text exactly, every
number in the message to 4 significant digits, every other number to 1e-6 relative.  The scenarios are chosen
to reach each branch of a check's decision (pass, fail with each likely cause, skip, a declared bias bound, a
corner): a one-token change to a check's code (a mutant) that changes anything a user sees fails here.

    python -m tests.verdict_snapshots --record            # every scenario (after an intended change)
    python -m tests.verdict_snapshots --record unbiasedness   # one check's scenarios
"""

from __future__ import annotations

import importlib
import json
import math
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

DATA = Path(__file__).resolve().parent / "data" / "verdict_snapshots.json"
#: Where the scenarios were recorded: the numbers at round-off level (a map's measured round-off, 1.6e-16; an
#: orthogonality defect) depend on the BLAS build and the CPU's vector instructions, not on rfverify.
ENVIRONMENT = DATA.with_name("verdict_snapshots.environment.json")
SEED = 20261126
MESSAGE_DIGITS = 4
RTOL = 1e-6
#: In another environment than the recording's, two numbers both below this (round-off measurements, p-values far
#: below any alpha) count as equal; statuses, message text and every larger number are compared as everywhere.
ROUNDOFF_SCALE = 1e-9


def environment() -> dict[str, Any]:
    """What the round-off of a recorded number depends on: machine, numpy and its BLAS, the CPU features used."""
    import platform

    try:
        from numpy._core._multiarray_umath import __cpu_features__ as features
    except ImportError:  # pragma: no cover - numpy 1.x
        from numpy.core._multiarray_umath import __cpu_features__ as features
    try:
        blas = np.show_config(mode="dicts")["Build Dependencies"]["blas"]
        blas_text = f"{blas.get('name')} {blas.get('version')}"
    except Exception:  # pragma: no cover - numpy 1.x has no dicts mode
        blas_text = "unknown"
    return {"machine": platform.machine(), "numpy": np.__version__, "blas": blas_text,
            "cpu_features": sorted(k for k, on in features.items() if on)}


def same_environment() -> bool:
    return ENVIRONMENT.exists() and json.loads(ENVIRONMENT.read_text(encoding="utf-8")) == environment()


#: 0 where the snapshots were recorded (every number compared); ROUNDOFF_SCALE elsewhere.
TINY = 0.0 if same_environment() else ROUNDOFF_SCALE


@dataclass(frozen=True)
class Scenario:
    id: str
    check: str
    target: str  # "module:attr"
    kwargs: dict[str, Any] = field(default_factory=dict)
    kind: str = "feature-map"
    profile: str = "quick"
    library: str | None = None  # a tests.mutants LIBRARY entry's name: its implementation and options


GAMMA = {"kernel_params": {"gamma": 0.5}}


class _load_later(str):
    """A keyword argument that is a "module:attr" to import when the scenario runs (a callable kernel)."""

SCENARIOS: list[Scenario] = [
    # ---------------------------------------------------------------- unbiasedness
    Scenario("half-scale", "unbiasedness", "tests.mutants.rff_mutants:HalfScale", GAMMA),
    Scenario("one-over-m", "unbiasedness", "tests.verdict_snapshot_maps:OneOverM", GAMMA),
    Scenario("variance-gamma", "unbiasedness", "tests.mutants.rff_mutants:VarianceGamma", GAMMA),
    Scenario("rff", "unbiasedness", "rfverify.implementations.rff:RandomFourierFeatures", GAMMA),
    Scenario("rff-default-corners", "unbiasedness", "rfverify.implementations.rff:RandomFourierFeatures",
             {**GAMMA, "bound": 2 ** 0.5}, profile="default"),
    Scenario("wider-half-scale", "unbiasedness", "tests.verdict_snapshot_maps:WiderHalfScale", GAMMA),
    Scenario("identity-linear", "unbiasedness", "tests.verdict_snapshot_maps:identity",
             {"kernel": _load_later("tests.verdict_snapshot_maps:linear_kernel"), "deterministic": True}),
    Scenario("clipped-gamma-corner", "unbiasedness", "tests.mutants.corner_mutants:ClippedGamma", GAMMA,
             profile="default"),
    Scenario("biased-no-bound", "unbiasedness", "tests.mutants.rff_mutants:HalfScale",
             {**GAMMA, "unbiased": False}),
    Scenario("biased-over-bound", "unbiasedness", "tests.mutants.rff_mutants:HalfScale",
             {**GAMMA, "unbiased": False, "bias_bound": 0.01}),
    Scenario("biased-within-bound", "unbiasedness", "tests.mutants.rff_mutants:HalfScale",
             {**GAMMA, "unbiased": False, "bias_bound": 0.6}),
    Scenario("deterministic-biased", "unbiasedness", "tests.verdict_snapshot_maps:DeterministicHalfScale",
             {**GAMMA, "deterministic": True}),
    Scenario("arccos-default-corners", "unbiasedness", "rfverify.implementations.arccos:ArcCosineFeatures",
             {"kernel": "arccos", "kernel_params": {"order": 1}}, profile="default"),
    # ---------------------------------------------------------------- corners of the other kinds (default profile)
    Scenario("haar-qr-corners", "haar-trace-moments", "rfverify.implementations.orthogonal:haar_qr",
             {"dim": 16, "group": "O"}, kind="orthogonal", profile="default"),
    Scenario("sign-fix-up-to-64", "haar-trace-moments", "tests.mutants.corner_mutants:sign_fix_up_to_64",
             {"dim": 16, "group": "O"}, kind="orthogonal", profile="default"),
    Scenario("sr33-corners", "rule-unbiasedness", "tests.verdict_snapshot_maps:sr33_twin",
             {"dim": 8, "degree": 3, "unbiased": True}, kind="quadrature", profile="default"),
    Scenario("sr33-radius-chi1-at-d1", "rule-unbiasedness", "tests.mutants.corner_mutants:sr33_radius_chi1_at_d1",
             {"dim": 8, "degree": 3, "unbiased": True}, kind="quadrature", profile="default"),
    # ---------------------------------------------------------------- contract
    Scenario("fit-changes-gamma", "contract", "tests.verdict_snapshot_maps:FitChangesGamma", GAMMA),
    Scenario("options-changed-in-place", "contract", "tests.verdict_snapshot_maps:options_param_instance()", GAMMA),
    Scenario("part-without-map", "kernel-composition", "tests.verdict_snapshot_maps:sum_with_a_part_without_map()",
             kind="kernel"),
    Scenario("sum-rbf-linear", "kernel-composition", "tests.verdict_snapshot_maps:sum_rbf_linear()", kind="kernel"),
    Scenario("polynomial-beyond-its-width", "kernel-composition", "tests.verdict_snapshot_maps:sum_polynomial_rbf()",
             {"dim": 100}, kind="kernel"),
    Scenario("two-params-changed", "contract", "tests.verdict_snapshot_maps:options_and_gamma_instance()", GAMMA),
    Scenario("one-row-wider", "contract", "tests.verdict_snapshot_maps:OneRowWider", GAMMA),
    Scenario("rows-within-propagated", "contract", "tests.verdict_snapshot_maps:LoudReordered", GAMMA),
    Scenario("rows-within-propagated-float32", "contract", "tests.verdict_snapshot_maps:LoudReordered32", GAMMA),
    Scenario("orf-wider-than-asked", "contract", "rfverify.implementations.orf:OrthogonalRandomFeatures",
             {**GAMMA, "dim": 10}),
    # ---------------------------------------------------------------- concentration
    Scenario("shared-draw", "concentration", "tests.mutants.rff_mutants:SharedDraw", {**GAMMA, "bound": 2 ** 0.5}),
    Scenario("half-scale-bias", "concentration", "tests.mutants.rff_mutants:HalfScale", {**GAMMA, "bound": 2 ** 0.5}),
    Scenario("rff-no-bound", "concentration", "rfverify.implementations.rff:RandomFourierFeatures", GAMMA),
    # ---------------------------------------------------------------- explore (feature maps)
    Scenario("rff", "explore", "rfverify.implementations.rff:RandomFourierFeatures", GAMMA),
    Scenario("rff-default", "explore", "rfverify.implementations.rff:RandomFourierFeatures", GAMMA, profile="default"),
    *(Scenario(f"{name}", "explore", f"tests.mutants.explore_mutants:{name}", GAMMA)
      for name in ("HalfFreqCosSin", "FastPathCache", "ChunkedAboveBatch", "Float16Compute", "FortranReadAsC",
                   "RefitRedraws", "CeilCosSin")),
    # ---------------------------------------------------------------- error-rate
    Scenario("rff", "error-rate", "rfverify.implementations.rff:RandomFourierFeatures", {**GAMMA, "bound": 2.0}),
    Scenario("shared-draw", "error-rate", "tests.mutants.rff_mutants:SharedDraw", {**GAMMA, "bound": 2.0}),
    Scenario("arccos-nested", "error-rate", "rfverify.implementations.arccos:ArcCosineFeatures",
             {"kernel": "arccos", "kernel_params": {"order": 1}}),
    Scenario("arccos-shared-bank", "error-rate", "tests.mutants.corner_mutants:ArcCosSharedBank",
             {"kernel": "arccos", "kernel_params": {"order": 1}}),
    Scenario("half-scale-bias", "error-rate", "tests.mutants.rff_mutants:HalfScale", {**GAMMA, "bound": 2.0}),
    Scenario("half-scale-declared-biased", "error-rate", "tests.mutants.rff_mutants:HalfScale",
             {**GAMMA, "bound": 2.0, "unbiased": False, "bias_bound": 0.6}),
    Scenario("sobol-faster", "error-rate", "rfverify.implementations.qmc_features:SobolFourierFeatures",
             {**GAMMA, "bound": 2.0}),
    Scenario("exact-from-a-width", "error-rate", "tests.verdict_snapshot_maps:coordinate_sample",
             {"kernel": _load_later("tests.verdict_snapshot_maps:linear_kernel"), "dim": 32}),
    Scenario("levels-off", "error-rate", "tests.verdict_snapshot_maps:levels_off", {**GAMMA, "bound": 2.0}),
    Scenario("fallback-slope", "error-rate", "tests.verdict_snapshot_maps:WidthPlusOne", GAMMA),
    Scenario("first-pair-incomparable", "error-rate", "tests.verdict_snapshot_maps:WidthPlusOneAtFirst", GAMMA),
    Scenario("half-scale-declared-biased-nested", "error-rate", "tests.mutants.rff_mutants:HalfScale",
             {**GAMMA, "unbiased": False, "bias_bound": 0.6}),
    Scenario("rff-default-corners", "error-rate", "rfverify.implementations.rff:RandomFourierFeatures",
             {**GAMMA, "bound": 2.0}, profile="default"),
    Scenario("count-sketch-ties", "error-rate", "tests.verdict_snapshot_maps:count_sketch",
             {"kernel": _load_later("tests.verdict_snapshot_maps:linear_kernel"), "dim": 8}),
    Scenario("levels-off-declared-biased", "error-rate", "tests.verdict_snapshot_maps:levels_off",
             {**GAMMA, "bound": 2.0, "unbiased": False, "bias_bound": 0.1}),
    Scenario("fixed-width", "error-rate", "tests.verdict_snapshot_maps:FixedWidth", {**GAMMA, "bound": 2 ** 0.5}),
    Scenario("identity-exact", "error-rate", "tests.verdict_snapshot_maps:identity",
             {"kernel": _load_later("tests.verdict_snapshot_maps:linear_kernel")}),
    Scenario("mixed-k", "error-rate", "tests.verdict_snapshot_maps:HalfWidthAbove16", GAMMA),
    Scenario("round-up-to-d-default-corners", "error-rate", "tests.verdict_snapshot_maps:RoundUpToD",
             {**GAMMA, "bound": 2 ** 0.5}, profile="default"),
    Scenario("arccos-default-corners", "error-rate", "rfverify.implementations.arccos:ArcCosineFeatures",
             {"kernel": "arccos", "kernel_params": {"order": 1}}, profile="default"),
    # ---------------------------------------------------------------- adapted-approximation (data-dependent maps)
    *(Scenario(name, "adapted-approximation", f"tests.test_adapted:{name}",
               {**GAMMA, "kernel": "rbf", "dim": 16,
                "domain": _load_later("rfverify.implementations.adapted:mixture_domain")})
      for name in ("fast_uab", "fast_sab", "ascent_uab", "wrong_target_sab")),
]


#: Checks whose scenarios also come from the mutant library: every bug caught by the check, and the first
#: equivalent mutant of its kind (which must pass).  unbiasedness has its own (above); the library's 18
#: unbiasedness bugs would add 20 s for branches those already reach.
LIBRARY_CHECKS = ("contract", "reproducibility", "error-rate", "concentration", "explore", "orthogonality",
                  "haar-determinant", "haar-entries", "haar-trace-moments", "haar-eigenangles", "haar-invariance",
                  "rule-contract", "exactness", "rule-unbiasedness", "efficiency", "transform-exactness",
                  "transform-linearity", "transform-input", "transform-dimension", "kernel-symmetry", "kernel-psd",
                  "kernel-normalisation", "kernel-composition")


def _library_scenarios() -> list[Scenario]:
    from rfverify.kinds import check_names
    from tests.mutants import BUGS, EQUIVALENT

    out = []
    for m in BUGS:
        for c in m.caught_by:
            # a seeding bug's numbers come from fresh OS entropy: its verdict is pinned, its numbers cannot be
            if c in LIBRARY_CHECKS and "quick" in m.profiles and m.category != "seeding":
                out.append(Scenario(f"bug:{m.name}", c, "", kind=m.kind, library=m.name))
    seen = set()
    for m in EQUIVALENT:
        if m.kind in seen:
            continue
        seen.add(m.kind)
        for c in check_names(m.kind):
            if c in LIBRARY_CHECKS and not (c == "explore" and m.kind == "feature-map"):
                out.append(Scenario(f"equivalent:{m.name}", c, "", kind=m.kind, library=m.name))
    return out


SCENARIOS += _library_scenarios()


def group(s: Scenario) -> str:
    """The test id of a scenario's group: the check (feature maps), else "kind.check"."""
    return s.check if s.kind == "feature-map" else f"{s.kind}.{s.check}"


def scenarios(which: str | None = None) -> list[Scenario]:
    """Every scenario, or one group's (see :func:`group`)."""
    return [s for s in SCENARIOS if which is None or group(s) == which]


def key(s: Scenario) -> str:
    return f"{s.kind}/{s.check}/{s.id}" if s.kind != "feature-map" else f"{s.check}/{s.id}"


def _load(target: str) -> Any:
    """``module:attr``, or ``module:factory()`` for an object made afresh for each run."""
    mod, attr = target.split(":")
    if attr.endswith("()"):
        return getattr(importlib.import_module(mod), attr[:-2])()
    return getattr(importlib.import_module(mod), attr)


def run(s: Scenario) -> dict[str, Any]:
    """The scenario's check result as a JSON document (what the report writes)."""
    from rfverify.kinds import get_kind

    if s.library is not None:
        from tests.mutants import LIBRARY

        m = next(m for m in LIBRARY if m.name == s.library)
        report = m.verify(seed=SEED, profile=s.profile, checks=[s.check])
    else:
        verify = get_kind(s.kind).verify_function()
        extra = {"metrics": False} if s.kind == "feature-map" else {}
        kwargs = {k: _load(v) if isinstance(v, _load_later) else v for k, v in s.kwargs.items()}
        report = verify(_load(s.target), checks=[s.check], seed=SEED, profile=s.profile, **extra, **kwargs)
    res = next(r for r in report.results if r.check == s.check)
    return json.loads(json.dumps(res.to_dict(), allow_nan=True))


def load() -> dict[str, Any]:
    return json.loads(DATA.read_text(encoding="utf-8")) if DATA.exists() else {}


_NUM = re.compile(r"[-+]?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?")


def _close(a: float, b: float, rtol: float, tiny: float = 0.0) -> bool:
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
        return True
    return (a == b or abs(a - b) <= rtol * max(abs(a), abs(b)) or abs(a - b) <= 1e-300
            or max(abs(a), abs(b)) < tiny)


def diff(expected: Any, got: Any, where: str = "", tiny: float | None = None) -> list[str]:
    """Differences between a recorded result and a fresh one (empty: the same).  ``tiny``: two numbers both below
    it count as equal (default :data:`TINY`: 0 in the recording's environment)."""
    tiny = TINY if tiny is None else tiny
    if isinstance(expected, dict) and isinstance(got, dict):
        out = [f"{where}.{k}: missing" for k in expected if k not in got]
        out += [f"{where}.{k}: unexpected" for k in got if k not in expected]
        for k in expected:
            if k in got:
                out += (_message_diff(expected[k], got[k], f"{where}.{k}", tiny) if k == "message"
                        else diff(expected[k], got[k], f"{where}.{k}", tiny))
        return out
    if isinstance(expected, list) and isinstance(got, list):
        if len(expected) != len(got):
            return [f"{where}: length {len(got)}, recorded {len(expected)}"]
        return [d for i, (e, g) in enumerate(zip(expected, got)) for d in diff(e, g, f"{where}[{i}]", tiny)]
    if isinstance(expected, (int, float)) and isinstance(got, (int, float)) \
            and not isinstance(expected, bool) and not isinstance(got, bool):
        return ([] if _close(float(expected), float(got), RTOL, tiny)
                else [f"{where}: {got!r}, recorded {expected!r}"])
    return [] if expected == got else [f"{where}: {got!r}, recorded {expected!r}"]


def _message_diff(expected: str, got: str, where: str, tiny: float = 0.0) -> list[str]:
    """The text with its numbers masked must be equal; each number to MESSAGE_DIGITS significant digits."""
    if _NUM.sub("#", expected) != _NUM.sub("#", got):
        return [f"{where}: text differs:\n  got      {got!r}\n  recorded {expected!r}"]
    tol = 10.0 ** (1 - MESSAGE_DIGITS)
    for a, b in zip(_NUM.findall(expected), _NUM.findall(got)):
        if not _close(float(a), float(b), tol, tiny):
            return [f"{where}: number {b} where {a} was recorded:\n  got      {got!r}\n  recorded {expected!r}"]
    return []


def record(check: str | None = None) -> None:
    data = load()
    for s in scenarios(check):
        data[key(s)] = run(s)
        print(f"recorded {key(s)}: {data[key(s)]['status']}")
    DATA.parent.mkdir(exist_ok=True)
    DATA.write_text(json.dumps(dict(sorted(data.items())), indent=1, allow_nan=True) + "\n", encoding="utf-8")
    if not same_environment():
        if ENVIRONMENT.exists() and check is not None:
            print(f"note: {ENVIRONMENT.name} is rewritten for this environment; the other groups were recorded in "
                  "another one: re-record them all (--record) so that every number is compared here")
        ENVIRONMENT.write_text(json.dumps(environment(), indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    if sys.argv[1:2] != ["--record"]:
        raise SystemExit(__doc__)
    np.seterr(all="ignore")
    record(sys.argv[2] if len(sys.argv) > 2 else None)
