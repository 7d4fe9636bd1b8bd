"""The ``kernel`` plug-in kind: checks of a kernel itself, before anything is held to it.

A kernel is a registry name (with parameters), a :class:`~rfverify.kernels.Kernel` (e.g. a
composite from :mod:`rfverify.kernels.composition`), any callable ``k(X, Y) -> (n_X, n_Y) Gram`` or
``"MODULE:ATTR"`` naming one.  The checks (``properties/kernel_properties.py``,
``properties/kernel_composition.py``) ask what the cs4787 lecture's definition of a kernel asks:
symmetry, positive semi-definiteness of every Gram matrix, k(x, x) = 1 where claimed, and, for
kernels built with the composition rules, that the composite's feature map estimates the composite.

**Point sets.** The symmetry, PSD and normalisation checks evaluate Gram matrices on a fixed plan
of point sets (:data:`PLAN`): sizes 8 to 256, input scales 0.1 to 3 times the kernel's length
scale (registry closed form, else calibrated as for the feature-map pair design), in three
families — i.i.d. domain points; *mixed* norms (each point's radius times a log-uniform factor in
[1/3, 3], where tanh kernels break); and *clustered* near-duplicates (nearly singular Gram
matrices, which a tolerance must survive).  Profiles take a prefix of the plan (quick 6 sets,
default 12, thorough 24), so a quick finding is always reproduced by a larger profile.  Set i is
drawn from the stable key ``("kernel", "points", d, domain, i)``: every kernel is checked on the
same points, whatever its name.

**Screening reference kernels.** :func:`screen_reference_kernel` runs the cheap deterministic
symmetry and PSD checks (quick plan) on a user-supplied kernel callable before the feature-map
harness uses it as the reference (``FeatureMapConfig.preflight``); a failure turns every
feature-map check into status ``error`` naming the witness and the ``rfverify check kernel``
command that shows it.
"""

from __future__ import annotations

import argparse
import math
from dataclasses import dataclass
from typing import Any, Callable, Mapping

import numpy as np

from rfverify.adapters import load_object
from rfverify.plugin_calls import spec_of
from rfverify.containment import guard
from rfverify.arrays import ArrayRecord, to_numpy
from rfverify.containment.hosted_kinds import HostedAdapter
from rfverify.kernels.composition import CompositeKernel, declared_psd
from rfverify.domains import DOMAINS, calibrate_scale
from rfverify.errors import PluginError, UsageError
from rfverify.jsontypes import JSONValue
from rfverify.kernels import Kernel, as_kernel
from rfverify.kinds import checks_for
from rfverify.kinds.base import CliSpec, KindConfig, parse_int, pin_flag, pins_option, space_option
from rfverify.kinds.options import make_verify, option
from rfverify.options import parse_param
from rfverify.profiles import Profile, budget
from rfverify.refusals import Refusal, is_refusal
from rfverify.registry import BaseContext, CheckSpec, PluginObject

__all__ = ["KernelBudget", "PLAN", "PointSet", "KernelConfig", "KernelContext",
           "verify_kernel", "screen_reference_kernel", "KernelOverflow", "kernel_accuracy", "MAX_KERNEL_DIM"]

MAX_KERNEL_DIM = 4096

def _spaces():
    """rfverify.spaces, imported when a configuration is made (it imports Hypothesis, ~0.4 s CPU): building the
    CLI parser must not pay for it (tests/test_startup.py)."""
    import rfverify.spaces

    return rfverify.spaces


def kernel_accuracy(kernel: Kernel) -> float:
    """The stated approximation error of a kernel (a composite: the sum over its parts)."""
    if isinstance(kernel, CompositeKernel):
        return float(sum(kernel_accuracy(p) for p in kernel.parts))
    return float(kernel._spec.accuracy) if kernel._spec is not None else 0.0


@dataclass(frozen=True)
class KernelBudget:
    """Point sets and composition-test sizes for one profile.

    ``psd_sets``: how many sets of :data:`PLAN` the PSD and normalisation checks use;
    ``symmetry_sets``: how many the symmetry check uses; ``composition_m``: features of the
    composite map in the composition test; ``composition_max_trials``: cap on its seeds.
    """

    psd_sets: int
    symmetry_sets: int
    composition_m: int
    composition_max_trials: int



#: (family, size, scale multiple of the length scale); profiles take a prefix.  The scales sweep
#: 0.01 to 100 length scales: a kernel that is PSD only near one scale (tanh saturates to
#: sign(<x, y>) at large inputs) is caught at the others.
PLAN: tuple[tuple[str, int, float], ...] = (
    ("iid", 8, 1.0), ("mixed", 16, 1.0), ("iid", 32, 10.0), ("clustered", 24, 1.0), ("iid", 48, 0.1),
    ("mixed", 48, 3.0),
    ("iid", 96, 1.0), ("mixed", 8, 10.0), ("iid", 16, 0.01), ("clustered", 64, 0.3), ("iid", 64, 100.0),
    ("mixed", 96, 0.3),
    ("iid", 128, 1.0), ("mixed", 128, 3.0), ("clustered", 128, 1.0), ("iid", 200, 0.3), ("iid", 8, 30.0),
    ("mixed", 32, 0.1), ("iid", 256, 1.0), ("mixed", 200, 1.0), ("clustered", 200, 3.0), ("iid", 24, 0.03),
    ("mixed", 64, 30.0), ("iid", 160, 3.0),
)
#: What the feature-map calibration returns when its target is not bracketed or the kernel is
#: scale-free (rfverify.domains.calibrate_scale); the kernel kind then uses unit-norm inputs.
CALIBRATION_EDGES = (1e-4, 1e4, 1.0)
#: Mixed-norm sets multiply each point's radius by a log-uniform factor in [1/MIXED_SPREAD, MIXED_SPREAD].
MIXED_SPREAD = 3.0
#: Clustered sets: near-duplicates at this relative distance from their cluster centre.
CLUSTER_SPREAD = 1e-4


@dataclass(frozen=True)
class PointSet:
    """One point set of the plan, drawn and scaled: ``X`` (n, d) and ``r2`` = max |x|^2 / (d s0^2)."""

    index: int
    family: str
    scale: float
    X: np.ndarray
    r2: float
    #: the scale as a multiple of the length scale (sets above 1 may overflow a kernel like exp(<x, y>))
    multiple: float = 1.0

    @property
    def n(self) -> int:
        return self.X.shape[0]

    def describe(self) -> str:
        return f"point set {self.index} ({self.family}, n = {self.n}, scale {self.scale:.3g})"


class KernelOverflow(PluginError):
    """The kernel returned non-finite values (at a large input scale this is float64 overflow)."""


class _BatchPairwise:
    """``pairwise(X, Y)`` as the diagonal of one Gram call (the calibration's 40 bisection steps
    would otherwise call a slow callable once per row); values identical for a pointwise kernel."""

    def __init__(self, kernel: Kernel) -> None:
        self.kernel = kernel

    def pairwise(self, X: np.ndarray, Y: np.ndarray) -> np.ndarray:
        G = np.asarray(self.kernel._gram(X, Y, **self.kernel.params), dtype=float)  # type: ignore[misc]
        if G.shape != (X.shape[0], Y.shape[0]) or not np.all(np.isfinite(G)):
            raise _Uncalibrated  # e.g. exp(+r^2) overflows at the bisection's extreme scales
        return np.diag(G).copy()


class _Uncalibrated(Exception):
    pass


def _budget(profile: Profile) -> KernelBudget:
    return KernelBudget(**budget(profile, "kernel"))


def _add_normalized(kn: argparse.ArgumentParser) -> None:
    kn_norm = kn.add_mutually_exclusive_group()
    kn_norm.add_argument("--normalized", dest="normalized", action="store_true", default=None,
                         help="claim k(x, x) = 1 (default: the registry's claim)")
    kn_norm.add_argument("--not-normalized", dest="normalized", action="store_false",
                         help="do not hold the kernel to k(x, x) = 1")


def _kernel_params_options(c: "KernelConfig") -> list[str]:
    if not c.kernel_spec:
        return []
    return [part for k in sorted(c.kernel.params) for part in ("--param", f"{k}={c.kernel.params[k]!r}")]


@dataclass(frozen=True)
class KernelOptions:
    """The options of a kernel (``verify_kernel``, ``rfverify check kernel``), declared once."""

    #: The parameters of a registry kernel (or keywords of a kernel callable).
    kernel_params: Mapping[str, Any] | None = option(
        None, flag="--param", action="append", cli_default=[], metavar="KEY=VALUE", help="kernel parameter (repeatable)",
        parse=lambda items: dict(parse_param(p) for p in items or []), render=_kernel_params_options)
    dim: int = option(16, flag="--dim", cli_default="16", help="input dimension d (default 16)",
                      parse=lambda text: parse_int(text, "--dim"), render=lambda c: ["--dim", str(c.dim)])
    #: ``gaussian``, ``sphere``, ``positive``, ``domain(n, d, rng)`` or ``"MODULE:ATTR"`` (None: the registry's,
    #: else gaussian).
    domain: str | Callable[..., Any] | None = option(
        None, flag="--domain", cli_default=None, render=lambda c: ["--domain", c.domain_spec or "<MODULE:ATTR>"],
        help="gaussian | sphere | positive | MODULE:ATTR of domain(n, d, rng) (default: the registry kernel's, else "
        "gaussian)")
    #: Claim k(x, x) = 1 (None: the registry's claim).
    normalized: bool | None = option(
        None, add=_add_normalized, read=lambda args: args.normalized,
        render=lambda c: {True: ["--normalized"], False: ["--not-normalized"]}.get(c.normalized_explicit, []))
    #: ``False`` declares the kernel not PSD in general: a witness is then an expected finding (xfail).
    psd: bool | None = option(
        None, flag="--not-psd", action="store_true", parse=lambda given: False if given else None,
        render=lambda c: ["--not-psd"] if c.psd_explicit is False else [],
        help="declare the kernel not PSD in general: a witness set is then an expected finding (xfail)")
    #: For a composite kernel: the feature map under test (default: the reference composite map).
    feature_map: Any = option(
        None, flag="--feature-map", metavar="MODULE:ATTR",
        render=lambda c: ["--feature-map", c.feature_map_spec or "<MODULE:ATTR>"] if c.feature_map is not None else [],
        help="for a composite kernel: the feature map to test (default: the reference composite map)")
    pins: Mapping[str, Any] | None = pins_option(pin_flag(
        "KEY=VALUE", "explore: pin d, n, norm, data_seed or a kernel parameter searched (repeatable)"))
    #: Narrows the space ``explore`` searches (d, n, norm, a kernel parameter: a value or (lo, hi)).
    space: Mapping[str, Any] | None = space_option()
    #: How the kernel and the domain are named in the reproduce command, when given as objects (internal: the
    #: feature-map kind's screen of a reference kernel passes them).
    kernel_spec: str | None = option(None, public=False)
    domain_spec: str | None = option(None, public=False)


class KernelConfig(KindConfig):
    """A validated configuration for verifying one kernel."""

    kind = "kernel"
    DIM_RANGE = (1, MAX_KERNEL_DIM)
    DIM_WHY = "point sets of a few hundred points in d dimensions, Gram matrices evaluated in float64"
    CLI = CliSpec("Verify a registry kernel NAME or MODULE:ATTR naming a callable k(X, Y) -> Gram matrix: symmetry, "
                  "positive semi-definiteness (a witness set if not), k(x, x) = 1 where claimed, and for composite "
                  "kernels that the composite's feature map estimates it.", metavar="NAME|MODULE:ATTR",
                  examples=("rfverify check kernel rbf_laplacian_mix",
                            "rfverify check kernel sklearn.metrics.pairwise:additive_chi2_kernel --domain positive"))

    Options = KernelOptions
    options: KernelOptions
    TARGET = "kernel"

    def _setup(self, kernel: Any, name: str | None) -> None:
        o = self.options
        kernel_params, domain, normalized, psd, feature_map = o.kernel_params, o.domain, o.normalized, o.psd, \
            o.feature_map
        domain_spec = o.domain_spec
        if isinstance(domain, str) and ":" in domain:  # MODULE:ATTR of a domain callable, named so in the reproduce
            domain_spec, domain = domain_spec or domain, load_object(domain)
        #: The caller's narrowing of the space ``explore`` searches and its pins (d, n, norm, data_seed or a
        #: kernel parameter; :mod:`rfverify.properties.exploration_kernel`).
        self.space = self.caller_space = dict(o.space or {})
        self.pins = dict(o.pins or {})
        #: What the caller passed, loaded (a kernel callable may declare its space with ``rfverify_space``; a
        #: proxy of it when it lives in its own process).
        self.kernel, self.kernel_obj, self.kernel_spec, self.host = _resolve_kernel(kernel, o.kernel_spec,
                                                                                   kernel_params, name)
        self.dim = self.validate_dim(o.dim)
        if domain is None:
            domain = self.kernel._spec.domain if self.kernel._spec is not None else "gaussian"
        if isinstance(domain, str):
            if domain not in DOMAINS:
                raise UsageError(f"unknown domain {domain!r}; use one of {', '.join(DOMAINS)} or a callable "
                                 "domain(n, d, rng) -> (n, d) array")
            self.domain_spec: str | None = domain
        elif callable(domain):
            self.domain_spec = domain_spec if domain_spec is not None else spec_of(domain)
        else:
            raise UsageError(f"domain must be a name or a callable, got {type(domain).__name__}")
        self.domain = domain
        if normalized is not None and not isinstance(normalized, bool):
            raise UsageError(f"normalized must be True, False or None, got {normalized!r}")
        self.normalized_explicit = normalized
        self.normalized = self.kernel.normalized if normalized is None else normalized
        if psd is not None and not isinstance(psd, bool):
            raise UsageError(f"psd must be True, False or None, got {psd!r}")
        decl = declared_psd(self.kernel)
        self.psd_explicit = psd
        self.psd = psd if psd is not None else (decl is not False)
        self.psd_note = (self.kernel._spec.psd_note if self.kernel._spec is not None and not self.kernel._spec.psd
                         else "declared not positive semi-definite")
        self.budget = _budget(self.profile)
        self.name = name or self.kernel.describe()
        self.feature_map_spec = feature_map if isinstance(feature_map, str) else (
            None if feature_map is None else spec_of(feature_map))
        self.feature_map = _given_feature_map(feature_map)
        fm_host = getattr(self.feature_map, "host", None)
        if fm_host is not None:  # its process and the kernel's: one scope per check in each
            from rfverify.containment.hosted_kinds import HostGroup

            self.host = HostGroup([self.host, fm_host]) if self.host is not None else fm_host
        self.accuracy = kernel_accuracy(self.kernel)
        self._scale: float | None = None
        self._sets: dict[int, PointSet] = {}
        self._dtype: np.dtype = np.dtype(np.float64)
        #: The space ``explore`` searches (validated now: a bad space is a UsageError at construction).
        self.explore_space = _spaces().kernel_space(self)

    #: A kernel callable is imported, detected and called in its own process (rfverify.containment.hosted_kinds) when the
    #: judge is on (a registry kernel or a composite is rfverify's own code and runs here).
    HOSTED = True
    #: Options naming code the harness imports (a domain callable named MODULE:ATTR: part of the reference); the
    #: CLI probes it first.
    HARNESS_IMPORTS = ("domain",)

    def in_process(self) -> None:
        """Run the kernel callable (and the feature map given) in this process from now on (``isolate=False``)."""
        gram = self.kernel._gram
        if getattr(gram, "host", None) is not None:
            gram.in_process()  # type: ignore[union-attr]
            self.kernel_obj = gram.obj  # type: ignore[union-attr]
        fm = self.feature_map
        if getattr(fm, "host", None) is not None:
            fm.obj, host, fm.host = fm.host.local_root(), fm.host, None
            host.close()
        self.host = None

    # -- the runner's protocol ---------------------------------------------------------------
    @property
    def label(self) -> str:
        if self.kernel_spec and ":" in self.kernel_spec:
            return self.kernel_spec
        return self.kernel.describe()

    def target(self) -> dict[str, Any]:
        """What the kernel is held to: the definition of a kernel (and k(x, x) = 1 where claimed)."""
        what = ["symmetric"] + (["positive semi-definite"] if self.psd else []) + (["k(x, x) = 1"] if self.normalized else [])
        return {"name": "definition: " + ", ".join(what), "params": {}}

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "dim": self.dim, "domain": self.domain_spec, "spec": self.kernel_spec,
            "declarations": {"normalized": self.normalized, "psd": self.psd},
            "budget": dict(self.budget.__dict__),
        }
        arrays = getattr(getattr(self.kernel, "_gram", None), "arrays", None)
        if arrays is not None:  # a user's kernel callable: the Gram matrices' library, dtype and device
            out["arrays"] = arrays.to_dict()
        if not self.psd:
            out["declarations"]["psd_note"] = self.psd_note
        if isinstance(self.kernel, CompositeKernel):
            out["composition"] = self.kernel.tree()
        return out

    @property
    def target_spec(self) -> str | None:
        return self.kernel_spec

    @property
    def plugin_name(self) -> str:
        """A kernel is named in its results as in the report header (its registry description or MODULE:ATTR)."""
        return self.label

    def _context(self, spec: CheckSpec, alpha: float, reproduce: str) -> "KernelContext":
        return KernelContext(spec.name, self.profile, self.seeds, alpha, reproduce, config=self)

    def preflight(self) -> str | None:
        """Calibrate the scale and evaluate the kernel once on the first point set; the problem, or None."""
        try:
            ps = self.point_set(0)
            self.evaluate(ps.X, ps.X)
        except PluginError as exc:
            return str(exc)
        return None

    # -- what the checks use -----------------------------------------------------------------
    def _dom_name(self) -> str:
        return self.domain if isinstance(self.domain, str) else (self.domain_spec or "domain")

    @property
    def scale(self) -> float:
        """s0: the input scale at which the kernel's values spread (1 on the sphere and for domain callables)."""
        if self._scale is None:
            if not isinstance(self.domain, str) or self.domain == "sphere":
                self._scale = 1.0
            else:
                hint = self.kernel.length_scale(self.dim)
                if hint is None:
                    rng = self.seeds.rng("kernel", "scale", self.dim, self.domain)
                    try:
                        with np.errstate(all="ignore"):
                            hint = calibrate_scale(_BatchPairwise(self.kernel), self.dim, rng,
                                                    self.domain == "positive")
                    except _Uncalibrated:
                        hint = 1.0  # one of CALIBRATION_EDGES: unit-norm inputs below
                    except (UsageError, PluginError):
                        raise
                    except Exception as exc:
                        raise PluginError(self.name, f"evaluating the kernel raised {type(exc).__name__}: {exc}",
                                          "a kernel callable must be k(X, Y) -> (n_X, n_Y) Gram matrix") from exc
                    if hint in CALIBRATION_EDGES:
                        # not bracketed (or scale-free): the calibration says nothing; unit-norm inputs
                        hint = 1.0 / math.sqrt(self.dim)
                self._scale = float(hint)
        return self._scale

    def _domain_points(self, n: int, rng: np.random.Generator) -> np.ndarray:
        d = self.dim
        if callable(self.domain):
            name = getattr(self.domain, "__qualname__", type(self.domain).__name__)
            try:
                A = np.asarray(self.domain(n, d, rng), dtype=float)
            except Exception as exc:
                raise PluginError(f"domain {name}", f"raised {type(exc).__name__}: {exc}",
                                  "a domain callable must be domain(n, d, rng) -> (n, d) array") from exc
            if A.shape != (n, d):
                raise PluginError(f"domain {name}", f"returned shape {A.shape}, expected ({n}, {d})",
                                  "a domain callable must be domain(n, d, rng) -> (n, d) array")
            return A
        Z = rng.standard_normal((n, d))
        if self.domain == "sphere":
            return Z / np.linalg.norm(Z, axis=1, keepdims=True)
        return np.abs(Z) if self.domain == "positive" else Z

    def point_set(self, i: int) -> PointSet:
        """Set ``i`` of :data:`PLAN` (cached; a deterministic function of the root seed, d and domain)."""
        if i not in self._sets:
            family, n, mult = PLAN[i]
            rng = self.seeds.rng("kernel", "points", self.dim, self._dom_name(), i)
            scalable = isinstance(self.domain, str) and self.domain != "sphere"
            s = self.scale * (mult if scalable else 1.0)
            if family == "clustered":
                centres = self._domain_points(max(2, n // 8), rng)
                X = centres[rng.integers(0, centres.shape[0], size=n)]
                if scalable:
                    X = X + CLUSTER_SPREAD * rng.standard_normal(X.shape)
                    X = np.abs(X) if self.domain == "positive" else X
            else:
                X = self._domain_points(n, rng)
                if family == "mixed" and scalable:
                    X = X * np.exp(rng.uniform(-math.log(MIXED_SPREAD), math.log(MIXED_SPREAD), size=(n, 1)))
            X = s * X if scalable else X
            r2 = float(np.max(np.einsum("ij,ij->i", X, X))) / (self.dim * self.scale**2)
            self._sets[i] = PointSet(i, family if scalable or family == "clustered" else "iid", s, X, r2,
                                     mult if scalable else 1.0)
        return self._sets[i]

    def point_sets(self, count: int) -> list[PointSet]:
        return [self.point_set(i) for i in range(min(count, len(PLAN)))]

    def evaluate(self, X: np.ndarray, Y: np.ndarray, kernel: Kernel | None = None) -> np.ndarray:
        """The Gram matrix [k(x_i, y_j)] in float64 (of ``kernel``, default the configured one: ``explore``
        passes the kernel at other parameters); records the dtype the kernel returns.

        A kernel that raises, returns the wrong shape, a non-real or a non-finite value is a
        :class:`PluginError` (status ``error``); inputs outside a registry kernel's domain are a
        :class:`UsageError` (the configuration's fault).
        """
        k = self.kernel if kernel is None else kernel
        k.validate_inputs(X)
        k.validate_inputs(Y)
        try:
            with np.errstate(all="ignore"):  # overflow is judged below, from the values
                G = to_numpy(k._gram(X, Y, **k.params), plugin=self.name, action="k(X, Y)")  # type: ignore[misc]
        except (UsageError, PluginError):
            raise
        except Exception as exc:
            err = PluginError(self.name, f"k(X, Y) on inputs of shapes {X.shape} and {Y.shape} raised "
                              f"{type(exc).__name__}: {exc}",
                              "a kernel callable must be k(X, Y) -> (n_X, n_Y) Gram matrix")
            if is_refusal(exc):  # a clean refusal: outside the kernel's space away from the main configuration
                err.refusal = Refusal(type(exc).__name__, str(exc).splitlines()[0] if str(exc) else "", "k(X, Y)")
            raise err from exc
        if G.shape != (X.shape[0], Y.shape[0]):
            raise PluginError(self.name, f"returned shape {G.shape} for inputs of {X.shape[0]} and {Y.shape[0]} rows",
                              f"return the ({X.shape[0]}, {Y.shape[0]}) Gram matrix")
        if G.dtype.kind == "c":
            if np.any(G.imag != 0):
                raise PluginError(self.name, "returned complex values with a non-zero imaginary part",
                                  "a kernel is real-valued")
            G = G.real
        if G.dtype.kind not in "fiub":
            raise PluginError(self.name, f"returned dtype {G.dtype}", "return real numbers")
        if G.dtype.kind == "f":
            self._dtype = G.dtype
        out = np.asarray(G, dtype=np.float64)
        if not np.all(np.isfinite(out)):
            raise KernelOverflow(self.name, f"returned non-finite values on inputs of norm up to "
                              f"{float(np.max(np.linalg.norm(X, axis=1))):.3g}", "kernel values must be finite")
        return out

    @property
    def dtype(self) -> np.dtype:
        return self._dtype


@dataclass
class KernelContext(BaseContext[KernelConfig]):
    """What a kernel check may use; randomness only via ``seeds``."""

    @property
    def kernel(self) -> Kernel:
        return self.config.kernel

    @property
    def dim(self) -> int:
        return self.config.dim

    @property
    def budget(self) -> KernelBudget:
        return self.config.budget

    # -- the reference composite feature map (:mod:`rfverify.implementations.composite`) --------------
    def why_no_reference_map(self) -> str | None:
        """Why rfverify has no reference feature map for this composite kernel at this d (None: it has one)."""
        from rfverify.implementations.composite import MAX_EXACT_WIDTH, exact_dim_limit, feature_tree, why_no_tree

        reason = why_no_tree(self.kernel)
        if reason is None:
            d_max = exact_dim_limit(feature_tree(self.kernel))
            if d_max is not None and self.dim > d_max:
                reason = (f"its exact polynomial features would be wider than {MAX_EXACT_WIDTH} at d = {self.dim} "
                          f"(they are built up to d = {d_max}); verify at a smaller --dim")
        return reason

    def reference_feature_map(self) -> tuple[Any, str]:
        """The composite's reference feature map (a factory), built by the lecture's rules from its parts'
        maps, and its description; the kind hands it to ``kernel-composition``."""
        from rfverify.implementations.composite import composite_features, feature_tree

        return (composite_features(self.kernel),
                "the composite feature map " + feature_tree(self.kernel).describe())


verify_kernel = make_verify(KernelConfig, "verify_kernel", """Verify a kernel: symmetry, positive semi-definiteness, normalisation where claimed and, for a
    composite, that its feature map estimates it.

    ``kernel``: a registry name (``kernel_params`` bind its parameters), a :class:`Kernel`, a
    callable ``k(X, Y) -> Gram`` or ``"MODULE:ATTR"``.  ``domain``: ``gaussian``, ``sphere``,
    ``positive`` or ``domain(n, d, rng)`` (default: the registry's, else gaussian).
    ``normalized``: claim k(x, x) = 1 (None: the registry's claim).  ``psd=False`` declares the
    kernel not PSD in general: a witness is then an expected finding (status xfail).
    ``feature_map``: for a composite, the feature map under test (any plug-in form; default the
    reference map of :mod:`rfverify.implementations.composite`).  Returns a
    :class:`~rfverify.results.Report` of kind ``kernel``.  ``time_limit`` / ``memory_limit``: per check
    (:class:`rfverify.containment.guard.Limits`).  ``space`` narrows the space ``explore`` searches (d, n, norm, a kernel
    parameter: a value or (lo, hi)) and ``pins`` fixes axes of it (a kernel callable declares its own with
    ``rfverify_space``).
    The keywords are the fields of :class:`KernelOptions` and those of the run (``seed``, ``profile``, ``name``,
    ``checks``, ``xfail``, ``time_limit``, ``memory_limit``, ``strict_space``).
    """, target="kernel")


def _resolve_kernel(kernel: PluginObject, spec: str | None, params: PluginObject,
                    name: str | None) -> tuple[Kernel, PluginObject, str | None, PluginObject]:
    """(the Kernel, the object the caller passed, its spec, the kernel's process or None).  A callable (or
    ``MODULE:ATTR`` naming one) lives in its own process when the judge is on (:mod:`rfverify.containment.hosted_kinds`); a
    ``MODULE:ATTR`` naming a :class:`Kernel` (a composite built by rfverify's rules) is loaded here."""
    from rfverify.containment.hosted_kinds import detect, host_for
    from rfverify.validation import as_params

    host = None
    if (isinstance(kernel, str) and ":" in kernel) or (callable(kernel) and not isinstance(kernel, (Kernel, str))):
        host = host_for(name or (kernel if isinstance(kernel, str) else "the kernel"), kernel)
    if host is not None:
        found = detect(host, _detect_kernel, kernel if isinstance(kernel, str) else spec)
        if found["callable"]:
            host.plugin = f"kernel {found['label']}"
            call = _KernelCall(host.root_proxy(), str(found["label"]), host)
            return (Kernel(str(found["label"]), as_params(params), call, None), host.root_proxy(),
                    spec or found["spec"], host)
        host.close()  # a Kernel object: rfverify's own composition, evaluated here
    if isinstance(kernel, str) and ":" in kernel:
        spec = spec or kernel
        kernel = load_object(kernel)
    elif isinstance(kernel, str):
        spec = spec or kernel
    resolved = as_kernel(kernel, params)
    if spec is None and isinstance(kernel, Kernel) and kernel._spec is not None:
        spec = kernel.name  # a registry kernel (its parameters go with --param)
    elif spec is None and callable(kernel) and not isinstance(kernel, Kernel):
        spec = spec_of(kernel)
    return resolved, kernel, spec, None


def _given_feature_map(feature_map: PluginObject) -> PluginObject:
    """The feature map given to test a composite: with the judge on, a feature-map adapter whose plug-in lives in
    its own process (:func:`rfverify.adapters.as_feature_map`: imported and detected there); else the object
    (``MODULE:ATTR`` loaded here)."""
    from rfverify.containment.supervise import judge_wanted

    if feature_map is None:
        return None
    if judge_wanted():
        from rfverify.adapters import as_feature_map

        return as_feature_map(feature_map, name="the given composite feature map")
    return load_object(feature_map) if isinstance(feature_map, str) else feature_map


def _kernel_label(kernel: PluginObject) -> str:
    name = getattr(kernel, "__qualname__", None) or type(kernel).__name__
    mod = getattr(kernel, "__module__", None)
    return f"{mod}:{name}" if mod else name


def _detect_kernel(kernel: PluginObject, spec: str | None) -> dict[str, JSONValue]:
    """What the kernel the caller named is (plain data: run where it lives)."""
    from rfverify.text import NAME_LIMIT, clean

    if isinstance(kernel, Kernel):
        return {"callable": False}
    if not callable(kernel):
        raise UsageError(f"kernel must be a registry name or a callable k(X, Y), got {type(kernel).__name__}")
    spec = spec or spec_of(kernel)
    return {"callable": True, "label": clean(_kernel_label(kernel), NAME_LIMIT, one_line=True),
            "spec": spec if spec is None or len(spec) <= 10_000 else None}


class _KernelCall(HostedAdapter):
    """A kernel callable as a :class:`Kernel`'s Gram function ``(X, Y, **params) -> (n_X, n_Y)``: called where it
    lives (this process, or its own: :mod:`rfverify.containment.hosted_kinds`), its Gram matrix judged here."""

    def __init__(self, kernel: PluginObject, label: str, host: PluginObject) -> None:
        self.obj, self.host, self.label = kernel, host, label
        self.name = f"kernel {label}"
        #: What the Gram matrices came back as (library, dtype, device), for the report.
        self.arrays = ArrayRecord()

    def __call__(self, X: np.ndarray, Y: np.ndarray, **kw: PluginObject) -> np.ndarray:
        out = self._remote("raw_gram", X, Y, kw) if self.host is not None else self.raw_gram(X, Y, kw)
        return guard.as_array(out, plugin=self.name, action="k(X, Y)", complex_ok=True)

    def raw_gram(self, X: np.ndarray, Y: np.ndarray, kw: dict[str, JSONValue]) -> PluginObject:
        """The kernel's Gram matrix brought to numpy (where the kernel lives); its faults are PluginErrors."""
        out = guard.call(self.obj, X, Y, plugin=self.name, action=f"k(X, Y) on shapes {X.shape}, {Y.shape}",
                         hint="a kernel callable must be k(X, Y) -> (n_X, n_Y) Gram matrix", **kw)
        # any array library's Gram matrix (torch, JAX, CuPy, dask) comes to the host in its own dtype
        return to_numpy(out, plugin=self.name, action="k(X, Y)", record=self.arrays)


#: The checks run on a user-supplied reference kernel before the feature-map harness uses it.
SCREEN_CHECKS = ("kernel-symmetry", "kernel-psd")


def screen_reference_kernel(fm_config: Any) -> str | None:
    """Cheap deterministic symmetry and PSD screens of a feature-map configuration's kernel.

    Runs :data:`SCREEN_CHECKS` with the quick profile's point sets (same dimension, domain and
    root seed).  Returns None when the kernel passes (or when it errors: the harness reports that
    itself), else the problem: what failed, the witness, and the ``rfverify check kernel`` command
    that shows it.
    """
    from rfverify.runner import run_check

    config = KernelConfig(fm_config.kernel, dim=fm_config.dim, domain=fm_config.domain, seed=fm_config.seeds.root,
                          profile="quick", kernel_spec=fm_config.kernel_spec, domain_spec=fm_config.domain_spec)
    if config.preflight() is not None:
        return None
    for spec in checks_for("kernel"):
        if spec.name not in SCREEN_CHECKS:
            continue
        result = run_check(config, spec)
        if result.status == "fail":
            what = "symmetric" if spec.name == "kernel-symmetry" else "positive semi-definite"
            return (f"the reference kernel {config.label} is not {what}, so no feature map can estimate it and "
                    f"no feature-map check is meaningful: {result.message}; see: {result.reproduce}")
    return None
