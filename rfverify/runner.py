"""Run the registered checks on one implementation and collect a :class:`Report` — for any kind.

The runner knows nothing about what a plug-in is: it asks the configuration (a
:class:`rfverify.kinds.base.KindConfig`) for its checks, a context per check, the preflight and the report
header, and puts every call under the guard (:mod:`rfverify.containment.guard`).
"""

from __future__ import annotations

import contextvars
from typing import TYPE_CHECKING, Callable, Iterable, Iterator, Mapping, Protocol, TypeVar, cast

from rfverify.version import __version__
from rfverify.errors import PLUGIN_RAISED, PluginError, UsageError
from rfverify.containment.guard import Limits, exhaustion, guarded
from rfverify.jsontypes import JSONRecord
from rfverify.messages import failure_message
from rfverify.registry import CheckSpec, MeasuredConfig, RunnableConfig
from rfverify.results import CheckResult, Report
from rfverify.validation import as_check_names, as_xfail, show

if TYPE_CHECKING:
    from rfverify.containment.supervise import Supervisor

T = TypeVar("T")


class PluginProcess(Protocol):
    """The plug-in's own process (:class:`rfverify.containment.host.Host`) as :class:`Hosted` drives it: one scope of
    operations per check."""

    #: The last scope killed the process.
    scope_crashed: bool

    def set_limits(self, limits: Limits) -> None:
        """The limits of every scope."""

    def begin(self, what: str) -> None:
        """Start the scope ``what``."""

    def end(self) -> str | None:
        """End the scope; what went wrong in it, or None."""

    def close(self) -> None:
        """End the process."""


class HostedConfig(RunnableConfig, Protocol):
    """A configuration whose plug-in may live in its own process (:mod:`rfverify.containment.host`; feature maps)."""

    #: The plug-in's process, or None when the plug-in runs in this process.
    host: PluginProcess | None

    def in_process(self) -> None:
        """Bring the plug-in into this process (isolation off)."""

__all__ = ["run_check", "run", "select", "preflight", "supervisor", "CHECK_HOOK", "apply_xfail", "bind_corner_xfail"]

#: Progress hook, ``hook(check, index, total, result)``, called before (result None) and after each
#: check by :func:`run`; set by ``rfverify report`` for its progress display (never affects results).
CHECK_HOOK: contextvars.ContextVar[Callable[[str, int, int, CheckResult | None], None] | None] = \
    contextvars.ContextVar("rfverify_check_hook", default=None)


def apply_xfail(result: CheckResult, reason: str | None) -> CheckResult:
    from dataclasses import replace

    if reason is None:
        return result
    if result.status == "fail":
        return replace(result, status="xfail", message=f"expected failure ({reason}): {result.message}")
    if result.status == "error" and result.details.get("error_source") == PLUGIN_RAISED:
        # as pytest's xfail covers a test that raises: the plug-in raising (or returning garbage) where the check
        # needed it is the declared failure; never an rfverify internal error or a usage error
        return replace(result, status="xfail", message=f"expected failure ({reason}): the plug-in failed: "
                                                       f"{result.message}")
    if result.status == "pass":
        return replace(result, status="fail", message=failure_message(
            f"expected to fail ({reason}) but passed", f"pass: {result.message}",
            "fail, as declared in the expected failures",
            cause=f"the bug is fixed or the declaration is stale — remove {result.check!r} from the expected "
                  "failures"))
    return result


def _limits(config: RunnableConfig, limits: Limits | None) -> Limits:
    return limits if limits is not None else Limits.resolve(config.profile.name)


def preflight(config: RunnableConfig, limits: Limits | None = None) -> str | None:
    """``config.preflight()`` (one call into the plug-in) under the guard; the problem, or None."""
    try:
        with guarded(config.plugin_name, "the preflight call", _limits(config, limits)):
            return config.preflight()
    except PluginError as exc:
        return str(exc)
    except UsageError:
        raise
    except BaseException as exc:  # noqa: BLE001 - a report is left behind whatever happened
        _reraise_interrupt(exc)
        return _unexpected(exc, config.plugin_name, "the preflight call")


def run_check(config: RunnableConfig, spec: CheckSpec, preflight_error: str | None = None,
              limits: Limits | None = None) -> CheckResult:
    """Run one check, turning plug-in misbehaviour into status ``error`` (never an exception).

    The check runs inside :class:`rfverify.containment.guard.guarded`: a time limit, a
    memory budget, no printing, no global random state (``limits``: the
    profile's defaults when None).
    """
    ctx = config.context(spec)
    if preflight_error is not None:
        return ctx.result("error", preflight_error)
    if spec.applies is not None:
        reason = spec.applies(ctx)
        if reason:
            return ctx.result("skip", reason)
    try:
        with guarded(ctx.name, f"check {spec.name}", _limits(config, limits)):
            return spec.func(ctx)
    except PluginError as exc:
        return ctx.result("error", str(exc), details={"error_source": PLUGIN_RAISED})
    except UsageError as exc:
        return ctx.result("error", f"configuration: {exc}")
    except BaseException as exc:  # noqa: BLE001 - a report is left behind whatever happened
        _reraise_interrupt(exc)
        message = _unexpected(exc, ctx.name, f"check {spec.name}")
        return ctx.result("error", message, details={"error_source": PLUGIN_RAISED}
                          if exhaustion(exc) is not None or not isinstance(exc, Exception) else None)


def _reraise_interrupt(exc: BaseException) -> None:
    """The user's Ctrl-C stops the run (exit 130); in a supervised child (SIGINT ignored there) a
    KeyboardInterrupt can only be the plug-in's, and is reported like any other of its exceptions."""
    import rfverify.containment.guard as guard

    if isinstance(exc, KeyboardInterrupt) and not guard.IN_CHILD:
        raise exc


def _unexpected(exc: BaseException, plugin: str, what: str) -> str:
    """The message for an exception that escaped the guard's calls: the process ran out of something (file
    descriptors, memory, stack: the plug-in's doing), a BaseException only plug-in code raises, or a bug of
    ours.  Read without trusting ``exc`` (its ``__str__`` may raise or return a ``str`` subclass) and without
    any absolute path."""
    from rfverify.containment.guard import plugin_error

    if exhaustion(exc) is not None or not isinstance(exc, Exception):
        return str(plugin_error(exc, plugin, f"{what} (outside a call into the plug-in)"))
    from rfverify.text import plain, strip_paths, type_name

    return strip_paths(f"rfverify internal error in {what}: {type_name(exc)}: {plain(exc)[:2000]} (please report it "
                       "with the reproduce command)")


def select(specs: list[CheckSpec], kind: str, checks: Iterable[str] | None,
           xfail: Mapping[str, str] | None) -> list[CheckSpec]:
    """The checks of ``specs`` named in ``checks`` (all when None); unknown check or expected-failure names
    are a one-line UsageError listing the kind's checks."""
    checks, xfail = as_check_names(checks), as_xfail(xfail)
    known = {s.name for s in specs}
    for label, names in (("check", checks or ()), ("expected failure", (xfail or {}).keys())):
        unknown = sorted(set(names) - known)
        if unknown:
            raise UsageError(f"unknown {label} name(s) {', '.join(map(show, unknown))}; {kind} checks are: "
                             f"{', '.join(s.name for s in specs)}")
    if checks is not None:
        wanted = set(checks)
        specs = [s for s in specs if s.name in wanted]
    return specs


def run(config: RunnableConfig, *, checks: Iterable[str] | None = None, xfail: Mapping[str, str] | None = None,
        time_limit: float | None = None, memory_limit: int | str | None = None,
        metrics: bool | None = None, isolate: bool | None = None, strict_space: bool | None = None) -> Report:
    """Run the selected checks of ``config.kind`` (any kind's :class:`~rfverify.kinds.base.KindConfig`).

    ``metrics``: also compute ``config.metrics()`` (kinds that have it) into the report's
    ``metrics`` block; None: only when every check runs (no selection).

    ``time_limit`` / ``memory_limit``: per check, see :class:`rfverify.containment.guard.Limits` (None: the profile's).

    ``isolate``: run the plug-in in a supervised child process (:mod:`rfverify.containment.supervise`; a crash, hard
    exit, hang or runaway allocation is that check's ``error``).  None: on, unless the environment variable
    ``RFVERIFY_INPROCESS=1`` asks for one process (to debug a plug-in).

    ``strict_space``: a refusal anywhere in the explored space fails ``explore`` (:mod:`rfverify.refusals`;
    None: the configuration's own setting, off by default).
    """
    from rfverify.containment.supervise import isolation_wanted

    if strict_space is not None:
        config.strict_space = bool(strict_space)

    xfail = bind_corner_xfail(config, xfail)
    specs = select(config.checks(), config.kind, checks, xfail)
    limits = Limits.resolve(config.profile.name, time_limit, memory_limit)
    want_metrics = bool((checks is None if metrics is None else metrics) and hasattr(config, "metrics"))
    if getattr(config, "host", None) is not None and not isolation_wanted(isolate):
        cast(HostedConfig, config).in_process()
    if isolation_wanted(isolate):
        with supervisor(config, limits) as sup:
            problem = sup.preflight()
            pending = sup.iter_checks(specs, problem)  # requests sent ahead; results in spec order
            results = _run_all(specs, xfail, lambda s: next(pending))
            header, block = sup.finish(want_metrics and problem is None)
        return report_of(header, results, block)
    problem = preflight(config, limits)
    results = _run_all(specs, xfail, lambda s: run_check(config, s, problem, limits))
    block = None
    if want_metrics and problem is None:
        block = _metrics(config, limits)
    return report_of(config.header(), results, block)


def report_of(header: JSONRecord, results: tuple[CheckResult, ...],
              metrics: dict[str, object] | None) -> Report:
    """The report of a run from its configuration's header (:meth:`rfverify.kinds.base.KindConfig.header`): the
    header's ``target`` is the report's ``kernel`` field, the key it has had in the JSON schema since its first
    version, read back as :attr:`Report.target`."""
    fields = dict(header)
    return Report(target=fields.pop("target"), **fields, results=results, version=__version__, metrics=metrics)


def supervisor(config: RunnableConfig, limits: Limits) -> Supervisor | Hosted:
    """A :class:`rfverify.containment.supervise.Supervisor` for ``config``: its child runs this module's preflight,
    run_check and metrics (the pytest plugin's cases use it too)."""
    from rfverify.containment.supervise import Supervisor

    if getattr(config, "host", None) is not None:
        return Hosted(cast(HostedConfig, config), limits)
    return Supervisor(config, limits, config.plugin_name, (preflight, run_check, _metrics))


def bind_corner_xfail(config: RunnableConfig, xfail: Mapping[str, str] | None) -> dict[str, str] | None:
    """The check-wide expected failures; the corner-scoped ones (``CHECK@KEY=VALUE``) are validated and handed to
    the configuration (``config.corner_xfail``), whose statistical checks judge them corner by corner."""
    from rfverify.corners import split_xfail

    plain, scoped = split_xfail(as_xfail(xfail))
    if not scoped:
        return plain
    specs = {s.name: s for s in config.checks()}
    for check in scoped:
        spec = specs.get(check)
        if spec is None:
            select(config.checks(), config.kind, None, {check: "?"})  # the one-line error naming the checks
            raise UsageError(f"unknown check {check!r}")  # (select raised already)
        if config.kind != "feature-map" or not spec.statistical:
            raise UsageError(f"--xfail {check}@...: an expected failure at one corner applies to the statistical "
                             f"checks of a feature map ({', '.join(n for n, s in specs.items() if s.statistical)}), "
                             "which run at corner configurations; declare the whole check (--xfail CHECK=REASON) or "
                             "narrow the space (--space KEY=LO:HI)")
        if plain and check in plain:
            raise UsageError(f"--xfail {check} is declared for the whole check and at a corner: keep one")
    setattr(config, "corner_xfail", scoped)  # the feature-map configuration's statistical checks read it
    return plain


#: The harness's own guard while the plug-in runs in its process: no timer and no address-space cap here (the
#: plug-in's process has them); printing and the global random state are still watched.
_HARNESS_LIMITS = Limits(None, None)


class Hosted:
    """The checks of a configuration whose plug-in lives in its own process (:class:`rfverify.containment.host.Host`): each check
    runs here, with this process's numpy and scipy, as one scope of operations there; what a scope did wrong
    (printing, a changed random state, a death, a hang) is that check's ``error``.  The same requests as
    :class:`rfverify.containment.supervise.Supervisor` (preflight, run_check, iter_checks, finish, close)."""

    def __init__(self, config: HostedConfig, limits: Limits) -> None:
        assert config.host is not None
        self.config, self.host = config, config.host
        self.host.set_limits(limits)
        self.crashed = False

    def _scoped(self, what: str, fn: Callable[[], T]) -> tuple[T, str | None]:
        """``fn()`` as one scope in the plug-in's process, and what the scope did wrong.  What ``fn`` raised is
        raised, never replaced by the scope's end: a Ctrl-C from outside closes the plug-in's process, whose end
        would otherwise turn the user's interrupt into the check's error (exit 2)."""
        self.host.begin(what)
        try:
            out = fn()
        except BaseException:
            try:
                self.host.end()
            except Exception:  # noqa: BLE001 - the first fault is the one raised
                pass
            raise
        return out, self.host.end()

    def preflight(self) -> str | None:
        problem, found = self._scoped("the preflight call", lambda: preflight(self.config, _HARNESS_LIMITS))
        self.crashed = self.host.scope_crashed
        problem = problem if problem is not None else found
        if problem is not None and self.crashed:  # what the checks need without it (kinds that say)
            after = getattr(self.config, "after_failed_preflight", None)
            if after is not None:
                try:
                    self._scoped("the preflight's decisions", after)
                except Exception:  # noqa: BLE001 - then the checks run on the declarations alone
                    pass
        return problem

    def run_check(self, spec: CheckSpec, preflight_error: str | None = None) -> CheckResult:
        """One check here; a preflight that raised errors every check, one that crashed the first only."""
        if preflight_error is not None and (not self.crashed or spec.name == self.config.checks()[0].name):
            return self.config.context(spec).result("error", preflight_error)
        if preflight_error is not None:  # after a crash on the first calls: each other check in a fresh child
            self.host.close()
        result, problem = self._scoped(f"check {spec.name}", lambda: run_check(self.config, spec, None,
                                                                                 _HARNESS_LIMITS))
        if preflight_error is not None:
            self.host.close()
        if problem is not None and result.status != "error":  # a check's own error is its first fault, kept
            result = self.config.context(spec).result("error", problem, details={"error_source": PLUGIN_RAISED})
        return result

    def iter_checks(self, specs: list[CheckSpec], preflight_error: str | None = None) -> Iterator[CheckResult]:
        first = self.config.checks()[0].name
        for n, spec in enumerate(specs):
            if preflight_error is not None and self.crashed and n == 0 and first not in {s.name for s in specs}:
                yield self.config.context(spec).result("error", preflight_error)
            else:
                yield self.run_check(spec, preflight_error)

    def finish(self, metrics: bool) -> tuple[dict[str, object], dict[str, object] | None]:
        block = None
        if metrics:
            block, problem = self._scoped("the metrics", lambda: _metrics(self.config, _HARNESS_LIMITS))
            if problem is not None:
                block = {"error": problem}
        return self.config.header(), block

    def close(self) -> None:
        self.host.close()

    def __enter__(self) -> "Hosted":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _run_all(specs: list[CheckSpec], xfail: Mapping[str, str] | None,
             one: Callable[[CheckSpec], CheckResult]) -> tuple[CheckResult, ...]:
    """``one(spec)`` for each check in order, expected failures applied, the progress hook called."""
    hook = CHECK_HOOK.get()
    collected = []
    for i, s in enumerate(specs):
        if hook is not None:
            hook(s.name, i, len(specs), None)
        result = apply_xfail(one(s), (xfail or {}).get(s.name))
        if hook is not None:
            hook(s.name, i, len(specs), result)
        collected.append(result)
    return tuple(collected)


def _metrics(config: RunnableConfig, limits: Limits) -> dict[str, object]:
    """``config.metrics()`` under the guard; a misbehaving plug-in gives ``{"error": message}``."""
    try:
        with guarded(config.plugin_name, "the metrics", limits):
            return cast(MeasuredConfig, config).metrics()
    except PluginError as exc:
        return {"error": str(exc)}
    except UsageError:
        raise
    except BaseException as exc:  # noqa: BLE001 - a report is left behind whatever happened
        _reraise_interrupt(exc)
        return {"error": _unexpected(exc, config.plugin_name, "the metrics")}
