"""Verify many implementations at once, on any executor: the Python API and the CLI's work units.

:func:`verify_many` verifies a list of implementations (each a ``MODULE:ATTR`` name, imported where
its unit runs) of one kind with the same options, in-process, in a local process pool (``jobs``) or
on a Dask cluster (``scheduler``), and returns their reports in the order given — the same reports
whatever the executor (each check's randomness comes from the root seed and the check's key).
``rfverify check feature-map A:X B:Y ...`` and ``rfverify report --all`` run through it.

>>> from rfverify.studies.batch import verify_many
>>> reports = verify_many(["rfverify.implementations.rff:RandomFourierFeatures"], kernel="rbf",
...                       kernel_params={"gamma": 0.5}, profile="quick", checks=["contract"])
>>> [(r.implementation, r["contract"].status) for r in reports]
[('rfverify.implementations.rff:RandomFourierFeatures', 'pass')]
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable, Iterable, Mapping, Sequence

from rfverify.errors import UsageError
from rfverify.seeding import DEFAULT_SEED

if TYPE_CHECKING:
    from rfverify.executors import Executor, Outcome, Task
    from rfverify.results import Report

__all__ = ["verify_many", "check_tasks", "zoo_tasks", "reports_from", "lost_report", "default_jobs"]

#: Options naming a callable by ``MODULE:ATTR``: shipped as text, imported on the worker.
_CALLABLE_OPTIONS = ("kernel", "domain", "matrix", "feature_map")


def _verifier(kind: str) -> Callable[..., Report]:
    """The Python entry point of ``kind`` from the kind table (an unknown kind is a UsageError)."""
    from rfverify.kinds import get_kind

    return get_kind(kind).verify_function()


def verify_one(kind: str, implementation: str, seed: int, profile: str, checks: tuple[str, ...] | None,
               options: Mapping[str, object]) -> Report:
    """One unit: verify ``implementation`` (``MODULE:ATTR``) with the verifier of ``kind``; a Report."""
    from rfverify.adapters import load_object

    opts = dict(options)
    for name in _CALLABLE_OPTIONS:
        value = opts.get(name)
        if isinstance(value, str) and ":" in value:
            opts[name] = load_object(value)
    return _verifier(kind)(implementation, seed=seed, profile=profile,
                           checks=None if checks is None else list(checks), **opts)


def verify_zoo_entry(name: str, seed: int, profile: str) -> Report:
    """One unit: verify the zoo entry ``name``; a Report."""
    from rfverify.studies.zoo import verify_entry, zoo_entries

    return verify_entry(zoo_entries([name])[0], seed=seed, profile=profile)


def _module_of(spec: object) -> list[str]:
    return [spec] if isinstance(spec, str) and ":" in spec else []


def check_tasks(implementations: Sequence[str], *, kind: str, seed: int, profile: str,
                checks: Iterable[str] | None, options: Mapping[str, object]) -> list[Task]:
    """The work units of a many-implementation check, one per implementation."""
    from rfverify.executors import Task

    impls = list(implementations)
    for spec in impls:
        if not isinstance(spec, str) or ":" not in spec:
            raise UsageError(f"verify_many takes implementations as MODULE:ATTR names (they are imported where "
                             f"each unit runs), got {spec!r}")
    dup = sorted({s for s in impls if impls.count(s) > 1})
    if dup:
        raise UsageError(f"implementation listed twice: {', '.join(dup)}")
    chosen = None if checks is None else tuple(checks)
    needs = [m for name in _CALLABLE_OPTIONS for m in _module_of(options.get(name))]
    return [Task(f"check-{kind}-{spec}", "rfverify.studies.batch:verify_one",
                 (kind, spec, seed, profile, chosen, dict(options)), tuple([spec, *needs])) for spec in impls]


def default_jobs(units: int, scheduler: bool = False) -> int:
    """``--jobs`` when not given (``rfverify report``): every usable core, at most one per unit; 1 with
    ``--scheduler`` (the cluster's workers are the jobs)."""
    from rfverify.executors import usable_cores

    return 1 if scheduler else max(1, min(usable_cores(), units))


def zoo_tasks(names: Sequence[str], *, seed: int, profile: str) -> list[Task]:
    """The work units of a zoo report, one per entry (shipped by name), each with its cost hint
    (:data:`rfverify.studies.zoo.ZOO_COST_HINT`) so that pools start the costliest entries first."""
    from rfverify.executors import Task
    from rfverify.studies.zoo import cost_hint, zoo_entries

    return [Task(f"zoo-{e.name}", "rfverify.studies.batch:verify_zoo_entry", (e.name, seed, profile),
                 tuple(_module_of(e.implementation)), cost=cost_hint(e.name)) for e in zoo_entries(list(names))]


def lost_report(kind: str, implementation: str, *, seed: int, profile: str, checks: Iterable[str] | None,
                message: str) -> Report:
    """The report of a unit that produced none (its worker died twice, or it raised): every selected
    check with status ``error`` and the reason, so a lost unit is never a silent gap."""
    from rfverify.version import __version__
    from rfverify.kinds import checks_for
    from rfverify.results import CheckResult, Report

    names = [s.name for s in checks_for(kind)] if checks is None else list(checks)
    text = f"did not run: {message}"
    return Report(implementation=implementation, kind=kind, target={}, seed=seed, profile=profile, config={},
                  results=tuple(CheckResult(c, implementation, "error", text, seed=seed) for c in names),
                  version=__version__)


def reports_from(outcomes: Sequence[Outcome], units: Sequence[tuple[str, str]], *, seed: int, profile: str,
                 checks: Iterable[str] | None = None) -> list[Report]:
    """Reports from outcomes; ``units`` gives each one's (kind, implementation) for :func:`lost_report`."""
    out = []
    for o, (kind, impl) in zip(outcomes, units):
        out.append(o.value if o.ok else lost_report(kind, impl, seed=seed, profile=profile, checks=checks,
                                                    message=o.error or "no result"))
    return out


def verify_many(implementations: Sequence[str], *, kind: str = "feature-map", seed: int = DEFAULT_SEED,
                profile: str = "default", checks: Iterable[str] | None = None, jobs: int = 1,
                scheduler: str | None = None, executor: Executor | None = None,
                progress: Callable[[int, int, float], None] | None = None, **options: object) -> list[Report]:
    """Verify each of ``implementations`` (``MODULE:ATTR`` names) as ``kind`` with the same ``options``.

    ``options`` are the keywords of the kind's verifier (for feature maps those of
    :func:`rfverify.verify`: ``kernel``, ``kernel_params``, ``dim``, ``bound``, ...); a kernel or
    domain callable is given by its ``MODULE:ATTR`` name.  Where the units run: ``executor`` (an
    :class:`rfverify.executors.Executor`, kept open), else ``scheduler`` (``"tcp://HOST:PORT"`` or
    ``"local:N"``: Dask), else ``jobs`` local processes.  Returns the reports in the order given; a
    unit lost to a dying worker gives a report whose checks are ``error``.
    """
    from rfverify.executors import make_executor

    _verifier(kind)
    tasks = check_tasks(implementations, kind=kind, seed=seed, profile=profile, checks=checks, options=options)
    own = executor is None
    ex = executor if executor is not None else make_executor(jobs, scheduler)
    try:
        outcomes = ex.map(tasks, progress=progress)
    finally:
        if own:
            ex.close()
    return reports_from(outcomes, [(kind, i) for i in implementations], seed=seed, profile=profile, checks=checks)
