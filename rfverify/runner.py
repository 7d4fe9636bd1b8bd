"""Run the registered checks on one implementation and collect a :class:`Report`."""

from __future__ import annotations

import contextvars
import shlex
from typing import Any, Callable, Iterable, Mapping

import numpy as np

from rfverify import __version__
from rfverify.adapters import FeatureMapPlugin, _spec_of, as_feature_map
from rfverify.domains import DOMAINS
from rfverify.errors import PluginError, UsageError
from rfverify.guard import Limits, guarded
from rfverify.kernels import Kernel, as_kernel
from rfverify.profiles import Profile, get_profile
from rfverify.registry import CheckContext, CheckSpec, Declarations, checks_for, statistical_count
from rfverify.results import CheckResult, Report
from rfverify.seeding import DEFAULT_SEED, SeedSource
from rfverify.validation import as_check_names, as_flag, as_name, as_xfail, show

__all__ = ["verify", "check_names", "run_check", "run", "select", "preflight", "FeatureMapConfig"]

PREFLIGHT_M = 16
#: Progress hook, ``hook(check, index, total, result)``, called before (result None) and after each
#: check by :func:`run`; set by ``rfverify report`` for its progress display (never affects results).
CHECK_HOOK: contextvars.ContextVar[Callable[[str, int, int, CheckResult | None], None] | None] = \
    contextvars.ContextVar("rfverify_check_hook", default=None)
MAX_DIM = 65536


def check_names(kind: str = "feature-map") -> list[str]:
    """Names of the registered checks of ``kind``."""
    return [s.name for s in checks_for(kind)]


def _validate_dim(dim: Any) -> int:
    if isinstance(dim, bool) or not isinstance(dim, (int, np.integer)) or not (1 <= int(dim) <= MAX_DIM):
        raise UsageError(f"dim must be an integer in [1, {MAX_DIM}], got {dim!r}")
    return int(dim)


def _validate_bound(bound: Any) -> float | None:
    if bound is None:
        return None
    if isinstance(bound, (bool, np.bool_)):
        raise UsageError(f"bound must be a positive number, got {bound!r}")
    try:
        b = float(bound)
    except (TypeError, ValueError):
        raise UsageError(f"bound must be a positive number, got {bound!r}") from None
    if not np.isfinite(b) or b <= 0:
        raise UsageError(f"bound must be a positive finite number, got {bound!r}")
    return b


class FeatureMapConfig:
    """A validated configuration for verifying one feature map.

    Every plug-in kind has a config class with this interface: ``kind``,
    ``seeds``, ``profile``, ``label``, ``target()``, ``as_dict()``,
    ``context(spec)``, ``preflight()`` and ``reproduce(check)``; :func:`run`
    needs nothing else.
    """

    kind = "feature-map"

    def __init__(self, implementation: Any, *, kernel: str | Kernel | Callable[..., Any] = "rbf",
                 kernel_params: Mapping[str, Any] | None = None, dim: int = 16,
                 domain: str | Callable[..., Any] = "gaussian", bound: float | None = None,
                 unbiased: bool = True, bias_bound: float | None = None, seed: int = DEFAULT_SEED,
                 profile: str | Profile = "default", name: str | None = None,
                 kernel_spec: str | None = None, domain_spec: str | None = None,
                 data_dependent: bool | None = None) -> None:
        self.kernel = as_kernel(kernel, kernel_params)
        self.kernel_spec = kernel_spec if kernel_spec is not None else (kernel if isinstance(kernel, str) else None)
        if self.kernel_spec is None and callable(kernel) and not isinstance(kernel, Kernel):
            # an importable callable is named MODULE:ATTR in the reproduce command (None: not importable)
            self.kernel_spec = _spec_of(kernel)
        elif self.kernel_spec is None and self.kernel.name and ":" in self.kernel.name:
            self.kernel_spec = self.kernel.name
        self.dim = _validate_dim(dim)
        if isinstance(domain, str):
            if domain not in DOMAINS:
                raise UsageError(f"unknown domain {domain!r}; use one of {', '.join(DOMAINS)} or a callable "
                                 "domain(n, d, rng) -> (n, d) array")
            self.domain_spec = domain
        elif callable(domain):
            self.domain_spec = domain_spec if domain_spec is not None else _spec_of(domain)
        else:
            raise UsageError(f"domain must be a name or a callable, got {type(domain).__name__}")
        self.domain = domain
        if data_dependent not in (None, True, False):
            raise UsageError(f"data_dependent must be True, False or None (decide), got {data_dependent!r}")
        #: None: the plug-in's attribute or detection decides (in the preflight); True/False: the caller's.
        self.declared_data_dependent = data_dependent
        #: How data dependence was decided (set by the preflight; recorded in the report).
        self.data_dependence: dict[str, Any] | None = None
        self.declarations = Declarations(_validate_bound(bound), as_flag(unbiased, "unbiased"), _validate_bound(bias_bound),
                                         data_dependent is True)
        self.seeds = SeedSource(seed)
        self.profile = get_profile(profile)
        self._pair_cache: dict[str, Any] = {}
        self.plugin: FeatureMapPlugin = as_feature_map(
            implementation, kernel_params=dict(self.kernel.params), name=as_name(name))

    def reproduce(self, check: str) -> str:
        """The one command that reproduces ``check`` under this configuration."""
        impl = self.plugin.spec
        parts = ["rfverify", "check", "feature-map", impl or "<MODULE:ATTR>"]
        parts += ["--kernel", self.kernel_spec or "<MODULE:ATTR>"]
        if isinstance(self.kernel_spec, str):  # --param goes to a registry kernel or a MODULE:ATTR callable
            for k in sorted(self.kernel.params):
                parts += ["--param", f"{k}={self.kernel.params[k]!r}"]
        parts += ["--dim", str(self.dim), "--domain", self.domain_spec or "<MODULE:ATTR>"]
        d = self.declarations
        if d.bound is not None:
            parts += ["--bound", repr(d.bound)]
        if not d.unbiased:
            parts += ["--biased"]
        if d.bias_bound is not None:
            parts += ["--bias-bound", repr(d.bias_bound)]
        if self.declared_data_dependent is True:
            parts += ["--data-dependent"]
        parts += ["--seed", str(self.seeds.root), "--profile", self.profile.name, "--check", check]
        return " ".join(shlex.quote(p) if not p.startswith("<") else p for p in parts)

    def context(self, spec: CheckSpec) -> CheckContext:
        alpha = self.profile.family_alpha / max(1, statistical_count(spec.kind))
        return CheckContext(spec.name, self.profile, self.seeds, alpha, self.reproduce(spec.name),
                            plugin=self.plugin, kernel=self.kernel, domain=self.domain, dim=self.dim,
                            declarations=self.declarations, pair_cache=self._pair_cache)

    @property
    def label(self) -> str:
        return self.plugin.spec or self.plugin.name

    def target(self) -> dict[str, Any]:
        """What the implementation is held to (here: the kernel)."""
        return self.kernel.to_dict()

    def as_dict(self) -> dict[str, Any]:
        return {
            "dim": self.dim,
            "domain": self.domain_spec,
            "declarations": self.declarations.to_dict(),
            "form": self.plugin.form,
            "spec": self.plugin.spec,
            "passthrough": dict(self.plugin.passthrough),
            "data_dependence": self.data_dependence,
        }

    def preflight(self) -> str | None:
        """Build, fit and transform once (a health check); the problem, or None.

        A user-supplied kernel callable (not a registry kernel) is screened first: the cheap
        deterministic ``kernel-symmetry`` and ``kernel-psd`` checks (issue 10); a kernel that is
        not symmetric PSD cannot be estimated by any feature map, so every check then errors.
        """
        if self.kernel._spec is None:
            from rfverify.kinds.kernel import screen_reference_kernel

            problem = screen_reference_kernel(self)
            if problem is not None:
                return problem
        spec = checks_for(self.kind)[0]
        ctx = self.context(spec)
        try:
            ctx.estimate_once(PREFLIGHT_M, self.seeds.random_state("preflight"))
            self.decide_data_dependence(ctx)
        except PluginError as exc:
            return str(exc)
        except UsageError:
            raise
        return None

    def decide_data_dependence(self, ctx: CheckContext) -> None:
        """Declared or detected, once (:mod:`rfverify.data_dependence`); sets ``declarations.data_dependent``."""
        from dataclasses import replace

        from rfverify.data_dependence import decide

        if self.data_dependence is None:
            self.data_dependence = decide(ctx, self.declared_data_dependent)
            self.declarations = replace(self.declarations, data_dependent=bool(self.data_dependence["data_dependent"]))

    def metrics(self) -> dict[str, Any]:
        """The report's ``metrics`` block: held-out kernel-approximation metrics (:mod:`rfverify.metrics`)."""
        from rfverify.metrics import report_metrics

        return report_metrics(self.context(checks_for(self.kind)[0]))


def _apply_xfail(result: CheckResult, reason: str | None) -> CheckResult:
    from dataclasses import replace

    if reason is None:
        return result
    if result.status == "fail":
        return replace(result, status="xfail", message=f"expected failure ({reason}): {result.message}")
    if result.status == "pass":
        return replace(result, status="fail", message=(
            f"expected to fail ({reason}) but passed — remove {result.check!r} from the expected failures"))
    return result


def _limits(config: Any, limits: Limits | None) -> Limits:
    return limits if limits is not None else Limits.resolve(config.profile.name)


def preflight(config: Any, limits: Limits | None = None) -> str | None:
    """``config.preflight()`` (one call into the plug-in) under the guard; the problem, or None."""
    name = config.context(checks_for(config.kind)[0]).name
    try:
        with guarded(name, "the preflight call", _limits(config, limits)):
            return config.preflight()
    except PluginError as exc:
        return str(exc)
    except UsageError:
        raise
    except Exception as exc:  # a bug of ours must still leave a report behind
        return (f"rfverify internal error in the preflight call: {type(exc).__name__}: {exc} "
                "(please report it with the reproduce command)")


def run_check(config: Any, spec: CheckSpec, preflight_error: str | None = None,
              limits: Limits | None = None) -> CheckResult:
    """Run one check, turning plug-in misbehaviour into status ``error`` (never an exception).

    The check runs inside :class:`rfverify.guard.guarded`: a time limit, a
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
        return ctx.result("error", str(exc))
    except UsageError as exc:
        return ctx.result("error", f"configuration: {exc}")
    except Exception as exc:  # a bug of ours must still leave a report behind
        return ctx.result("error", f"rfverify internal error in check {spec.name}: {type(exc).__name__}: {exc} "
                          "(please report it with the reproduce command)")


def verify(implementation: Any, *, kernel: str | Kernel | Callable[..., Any] = "rbf",
           kernel_params: Mapping[str, Any] | None = None, dim: int = 16,
           domain: str | Callable[..., Any] = "gaussian", bound: float | None = None, unbiased: bool = True,
           bias_bound: float | None = None, seed: int = DEFAULT_SEED, profile: str | Profile = "default",
           checks: Iterable[str] | None = None, xfail: Mapping[str, str] | None = None,
           name: str | None = None, time_limit: float | None = None, memory_limit: int | str | None = None,
           data_dependent: bool | None = None, metrics: bool | None = None) -> Report:
    """Verify a feature map against a kernel; returns a :class:`~rfverify.results.Report`.

    ``implementation`` is a factory, a function, an sklearn-style class or
    instance, or a ``"MODULE:ATTR"`` string (see :mod:`rfverify.adapters`).
    ``checks`` selects checks by name; ``xfail`` maps check names to the reason
    they are expected to fail.  Raises :class:`~rfverify.errors.UsageError`
    for bad arguments; a misbehaving implementation yields status ``error``.
    ``time_limit`` (seconds per check) and ``memory_limit`` (bytes or "4G")
    default to the profile's (:mod:`rfverify.guard`); 0 disables either.
    ``data_dependent``: declare that fit depends on X (True), or that it does
    not (False); None lets the plug-in's ``data_dependent`` attribute or a
    detection in the preflight decide (:mod:`rfverify.data_dependence`).
    ``metrics``: compute the report's held-out metrics block (None: when every
    check runs).
    """
    config = FeatureMapConfig(implementation, kernel=kernel, kernel_params=kernel_params, dim=dim,
                              domain=domain, bound=bound, unbiased=unbiased, bias_bound=bias_bound,
                              seed=seed, profile=profile, name=name, data_dependent=data_dependent)
    return run(config, checks=checks, xfail=xfail, time_limit=time_limit, memory_limit=memory_limit,
               metrics=metrics)


def select(kind: str, checks: Iterable[str] | None, xfail: Mapping[str, str] | None) -> list[CheckSpec]:
    checks, xfail = as_check_names(checks), as_xfail(xfail)
    specs = checks_for(kind)
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


def run(config: Any, *, checks: Iterable[str] | None = None, xfail: Mapping[str, str] | None = None,
        time_limit: float | None = None, memory_limit: int | str | None = None,
        metrics: bool | None = None) -> Report:
    """Run the selected checks of ``config.kind`` (any kind's config, see :class:`FeatureMapConfig`).

    ``metrics``: also compute ``config.metrics()`` (kinds that have it) into the report's
    ``metrics`` block; None: only when every check runs (no selection).

    ``time_limit`` / ``memory_limit``: per check, see :class:`rfverify.guard.Limits` (None: the profile's).
    """
    specs = select(config.kind, checks, xfail)
    limits = Limits.resolve(config.profile.name, time_limit, memory_limit)
    problem = preflight(config, limits)
    hook = CHECK_HOOK.get()
    collected = []
    for i, s in enumerate(specs):
        if hook is not None:
            hook(s.name, i, len(specs), None)
        result = _apply_xfail(run_check(config, s, problem, limits), (xfail or {}).get(s.name))
        if hook is not None:
            hook(s.name, i, len(specs), result)
        collected.append(result)
    results = tuple(collected)
    block = None
    if (checks is None if metrics is None else metrics) and problem is None and hasattr(config, "metrics"):
        block = _metrics(config, limits)
    return Report(
        implementation=config.label,
        kind=config.kind,
        kernel=config.target(),
        seed=config.seeds.root,
        profile=config.profile.name,
        config=config.as_dict(),
        results=results,
        version=__version__,
        metrics=block,
    )


def _metrics(config: Any, limits: Limits) -> dict[str, Any]:
    """``config.metrics()`` under the guard; a misbehaving plug-in gives ``{"error": message}``."""
    name = config.context(checks_for(config.kind)[0]).name
    try:
        with guarded(name, "the metrics", limits):
            return config.metrics()
    except PluginError as exc:
        return {"error": str(exc)}
