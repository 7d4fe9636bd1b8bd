"""The pytest plugin (entry point ``pytest11``): one test item per check.

In the spirit of scikit-learn's ``parametrize_with_checks``::

    from sklearn.kernel_approximation import RBFSampler
    from rfverify.pytest_plugin import parametrize_with_checks

    @parametrize_with_checks([RBFSampler], kernel="rbf", kernel_params={"gamma": 0.5},
                             bound=2 ** 0.5)
    def test_rbf_sampler(rfverify_case):
        rfverify_case()

gives items ``test_rbf_sampler[RBFSampler[unbiasedness]]`` and so on, selectable
with ``-k``.  ``xfail={"check": "reason"}`` marks expected failures: an unknown
name is an error at collection, and an expected failure that passes fails the
item so the entry can be removed.  Options ``--rfverify-seed`` and
``--rfverify-profile`` (shared with the CLI's ``--seed``/``--profile``); the
report header echoes them.  State lives in ``config.stash``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Mapping

import pytest

from . import __version__
from .options import SHARED_OPTIONS, parse_seed
from .profiles import get_profile
from .results import CheckResult

__all__ = ["parametrize_with_checks", "Case"]

_SETTINGS = pytest.StashKey[dict]()


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("rfverify", "rfverify conformance checks")
    for name, (default, text) in SHARED_OPTIONS.items():
        group.addoption(f"--rfverify-{name}", dest=f"rfverify_{name.replace('-', '_')}", default=None, help=text)


def pytest_configure(config: pytest.Config) -> None:
    seed = config.getoption("rfverify_seed", default=None)
    profile = config.getoption("rfverify_profile", default=None)
    settings = {
        "seed": parse_seed(seed if seed is not None else SHARED_OPTIONS["seed"][0]),
        "profile": get_profile(profile or SHARED_OPTIONS["profile"][0]).name,
    }
    config.stash[_SETTINGS] = settings


def pytest_report_header(config: pytest.Config) -> str:
    import numpy
    import scipy

    s = config.stash.get(_SETTINGS, {})
    return (f"rfverify {__version__}: seed={s.get('seed')}, profile={s.get('profile')} "
            f"(numpy {numpy.__version__}, scipy {scipy.__version__})")


@dataclass(frozen=True)
class Case:
    """One (implementation, check) pair with the configuration to run it under."""

    implementation: Any
    check: str
    options: Mapping[str, Any] = field(default_factory=dict)
    xfail_reason: str | None = None
    label: str = ""

    def run(self, seed: int, profile: str) -> CheckResult:
        from .registry import checks_for
        from .runner import FeatureMapConfig, _apply_xfail, run_check

        config = FeatureMapConfig(self.implementation, seed=seed, profile=profile, name=self.label or None,
                                  **self.options)
        spec = next(s for s in checks_for("feature-map") if s.name == self.check)
        result = run_check(config, spec, config.preflight())
        return _apply_xfail(result, self.xfail_reason)


@dataclass
class BoundCase:
    """A :class:`Case` bound to the session's seed and profile; call it in the test body."""

    case: Case
    seed: int
    profile: str
    nodeid: str

    def __call__(self) -> CheckResult:
        result = self.case.run(self.seed, self.profile)
        rerun = f"pytest '{self.nodeid}' --rfverify-seed {self.seed} --rfverify-profile {self.profile}"
        if result.status == "pass":
            return result
        if result.status == "skip":
            pytest.skip(result.message)
        if result.status == "xfail":
            pytest.xfail(result.message)
        pytest.fail(result.explain() + f"\n  rerun: {rerun}", pytrace=False)
        raise AssertionError("unreachable")  # pragma: no cover


@pytest.fixture
def rfverify_case(request: pytest.FixtureRequest) -> BoundCase:
    """The check case of a test parametrised with :func:`parametrize_with_checks`."""
    if not hasattr(request, "param"):
        raise pytest.UsageError("rfverify_case is only available in tests decorated with parametrize_with_checks")
    settings = request.config.stash[_SETTINGS]
    return BoundCase(request.param, settings["seed"], settings["profile"], request.node.nodeid)


def _label(impl: Any) -> str:
    if isinstance(impl, str):
        return impl.split(":")[-1]
    if isinstance(impl, type) or callable(impl) and hasattr(impl, "__qualname__"):
        return impl.__qualname__
    return type(impl).__name__


def parametrize_with_checks(implementations: Any, *, checks: Iterable[str] | None = None,
                            xfail: Mapping[str, str] | None = None, ids: Iterable[str] | None = None,
                            **options: Any) -> Callable[[Any], Any]:
    """Parametrise a test over every (implementation, check) pair; ids ``impl[check]``.

    ``options`` are those of :func:`rfverify.verify` (``kernel``, ``kernel_params``,
    ``dim``, ``domain``, ``bound``, ``unbiased``, ``bias_bound``); seed and profile
    come from the command line.  Configuration errors (unknown kernel, unknown
    check or expected-failure name) raise at collection.
    """
    from .runner import FeatureMapConfig, select

    if not isinstance(implementations, (list, tuple)):
        implementations = [implementations]
    labels = list(ids) if ids is not None else [_label(i) for i in implementations]
    if len(labels) != len(implementations):
        raise ValueError("ids must name every implementation")
    specs = select("feature-map", list(checks) if checks is not None else None, xfail)
    cases = []
    for impl, label in zip(implementations, labels):
        FeatureMapConfig(impl, name=label, **options)  # validate now, at collection
        for spec in specs:
            cases.append(pytest.param(Case(impl, spec.name, dict(options), (xfail or {}).get(spec.name), label),
                                      id=f"{label}[{spec.name}]"))
    return pytest.mark.parametrize("rfverify_case", cases, indirect=True)
