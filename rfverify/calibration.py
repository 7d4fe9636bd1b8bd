"""Calibration studies: measured false-alarm rates and power, each with an exact interval.

A correct implementation run under N seeds estimates the false-alarm rate of
every check and of the whole suite (family-wise); a broken one estimates the
power of the check meant to catch it.  Seeds are 0..N-1 offsets of a study
seed, so a study is reproducible and its seeds differ from the default one.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable

from .runner import verify
from .stats import clopper_pearson

__all__ = ["StudyResult", "false_alarm_study", "power_study"]

#: Study seeds are STUDY_BASE + i, away from the default seed.
STUDY_BASE = 1_000_000


@dataclass(frozen=True)
class StudyResult:
    """Counts over seeds with 95% Clopper–Pearson intervals."""

    implementation: str
    seeds: int
    failures: int
    per_check: dict[str, int] = field(default_factory=dict)
    errors: int = 0
    seconds: float = 0.0
    failing_seeds: tuple[int, ...] = ()

    @property
    def rate(self) -> float:
        return self.failures / self.seeds

    def interval(self, confidence: float = 0.95) -> tuple[float, float]:
        return clopper_pearson(self.failures, self.seeds, confidence)

    def to_dict(self) -> dict[str, Any]:
        lo, hi = self.interval()
        return {"implementation": self.implementation, "seeds": self.seeds, "failures": self.failures,
                "rate": self.rate, "interval95": [lo, hi], "per_check": self.per_check, "errors": self.errors,
                "seconds": round(self.seconds, 1), "failing_seeds": list(self.failing_seeds)}


def _label(impl: Any) -> str:
    return impl if isinstance(impl, str) else getattr(impl, "__qualname__", type(impl).__name__)


def false_alarm_study(impl: Any, n_seeds: int, *, progress: Callable[[str], None] | None = None,
                      seeds: Iterable[int] | None = None, **verify_kw: Any) -> StudyResult:
    """Run the whole suite under ``n_seeds`` seeds on a correct implementation; count failures."""
    seed_list = list(seeds) if seeds is not None else [STUDY_BASE + i for i in range(n_seeds)]
    per_check: dict[str, int] = {}
    fails, errors, bad = 0, 0, []
    t0 = time.perf_counter()
    for i, s in enumerate(seed_list):
        report = verify(impl, seed=s, **verify_kw)
        failed = [r.check for r in report.results if r.status == "fail"]
        errors += sum(r.status == "error" for r in report.results)
        for c in failed:
            per_check[c] = per_check.get(c, 0) + 1
        if failed:
            fails += 1
            bad.append(s)
        if progress and (i + 1) % 10 == 0:
            progress(f"{_label(impl)}: {i + 1}/{len(seed_list)} seeds, {fails} failing")
    return StudyResult(_label(impl), len(seed_list), fails, per_check, errors, time.perf_counter() - t0, tuple(bad))


def power_study(impl: Any, check: str, n_seeds: int, *, seeds: Iterable[int] | None = None,
                **verify_kw: Any) -> StudyResult:
    """Run ``check`` under ``n_seeds`` seeds on a broken implementation; count how often it fails."""
    seed_list = list(seeds) if seeds is not None else [STUDY_BASE + i for i in range(n_seeds)]
    caught, bad = 0, []
    t0 = time.perf_counter()
    for s in seed_list:
        res = verify(impl, seed=s, checks=[check], **verify_kw)[check]
        if res.status == "fail":
            caught += 1
        else:
            bad.append(s)
    return StudyResult(_label(impl), len(seed_list), caught, {check: caught}, 0, time.perf_counter() - t0,
                       tuple(bad))
