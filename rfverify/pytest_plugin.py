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
item so the entry can be removed.  Options ``--rfverify-seed``,
``--rfverify-profile``, ``--rfverify-time-limit`` and ``--rfverify-memory-limit``
(shared with the CLI's ``--seed`` ...); the report header echoes seed and
profile.  State lives in ``config.stash``.

Every plug-in kind works the same way, with the options of its ``verify_*``
function::

    @parametrize_with_checks([haar_qr, my_sampler], kind="orthogonal", dim=8, group="O")
    def test_samplers(rfverify_case):
        rfverify_case()

Scale-out: items are independent (each check's randomness is keyed by the
check, never by order or worker), so ``pytest -n auto`` (pytest-xdist) gives
the verdicts of a serial run.  Each item carries the mark
``xdist_group("rfverify:<label>")``: with ``--dist loadgroup`` all checks of
one implementation run in one worker, which then builds its configuration and
shared samples (the Haar battery's matrices, the preflight) once; under the
other modes each worker builds them once per implementation it meets.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Iterable, Mapping, TypedDict, Union

import pytest

from rfverify.version import __version__
from rfverify.errors import UsageError
from rfverify.exit_status import plugin_outcome
from rfverify.options import SHARED_OPTIONS, parse_seed
from rfverify.profiles import get_profile
from rfverify.registry import PluginObject
from rfverify.results import CheckResult

if TYPE_CHECKING:
    from rfverify.guard import Limits
    from rfverify.kinds.base import KindConfig
    from rfverify.runner import Hosted
    from rfverify.supervise import Supervisor

    #: What runs an implementation's checks in a child process.
    Supervised = Union[Supervisor, Hosted]

__all__ = ["parametrize_with_checks", "Case"]



class _Settings(TypedDict, total=False):
    """The session's settings, from the command line and the ini file (``config.stash``)."""

    seed: int
    profile: str
    limits: Limits
    strict_space: bool


_SETTINGS = pytest.StashKey[_Settings]()

def _config_class(kind: str) -> type[KindConfig]:
    """The configuration class of ``kind``, from the one kind table (:data:`rfverify.kinds.KINDS`)."""
    from rfverify.kinds import get_kind

    return get_kind(kind).config_class()


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("rfverify", "rfverify conformance checks")
    for name, (default, text) in SHARED_OPTIONS.items():
        group.addoption(f"--rfverify-{name}", dest=f"rfverify_{name.replace('-', '_')}", default=None, help=text)
    strict = ("a plug-in refusing any configuration of the searched space fails explore (default: a clean refusal "
              "away from the main configuration sets it aside and the verdict states the refused region)")
    group.addoption("--rfverify-strict-space", dest="rfverify_strict_space", action="store_true", default=None,
                    help=strict)
    parser.addini("rfverify_strict_space", strict + "; the command-line option wins", type="bool", default=False)


def pytest_configure(config: pytest.Config) -> None:
    from rfverify.supervise import freeze_settings

    freeze_settings()  # before the test modules (and the plug-ins they import) are collected
    seed = config.getoption("rfverify_seed", default=None)
    profile = config.getoption("rfverify_profile", default=None)
    from rfverify.guard import Limits

    settings: _Settings = {
        "seed": parse_seed(seed if seed is not None else SHARED_OPTIONS["seed"][0]),
        "profile": get_profile(profile or SHARED_OPTIONS["profile"][0]).name,
    }
    settings["limits"] = Limits.resolve(settings["profile"], config.getoption("rfverify_time_limit", default=None),
                                        config.getoption("rfverify_memory_limit", default=None))
    option = config.getoption("rfverify_strict_space", default=None)
    settings["strict_space"] = bool(option) if option is not None else bool(config.getini("rfverify_strict_space"))
    config.stash[_SETTINGS] = settings
    config.addinivalue_line("markers", "xdist_group(name): pytest-xdist --dist loadgroup runs a group in one worker")


def pytest_report_header(config: pytest.Config) -> str:
    import numpy
    import scipy

    s = config.stash.get(_SETTINGS, _Settings())
    return (f"rfverify {__version__}: seed={s.get('seed')}, profile={s.get('profile')} "
            f"(numpy {numpy.__version__}, scipy {scipy.__version__})")


class _Shared:
    """One implementation's configuration, supervised child and preflight result, built once per process and
    (seed, profile).

    Shared by the cases of that implementation, as :func:`rfverify.runner.run` shares one configuration
    (and one child process, :mod:`rfverify.supervise`) between its checks; the verdicts do not depend on it
    (every stream is keyed by its check).  A child that crashes or hangs fails the item it was running; the
    next item gets a fresh child.
    """

    def __init__(self) -> None:
        self._built: dict[tuple[int, str, bool], tuple[KindConfig, Supervised | None, str | None]] = {}

    def get(self, case: "Case", seed: int, profile: str, limits: Limits | None,
            strict_space: bool = False) -> tuple[KindConfig, Supervised | None, str | None]:
        key = (seed, profile, strict_space)
        if key not in self._built:
            from rfverify.guard import Limits
            from rfverify.runner import preflight, supervisor
            from rfverify.supervise import isolation_wanted

            config = _config_class(case.kind)(case.implementation, seed=seed, profile=profile,
                                              name=case.label or None, **case.options)
            config.strict_space = strict_space
            if case.corner_xfail:  # expected failures at one corner (CHECK@KEY=VALUE), judged by the checks
                from rfverify.corners import split_xfail

                setattr(config, "corner_xfail", split_xfail(dict(case.corner_xfail))[1])  # the feature map's
            limits = limits if limits is not None else Limits.resolve(config.profile.name)
            if isolation_wanted():
                sup = supervisor(config, limits)
                self._built[key] = (config, sup, sup.preflight())
            else:
                self._built[key] = (config, None, preflight(config, limits))
        return self._built[key]


@dataclass(frozen=True)
class Case:
    """One (implementation, check) pair of plug-in ``kind`` with the configuration to run it under."""

    #: The plug-in (its object, or its ``MODULE:ATTR`` name).
    implementation: PluginObject
    check: str
    options: Mapping[str, Any] = field(default_factory=dict)
    #: The reason, or {profile: reason} for an expected failure at some profiles only.
    xfail_reason: str | Mapping[str, str] | None = None
    label: str = ""
    kind: str = "feature-map"
    shared: _Shared = field(default_factory=_Shared, compare=False, repr=False)
    #: Expected failures at one corner, ``(("check@key=value", reason), ...)`` (every check of the implementation).
    corner_xfail: tuple[tuple[str, str], ...] = ()

    def run(self, seed: int, profile: str, limits: Limits | None = None, strict_space: bool = False) -> CheckResult:
        """The check's result (never an exception for a misbehaving plug-in: status ``error``); ``strict_space``:
        a refusal anywhere in the explored space fails ``explore`` (:mod:`rfverify.refusals`)."""
        from rfverify.kinds import checks_for
        from rfverify.runner import apply_xfail, run_check

        config, sup, problem = self.shared.get(self, seed, profile, limits, strict_space)
        spec = next(s for s in checks_for(self.kind) if s.name == self.check)
        if sup is None:
            result = run_check(config, spec, problem, limits)
        else:
            _keep_few_children(sup)
            result = sup.run_check(spec, problem)
        reason = self.xfail_reason
        if isinstance(reason, Mapping):
            reason = reason.get(profile)
        return apply_xfail(result, reason)


def _per_profile_xfail(xfail: object) -> tuple[dict[str, str] | None, dict[str, str | dict[str, str]] | None]:
    """``{check: reason}`` or ``{check: {profile: reason}}`` validated; also the flat form for name checks."""
    from rfverify.profiles import PROFILES

    if xfail is None:
        return None, None
    if not isinstance(xfail, Mapping):
        raise UsageError(f"xfail must be a mapping {{check: reason}} or {{check: {{profile: reason}}}}, got "
                         f"{type(xfail).__name__}")
    flat: dict[str, str] = {}
    out: dict[str, str | dict[str, str]] = {}
    for check, reason in xfail.items():
        if isinstance(reason, Mapping):
            for prof, why in reason.items():
                if prof not in PROFILES:
                    raise UsageError(f"xfail[{check!r}]: unknown profile {prof!r}; use {', '.join(PROFILES)}")
                if not isinstance(why, str) or not why.strip():
                    raise UsageError(f"xfail[{check!r}][{prof!r}] must be a non-empty reason, got {why!r}")
            flat[check] = "; ".join(f"{p}: {w}" for p, w in reason.items()) or "-"
            out[check] = dict(reason)
        else:
            flat[check] = reason
            out[check] = reason
    return flat, out


#: Supervisors with a live child, least recently used first; more than :data:`_LIVE_CHILDREN` and the
#: oldest child is ended (its next item forks a fresh one), so a session over many implementations never
#: keeps one idle process per implementation.
_RECENT: "dict[int, Supervised]" = {}
_LIVE_CHILDREN = 2


def _keep_few_children(sup: Supervised) -> None:
    _RECENT.pop(id(sup), None)
    _RECENT[id(sup)] = sup
    while len(_RECENT) > _LIVE_CHILDREN:
        oldest = next(iter(_RECENT))
        _RECENT.pop(oldest).close()


def pytest_sessionfinish(session: pytest.Session) -> None:
    """End every supervised child of the session (:mod:`rfverify.supervise`)."""
    while _RECENT:
        _RECENT.popitem()[1].close()


@dataclass
class BoundCase:
    """A :class:`Case` bound to the session's seed and profile; call it in the test body."""

    case: Case
    seed: int
    profile: str
    nodeid: str
    limits: Limits | None = None
    strict_space: bool = False

    def __call__(self) -> CheckResult:
        result = self.case.run(self.seed, self.profile, self.limits, self.strict_space)
        rerun = (f"pytest '{self.nodeid}' --rfverify-seed {self.seed} --rfverify-profile {self.profile}"
                 + (" --rfverify-strict-space" if self.strict_space else ""))
        outcome = plugin_outcome(result.status)  # rfverify.exit_status decides; pytest only acts on it
        if outcome == "pass":
            return result
        if outcome == "skip":
            pytest.skip(result.message)
        if outcome == "xfail":
            pytest.xfail(result.message)
        pytest.fail(result.explain() + f"\n  rerun: {rerun}", pytrace=False)
        raise AssertionError("unreachable")  # pragma: no cover


@pytest.fixture
def rfverify_case(request: pytest.FixtureRequest) -> BoundCase:
    """The check case of a test parametrised with :func:`parametrize_with_checks`."""
    if not hasattr(request, "param"):
        raise pytest.UsageError("rfverify_case is only available in tests decorated with parametrize_with_checks")
    settings = request.config.stash[_SETTINGS]
    return BoundCase(request.param, settings["seed"], settings["profile"], request.node.nodeid, settings["limits"],
                     settings.get("strict_space", False))


def _label(impl: object) -> str:
    if isinstance(impl, str):
        return impl.split(":")[-1]
    if isinstance(impl, type) or callable(impl) and hasattr(impl, "__qualname__"):
        return impl.__qualname__
    return type(impl).__name__


def parametrize_with_checks(implementations: object, *, kind: str = "feature-map", checks: Iterable[str] | None = None,
                            xfail: Mapping[str, Any] | None = None, ids: Iterable[str] | None = None,
                            **options: Any) -> pytest.MarkDecorator:
    """Parametrise a test over every (implementation, check) pair of plug-in ``kind``; ids ``impl[check]``.

    ``kind``: ``feature-map`` (default), ``orthogonal``, ``transform``,
    ``quadrature`` or ``kernel`` (:data:`rfverify.kinds.KINDS`).  ``options`` are those of the
    kind's ``verify_*`` function: for feature maps :func:`rfverify.verify`'s
    (``kernel``, ``kernel_params``, ``dim``, ``domain``, ``bound``, ``unbiased``,
    ``bias_bound``), for orthogonal samplers ``dim`` and ``group``, for transforms
    ``dim``, ``matrix``, ``inplace``, for quadrature rules ``dim``, ``degree``,
    ``unbiased``.  Seed, profile and limits come from the command line.
    ``xfail``: ``{check: reason}`` (expected to fail at every profile), ``{"check@n_components=1": reason}``
    (expected to fail at that corner only, the main verdict judged; :mod:`rfverify.corners`) or
    ``{check: {profile: reason}}`` (expected to fail at those profiles only; at
    any other profile the check must pass) -- a defect a small budget cannot
    see (a 2 % bias at the quick profile) is declared where it is caught.
    Configuration errors (unknown kind, kernel, option, check or expected-failure
    name) raise at collection.
    """
    from rfverify.kinds import checks_for
    from rfverify.runner import select

    config_class = _config_class(kind)
    if not isinstance(implementations, (list, tuple)):
        implementations = [implementations]
    labels = list(ids) if ids is not None else [_label(i) for i in implementations]
    if len(labels) != len(implementations):
        raise ValueError("ids must name every implementation")
    corner = tuple((k, v) for k, v in dict(xfail or {}).items() if isinstance(k, str) and "@" in k)
    xfail = {k: v for k, v in dict(xfail or {}).items() if not (isinstance(k, str) and "@" in k)} or None
    flat, xfail = _per_profile_xfail(xfail)
    specs = select(checks_for(kind), kind, checks, flat)
    cases = []
    for impl, label in zip(implementations, labels):
        try:
            built = config_class(impl, name=label, **options)  # validate now, at collection
        except TypeError as exc:  # an option the kind does not take
            raise UsageError(f"{kind}: {exc}") from None
        if corner:
            from rfverify.runner import bind_corner_xfail

            bind_corner_xfail(built, dict(corner))  # a malformed corner or a check without corners: at collection
        shared = _Shared()
        for spec in specs:
            case = Case(impl, spec.name, dict(options), (xfail or {}).get(spec.name), label, kind, shared, corner)
            cases.append(pytest.param(case, id=f"{label}[{spec.name}]",
                                      marks=pytest.mark.xdist_group(name=f"rfverify:{label}")))
    return pytest.mark.parametrize("rfverify_case", cases, indirect=True)
