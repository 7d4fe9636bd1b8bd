"""The ``feature-map`` plug-in kind: a random-feature map held to a kernel.

The plug-in (a factory, a function, an sklearn-style class or instance, or ``"MODULE:ATTR"``; see
:mod:`rfverify.adapters`) is fitted with ``n_components`` and ``random_state`` and must return features whose
inner products estimate the declared kernel.  What it claims (:class:`Declarations`: a bound C, unbiasedness,
a bias bound, data dependence) decides which checks apply.  :class:`CheckContext` is what its checks receive:
the designed input pairs (shared by every check of one configuration) and kernel estimates over independent
draws, every ``random_state`` spawned from the root seed and a stable key that never contains the
implementation's name.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable, Mapping, cast

import numpy as np

from rfverify.adapters import FeatureMapPlugin, FittedMap, as_feature_map, load_object
from rfverify.plugin_calls import spec_of
from rfverify.domains import DOMAINS, PairSet, make_pairs
from rfverify.errors import PluginError, UsageError
from rfverify.kernels import Kernel, as_kernel
from rfverify.kinds.base import CliSpec, KindConfig, call_kw_option, input_option, parse_int, pins_option, space_option
from rfverify.kinds.options import make_verify, option
from rfverify.kinds.pins import add_pin_options, pin_options
from rfverify.options import parse_param
from rfverify.profiles import Profile
from rfverify.registry import BaseContext, CheckSpec
from rfverify.validation import as_flag, as_name

if TYPE_CHECKING:
    from rfverify.spaces import FeatureMapSpace


def _default_space() -> "FeatureMapSpace":
    # rfverify.spaces (Hypothesis, 0.4 s CPU) is imported when a space is made, not by every CLI start-up
    from rfverify.spaces import FeatureMapSpace

    return FeatureMapSpace()

__all__ = ["Declarations", "CheckContext", "Estimates", "FeatureMapConfig", "FeatureMapOptions", "verify",
           "verify_feature_map", "not_for_data_dependent",
           "not_for_deterministic", "PREFLIGHT_M"]

#: n_components of the preflight's one fit-and-transform.
PREFLIGHT_M = 16


@dataclass(frozen=True)
class Declarations:
    """What the plug-in claims; these decide which checks apply.

    ``bound``: C with |feature| * sqrt(m) <= C (enables the Hoeffding check);
    ``unbiased``: E[k_hat] = k is claimed (default); ``bias_bound``: for a
    scheme claimed biased, the bound |E k_hat - k| <= bias_bound it promises;
    ``data_dependent``: fit depends on X (declared or detected, see
    :mod:`rfverify.kinds.data_dependence`): the checks over the features' randomness
    do not apply (:func:`not_for_data_dependent`).
    ``deterministic``: the map draws nothing (a cubature or a fixed grid): the same features for every
    ``random_state``; it is judged on exactness and on its measured bias, and the checks over the
    features' randomness say why they do not apply (:func:`not_for_deterministic`).
    """

    bound: float | None = None
    unbiased: bool = True
    bias_bound: float | None = None
    data_dependent: bool = False
    deterministic: bool = False

    def to_dict(self) -> dict[str, Any]:
        return {"bound": self.bound, "unbiased": self.unbiased, "bias_bound": self.bias_bound,
                "data_dependent": self.data_dependent, "deterministic": self.deterministic}


def not_for_data_dependent(ctx: Any) -> str | None:
    """The skip reason of the checks over the features' randomness for a data-dependent map, else None."""
    if getattr(getattr(ctx, "declarations", None), "data_dependent", False):
        return ("not promised for a data-dependent map: an adapted basis is a deterministic function of its data "
                "and seed, not an average of independent random features, so a claim over the randomness of the "
                "basis (unbiasedness, concentration, the 1/m error rate) is not a claim of the method "
                "(alber2017 §3.2); adapted-approximation measures it on held-out points instead")
    return None


DETERMINISTIC_SKIP = ("declared deterministic: the map draws nothing, so there is no randomness to average over "
                      "(no 1/m law, no concentration); it is judged on exactness and its measured bias by "
                      "unbiasedness")


def not_for_deterministic(ctx: Any) -> str | None:
    """The skip reason of the checks over the features' randomness, for a data-dependent or deterministic map."""
    reason = not_for_data_dependent(ctx)
    if reason:
        return reason
    if getattr(getattr(ctx, "declarations", None), "deterministic", False):
        return DETERMINISTIC_SKIP
    return None


def _declared_deterministic(obj: Any) -> bool:
    try:
        return getattr(obj, "deterministic", None) is True
    except Exception:  # a raising property is not a declaration
        return False


@dataclass
class Estimates:
    """Kernel estimates of R seeds at the pair design, for one feature count m."""

    values: np.ndarray  # (R, P)
    sup: np.ndarray  # (R,) max |feature| * sqrt(m_out) per seed
    m_out: int
    #: The features' real dtype (float32 features are judged by float32 arithmetic).
    dtype: str = "float64"

    def roundoff(self, d: int) -> float:
        """The round-off bound of one estimate (:func:`rfverify.tolerances.estimate_roundoff`) at the width
        and dtype the map returned and its largest observed feature."""
        from rfverify.tolerances import estimate_roundoff

        s = float(np.max(self.sup)) / np.sqrt(max(self.m_out, 1)) if len(self.sup) else 0.0
        return estimate_roundoff(d, self.m_out, self.dtype, s)


@dataclass
class CheckContext(BaseContext["FeatureMapConfig | None"]):
    """Everything a feature-map check may use; randomness only via ``seeds``.

    It carries its own copies of the plug-in, kernel and dimension because a corner (:meth:`at_corner`) moves
    them; ``config`` is the configuration it was made from (None: a map a check wraps itself, e.g. a composite
    kernel's reference map), and ``name`` is its plug-in's.
    """

    plugin: FeatureMapPlugin = None  # type: ignore[assignment]
    kernel: Kernel = None  # type: ignore[assignment]
    domain: Any = "gaussian"
    dim: int = 16
    declarations: Declarations = field(default_factory=Declarations)
    #: Shared by every check of one configuration, so the pair design (and, for a callable kernel,
    #: the calibration of the input scale) is computed once, not once per check.
    pair_cache: dict[str, PairSet] = field(default_factory=dict, repr=False)
    #: The configuration space the ``explore`` check searches (:mod:`rfverify.spaces`).
    space: FeatureMapSpace = field(default_factory=_default_space)
    #: The space with the declaration of the object the plug-in builds (a factory returning a class that declares
    #: ``rfverify_space``): ``respace(declared)`` -> FeatureMapSpace, the caller's space and pins still applied last.
    respace: Any = field(default=None, repr=False)
    #: The axes the caller pinned (``--n-components``, ``--dtype``, ``--pin``); pinning d and n_components makes
    #: the statistical checks replay that one configuration as a corner (:mod:`rfverify.corners`).
    pins: Mapping[str, Any] = field(default_factory=dict)
    #: The corner configuration this context evaluates (None: the main configuration), see :meth:`at_corner`.
    corner: Any = None
    #: Expected failures at corners of this check (``--xfail CHECK@KEY=VALUE=REASON``; :class:`rfverify.corners.
    #: CornerXfail`): judged by the statistical checks' corner runs, the main verdict shown beside them.
    corner_xfail: tuple[Any, ...] = ()

    @property
    def name(self) -> str:
        return self.plugin.name

    def at_corner(self, corner: Any, alpha: float, profile: Profile) -> "CheckContext":
        """This check at a corner configuration (:class:`rfverify.corners.Corner`): its d, n_components (through
        ``profile``), input dtype and kernel parameters, its own pair design and random streams (keyed by the
        corner), ``alpha``, and a reproduce command that pins it."""
        from dataclasses import replace

        moved = {k: v for k, v in corner.params}
        kernel = self.kernel if not moved else as_kernel(self.kernel.name, {**self.kernel.params, **moved})
        # the widths seen are per configuration (a map may round n_components up to a multiple of d)
        plugin = replace(self.plugin, passthrough=self.plugin.passthrough_at(moved), widths={})
        # the pins come last, so they win over any given before (argparse keeps the last --dtype, --pin d=)
        reproduce = self.reproduce if corner.covers == "pinned" else (
            self.reproduce + " " + " ".join(pin_options(corner.pins())))
        return replace(self, alpha=alpha, profile=profile, kernel=kernel, plugin=plugin, dim=corner.d,
                       corner=corner, reproduce=reproduce)

    def fail(self, headline: str, observed: str | None = None, expected: str | None = None, **kw: Any) -> Any:
        """:meth:`BaseContext.fail`, with the corner configuration named in ``where:`` at a corner."""
        if self.corner is not None:
            where = kw.get("where", "")
            kw["where"] = (f"{where} " if where else "") + f"at the corner configuration {self.corner.describe()}" + (
                f" ({self.corner.covers})" if self.corner.covers and self.corner.covers != "pinned" else "")
        return super().fail(headline, observed, expected, **kw)

    @property
    def key(self) -> tuple[Any, ...]:
        """The stable key of this check's streams.

        The implementation is deliberately *not* in it: the same command
        reproduces a verdict however the implementation was named, and
        implementations are compared on common random numbers.
        """
        dom = self.domain if isinstance(self.domain, str) else getattr(self.domain, "__qualname__", "domain")
        return ("feature-map", self.check, self.kernel.describe(), self.dim, dom) + (
            self.corner.key() if self.corner is not None else ())

    def random_state(self, *stream: Any, trial: int) -> int:
        return self.seeds.random_state(*self.key, *stream, trial=trial)

    def rng(self, *stream: Any) -> np.random.Generator:
        return self.seeds.rng(*self.key, *stream)

    @property
    def pairs(self) -> PairSet:
        """The designed input pairs (the same for every check of a configuration)."""
        slot = "pairs" if self.corner is None else ("pairs",) + self.corner.key()
        if slot not in self.pair_cache:
            dom = self.domain if isinstance(self.domain, str) else getattr(self.domain, "__qualname__", "domain")
            rng = self.seeds.rng("pairs", self.kernel.describe(), self.dim, dom)
            pairs = make_pairs(self.domain, self.dim, self.kernel, rng)
            if self.corner is not None and self.corner.dtype != "float64":
                pairs = _rounded(pairs, self.kernel, self.corner.dtype)
            self.pair_cache[slot] = pairs
        return self.pair_cache[slot]

    def stacked_inputs(self) -> np.ndarray:
        """The pairs' points stacked (X over Y) in the corner's dtype: the same array again for the same design (a
        plug-in in its own process is sent it once; each draw gets it refilled with these values)."""
        p = self.pairs
        if self.plugin.host is None:  # in this process a plug-in could write into it: a new array each time
            Z = np.vstack([p.X, p.Y])
            return Z if self.corner is None else Z.astype(self.corner.dtype)
        key = (id(p), None if self.corner is None else np.dtype(self.corner.dtype).str)
        cached = self.__dict__.get("_stacked")
        if cached is not None and cached[0] == key and cached[1] is p:
            Z, Z0 = cached[2], cached[3]
            if not np.array_equal(Z, Z0):  # the plug-in wrote into it (its writes reach the harness's array)
                Z[...] = Z0
            return Z
        Z = np.vstack([p.X, p.Y])
        Z = Z if self.corner is None else Z.astype(self.corner.dtype)
        self.__dict__["_stacked"] = (key, p, Z, Z.copy())
        return Z

    def fit(self, m: int, random_state: int) -> FittedMap:
        return self.plugin.fit(m, random_state, self.stacked_inputs())

    def estimate_once(self, m: int, random_state: int) -> tuple[np.ndarray, float, int]:
        """k_hat at every pair from one draw; also max |feature| * sqrt(m_out)."""
        k_hat, sup, m_out, _ = self._estimate(m, random_state)
        return k_hat, sup, m_out

    def _estimate(self, m: int, random_state: int, F: np.ndarray | None = None) -> tuple[np.ndarray, float, int, str]:
        """k_hat, sup, width and dtype of one draw (``F``: its features, already computed)."""
        Z = self.stacked_inputs()
        if F is None:
            _, F = self.plugin.fit_transform(m, random_state, Z, keep=False)  # one operation in the plug-in's process
        if F.ndim == 2 and F.shape[1] == 0:  # nothing to estimate k with
            if self.corner is None:  # at the main configuration: the plug-in's error
                raise PluginError(self.plugin.name, f"transform returned no features (shape {F.shape}) for "
                                  f"n_components={m}", f"return an array of shape ({len(Z)}, m) with m >= 1")
            from rfverify.corners import CornerNotApplicable

            raise CornerNotApplicable(f"the map returned {F.shape[1]} features for n_components={m}: a corner's "
                                      "check needs at least one feature (the width is judged at the main configuration "
                                      "and by contract/explore)")
        P = self.pairs.n
        k_hat = np.real(np.sum(F[:P] * np.conj(F[P:]), axis=1))
        sup = float(np.max(np.abs(F))) * np.sqrt(F.shape[1])
        return k_hat, sup, F.shape[1], str(F.real.dtype)

    def estimates(self, m: int, trials: range, *stream: Any) -> Estimates:
        vals = np.empty((len(trials), self.pairs.n))
        sups = np.empty(len(trials))
        m_out = 0
        dtype = "float64"
        seeds = [self.random_state(*stream, m, trial=t) for t in trials]
        # the draws in a few operations of the plug-in's process, each judged here in turn
        for i, (rs, F) in enumerate(zip(seeds, self.plugin.draws(m, seeds, self.stacked_inputs()))):
            vals[i], sups[i], m_out, dt = self._estimate(m, rs, F)
            if np.dtype(dt).itemsize < np.dtype(dtype).itemsize:
                dtype = dt  # the coarsest dtype returned decides the round-off
        return Estimates(vals, sups, m_out, dtype)


def _rounded(pairs: PairSet, kernel: Kernel, dtype: str) -> PairSet:
    """The pair design rounded to ``dtype`` (a float32 corner), its exact kernel values at the rounded points."""
    from dataclasses import replace

    X = pairs.X.astype(dtype).astype(np.float64)
    Y = pairs.Y.astype(dtype).astype(np.float64)
    diag = np.sqrt(np.abs(kernel.pairwise(X, X) * kernel.pairwise(Y, Y)))
    return replace(pairs, X=X, Y=Y, exact=kernel.pairwise(X, Y), diag=diag)


#: Largest declared bound C (or bias bound) accepted: the concentration check's tail bound uses C**4, which
#: must stay far from overflow; no usable feature map needs |feature| * sqrt(m) anywhere near it.
MAX_BOUND = 1e6


def _domain_spec(domain: Any, spec: str | None) -> str | None:
    """The domain's name in the reproduce command: a registered name, or a callable's MODULE:ATTR (None: not
    importable); anything else is a usage error."""
    if isinstance(domain, str):
        if domain not in DOMAINS:
            raise UsageError(f"unknown domain {domain!r}; use one of {', '.join(DOMAINS)} or a callable "
                             "domain(n, d, rng) -> (n, d) array")
        return domain
    if callable(domain):
        return spec if spec is not None else spec_of(domain)
    raise UsageError(f"domain must be a name or a callable, got {type(domain).__name__}")


def _validate_bound(bound: Any) -> float | None:
    if bound is None:
        return None
    if isinstance(bound, (bool, np.bool_)):
        raise UsageError(f"bound must be a positive number, got {bound!r}")
    try:
        b = float(bound)
    except (TypeError, ValueError):
        raise UsageError(f"bound must be a positive number, got {bound!r}") from None
    if not np.isfinite(b) or b <= 0 or b > MAX_BOUND:
        raise UsageError(f"bound must be a positive finite number at most {MAX_BOUND:g}, got {bound!r}")
    return b


def _flag(option_name: str) -> Callable[[Any], list[str]]:
    """The reproduce rendering of a declaration flag: ``option_name`` when it was declared True."""
    attr = option_name.lstrip("-").replace("-", "_")
    return lambda c: [option_name] if getattr(c, "declared_" + attr) is True else []


def _kernel_options(c: "FeatureMapConfig") -> list[str]:
    parts = ["--kernel", c.kernel_spec or "<MODULE:ATTR>"]
    if isinstance(c.kernel_spec, str):  # --param goes to a registry kernel or a MODULE:ATTR callable
        for k in sorted(c.kernel.params):
            parts += ["--param", f"{k}={c.kernel.params[k]!r}"]
    return parts


def _param_map_options(c: "FeatureMapConfig") -> list[str]:
    from rfverify.param_map import describe

    return [part for text in describe(c.plugin.param_map) for part in ("--param-name", text)]


def _parse_param_map(items: list[str] | None) -> Any:
    from rfverify.param_map import parse_param_map

    return parse_param_map(items or [])


@dataclass(frozen=True)
class FeatureMapOptions:
    """The options of a feature map (``verify``, ``rfverify check feature-map``, ``rfverify report``), declared once:
    each field's metadata generates its command-line option, its reading back, its part of the reproduce command
    and its keyword of :func:`verify` (:mod:`rfverify.kinds.options`)."""

    #: A registry name, a :class:`Kernel`, a callable ``k(X, Y)`` or ``"MODULE:ATTR"`` naming one.
    kernel: str | Kernel | Callable[..., Any] = option(
        "rbf", flag="--kernel", cli_default="rbf", render=_kernel_options,
        help="registry name, or MODULE:ATTR of k(X, Y) -> Gram (default rbf)")
    kernel_params: Mapping[str, Any] | None = option(
        None, flag="--param", action="append", cli_default=[], metavar="KEY=VALUE", help="kernel parameter (repeatable)",
        parse=lambda items: dict(parse_param(p) for p in items or []))
    dim: int = option(16, flag="--dim", cli_default="16", help="input dimension d (default 16)",
                      parse=lambda text: parse_int(text, "--dim"), render=lambda c: ["--dim", str(c.dim)])
    #: ``gaussian``, ``sphere``, ``positive``, a callable ``domain(n, d, rng)`` or ``"MODULE:ATTR"`` naming one.
    domain: str | Callable[..., Any] = option(
        "gaussian", flag="--domain", cli_default="gaussian",
        render=lambda c: ["--domain", c.domain_spec or "<MODULE:ATTR>"],
        help="gaussian | sphere | positive | MODULE:ATTR of domain(n, d, rng) (default gaussian)")
    bound: float | None = option(
        None, flag="--bound", help="declared C with |feature| * sqrt(m) <= C (enables the Hoeffding check)",
        render=lambda c: ["--bound", repr(c.declarations.bound)] if c.declarations.bound is not None else [])
    unbiased: bool = option(True, flag="--biased", action="store_true", parse=lambda biased: not biased,
                            help="the estimate is not claimed unbiased",
                            render=lambda c: [] if c.declarations.unbiased else ["--biased"])
    bias_bound: float | None = option(
        None, flag="--bias-bound", help="with --biased: the claimed bound on |E k_hat - k|",
        render=lambda c: ["--bias-bound", repr(c.declarations.bias_bound)] if c.declarations.bias_bound is not None
        else [])
    data_dependent: bool | None = option(
        None, flag="--data-dependent", action="store_true", parse=lambda given: True if given else None,
        render=_flag("--data-dependent"),
        help="fit depends on X (an adapted basis): skip the checks over the features' randomness and measure "
        "adapted-approximation instead (default: the plug-in's attribute or detection decides)")
    deterministic: bool | None = option(
        None, flag="--deterministic", action="store_true", parse=lambda given: True if given else None,
        render=_flag("--deterministic"),
        help="the map draws nothing (the same features for every random_state): judged on exactness and measured "
        "bias; the checks over the randomness are skipped with the reason")
    #: Kernel parameter -> ``"NAME[:EXPRESSION]"`` (:mod:`rfverify.param_map`).
    param_map: Mapping[str, Any] | None = option(
        None, flag="--param-name", action="append", cli_default=[], metavar="KEY=NAME[:EXPR]", parse=_parse_param_map,
        render=_param_map_options,
        help="pass kernel parameter KEY to the constructor as NAME, converted by EXPR (e.g. "
        "gamma=sigma:1/sqrt(2*gamma); KEY= to not pass it); repeatable")
    init: Mapping[str, Any] | None = option(
        None, flag="--init", action="append", cli_default=[], metavar="KEY=VALUE",
        parse=lambda items: dict(parse_param(p, "--init") for p in items or []),
        render=lambda c: [part for k in sorted(c.plugin.init) for part in ("--init", f"{k}={c.plugin.init[k]!r}")],
        help="constructor argument (a Python literal or a bare word); repeatable")
    global_seed: str | None = option(
        None, flag="--global-seed", choices=["numpy", "torch"],
        render=lambda c: ["--global-seed", c.plugin.global_seed] if c.plugin.global_seed else [],
        help="the library draws from this global generator only: seed it from each draw's random_state before fit "
        "and restore it after (recorded in the report)")
    input: str | None = input_option("a torch module's device and dtype, else the library's default float dtype "
                                     "(float32 for torch and JAX)",
                                     render=lambda c: ["--input", c.plugin.input] if c.plugin.input else [])
    #: The method returning features; its reproduce options stand for the whole call declaration (method,
    #: call_kw, width, feature_scale and the renamed width/seed arguments: :meth:`rfverify.plugin_calls.CallSpec.
    #: options`).
    method: str | None = option(
        None, flag="--method", metavar="NAME", render=lambda c: c.plugin.calls.options(),
        help="the method that returns features (default transform; a private name such as _featurize is allowed "
        "and noted in the report); fit is called when the object has one")
    call_kw: Mapping[str, Any] | None = call_kw_option()
    width: str | None = option(
        None, flag="--width", metavar="EXPR",
        help="the output width as an expression of m (the requested n_components) and d, e.g. 2*m; another width is "
        "an error")
    feature_scale: str | None = option(
        None, flag="--feature-scale", metavar="EXPR",
        help="judge the features multiplied by EXPR of m and d, e.g. 'sqrt(2/m)' for a library returning "
        "unnormalised features (the report says so)")
    jit: bool | None = option(
        None, flag="--jit", action="store_true", parse=lambda given: True if given else None, render=_flag("--jit"),
        help="the map is jit-compiled (implied by --input jax and by a jax.jit function): explore draws shapes from a "
        "small fixed set, so that few compilations are paid")
    #: Axes of the explored space fixed (``--n-components``, ``--batch``, ``--dtype``, ``--layout``, ``--pin``).
    pins: Mapping[str, Any] | None = pins_option(add_pin_options, render=lambda c: pin_options(c.pins))
    #: The caller's narrowing of the explored space (:mod:`rfverify.spaces`).
    space: Mapping[str, Any] | None = space_option()
    #: How the kernel and the domain are named in the reproduce command when given as objects (internal; default:
    #: the ``MODULE:ATTR`` given, else the object's importable name).
    kernel_spec: str | None = option(None, public=False)
    domain_spec: str | None = option(None, public=False)


class FeatureMapConfig(KindConfig):
    """A validated configuration for verifying one feature map.

    Every plug-in kind has a config class with this interface: ``kind``,
    ``seeds``, ``profile``, ``label``, ``target()``, ``as_dict()``,
    ``context(spec)``, ``preflight()`` and ``reproduce(check)``; :func:`run`
    needs nothing else.
    """

    kind = "feature-map"
    DIM_RANGE = (1, 65536)
    DIM_WHY = "the pair design and a fit on 2 x 24 rows stay within memory up to 2^16 input dimensions"
    CLI = CliSpec("Verify a feature map MODULE:ATTR (or several, with the same options) against a kernel.", many=True,
                  examples=("rfverify check feature-map sklearn.kernel_approximation:RBFSampler --kernel rbf "
                            "--param gamma=0.5 --bound 1.4142135623730951",
                            "rfverify check feature-map mypkg.maps:A mypkg.maps:B --kernel rbf --jobs 2 --report out/"))

    Options = FeatureMapOptions
    options: FeatureMapOptions

    def _setup(self, implementation: Any, name: str | None) -> None:
        o = self.options
        kernel, domain, kernel_spec, domain_spec = o.kernel, o.domain, o.kernel_spec, o.domain_spec
        if isinstance(kernel, str) and ":" in kernel:  # MODULE:ATTR of a kernel callable, named so in the reproduce
            kernel_spec, kernel = kernel_spec or kernel, load_object(kernel)
        if isinstance(domain, str) and ":" in domain:
            domain_spec, domain = domain_spec or domain, load_object(domain)
        self.kernel = as_kernel(kernel, o.kernel_params)
        self.kernel_spec = kernel_spec if kernel_spec is not None else (kernel if isinstance(kernel, str) else None)
        if self.kernel_spec is None and callable(kernel) and not isinstance(kernel, Kernel):
            # an importable callable is named MODULE:ATTR in the reproduce command (None: not importable)
            self.kernel_spec = spec_of(kernel)
        elif self.kernel_spec is None and self.kernel.name and ":" in self.kernel.name:
            self.kernel_spec = self.kernel.name
        self.dim = self.validate_dim(o.dim)
        self.domain, self.domain_spec = domain, _domain_spec(domain, domain_spec)
        data_dependent, deterministic = o.data_dependent, o.deterministic
        if data_dependent not in (None, True, False):
            raise UsageError(f"data_dependent must be True, False or None (decide), got {data_dependent!r}")
        #: None: the plug-in's attribute or detection decides (in the preflight); True/False: the caller's.
        self.declared_data_dependent = data_dependent
        #: How data dependence was decided (set by the preflight; recorded in the report).
        self.data_dependence: dict[str, Any] | None = None
        self.declarations = Declarations(_validate_bound(o.bound), as_flag(o.unbiased, "unbiased"),
                                         _validate_bound(o.bias_bound), data_dependent is True)
        self._pair_cache: dict[str, Any] = {}
        self.plugin: FeatureMapPlugin = as_feature_map(
            implementation, kernel_params=dict(self.kernel.params), name=as_name(name), param_map=o.param_map,
            init=o.init, global_seed=o.global_seed, input=o.input, method=o.method, call_kw=o.call_kw, width=o.width,
            feature_scale=o.feature_scale)
        #: The plug-in's process (:mod:`rfverify.containment.host`), or None when the plug-in runs in this process.
        self.host = self.plugin.host
        if deterministic not in (None, True, False):
            raise UsageError(f"deterministic must be True, False or None (the plug-in's attribute), got "
                             f"{deterministic!r}")
        #: True when declared (argument, --deterministic, or the plug-in's attribute ``deterministic = True``).
        self.declared_deterministic = deterministic
        if deterministic is None:
            deterministic = _declared_deterministic(self.plugin.obj)
        from dataclasses import replace

        self.declarations = replace(self.declarations, deterministic=bool(deterministic))
        if self.plugin.calls.name_of("random_state") is None and not (deterministic or self.plugin.global_seed):
            raise UsageError("random_state is not passed (--param-name random_state=): declare how the map is "
                             "seeded, --global-seed numpy|torch, or that it draws nothing, --deterministic")
        #: declared (True/False) or None: decided (input="jax", a jax.jit function); explore's shapes follow it
        self.declared_jit = o.jit
        self.plugin.jit = self._decide_jit(o.jit)
        self.pins = dict(o.pins or {})
        self.space = self._space(o.space)

    def _decide_jit(self, jit: bool | None) -> bool:
        """Whether explore draws its shapes from the fixed set of a jit-compiled map: declared, or decided where
        the plug-in's type lives (its own process when hosted)."""
        from rfverify.arrays import JIT_INPUTS, decide_jit, is_jitted

        if self.host is not None and jit is None and self.plugin.input not in JIT_INPUTS:  # the type is over there
            return self.host.run(is_jitted, self.plugin.obj) is True
        return decide_jit(jit, self.plugin.input, self.plugin.obj)

    #: The plug-in is imported, detected and called in its own process (rfverify.containment.host) when isolation is on.
    HOSTED = True
    #: Options naming code the harness imports (a kernel or domain callable named MODULE:ATTR: part of the
    #: reference): the CLI builds such a configuration in a throw-away child first (rfverify.containment.probe).
    HARNESS_IMPORTS = ("kernel", "domain")

    def in_process(self) -> None:
        """Run the plug-in in this process from now on (``isolate=False``): its object here, its process ended."""
        if self.host is not None:
            self.plugin.obj = self.host.local_root()
            self.plugin.host = None
            self.host.close()
            self.host = None

    def _space(self, space: Mapping[str, Any] | None) -> FeatureMapSpace:
        """The explored space: the default, narrowed by the plug-in's ``rfverify_space`` attribute, the caller's
        ``space`` and the pins (:mod:`rfverify.spaces`).  Only kernel parameters the plug-in receives are searched."""
        from rfverify.spaces import declared_space

        declared = declared_space(self.plugin.obj)
        self._space_arg = space
        self.caller_space = dict(space or {})
        self.space_declared = declared is not None
        return self.respace(declared)

    def respace(self, declared: Mapping[str, Any] | None) -> FeatureMapSpace:
        """The space narrowed by ``declared`` (the plug-in's declaration), then the caller's space and the pins."""
        from rfverify.spaces import FeatureMapSpace

        return FeatureMapSpace.for_plugin(self.plugin, self.kernel, [declared, self._space_arg, self.pins])

    def _context(self, spec: CheckSpec, alpha: float, reproduce: str) -> CheckContext:
        return CheckContext(spec.name, self.profile, self.seeds, alpha, reproduce, config=self,
                            plugin=self.plugin, kernel=self.kernel, domain=self.domain, dim=self.dim,
                            declarations=self.declarations, pair_cache=self._pair_cache, space=self.space,
                            respace=None if self.space_declared else self.respace, pins=self.pins,
                            corner_xfail=tuple(getattr(self, "corner_xfail", {}).get(spec.name, ())))

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
            "init": dict(self.plugin.init),
            "param_map": {k: list(r) for k, r in self.plugin.param_map.items()},
            # never silent: a library seeded through a global generator is recorded as such
            "global_seed": (None if not self.plugin.global_seed else
                            f"{self.plugin.global_seed}: seeded from each draw's random_state before fit, "
                            "restored after"),
            "input": self.plugin.input or "numpy",
            "calls": self.plugin.calls.as_dict(),
            # the arrays the plug-in was handed and returned: library, dtype (float32 is judged as float32), device
            "arrays": self.plugin.arrays.to_dict(),
            "jit": self.plugin.jit,
            "space": self.space.describe(),
        }

    def preflight(self) -> str | None:
        """Build, fit and transform once (a health check); the problem, or None.

        A user-supplied kernel callable (not a registry kernel) is screened first: the cheap
        deterministic ``kernel-symmetry`` and ``kernel-psd`` checks; a kernel that is
        not symmetric PSD cannot be estimated by any feature map, so every check then errors.
        """
        if self.kernel._spec is None:
            from rfverify.kinds.kernel import screen_reference_kernel  # a kind may use another kind

            problem = screen_reference_kernel(self)
            if problem is not None:
                return problem
        ctx = cast(CheckContext, self.context(self.checks()[0]))
        try:
            ctx.estimate_once(PREFLIGHT_M, self.seeds.random_state("preflight"))
            self.decide_data_dependence(ctx)
        except PluginError as exc:
            return str(exc)
        except UsageError:
            raise
        return None

    def after_failed_preflight(self) -> None:
        """What the checks read from the preflight, when the preflight's own calls failed (a check then runs in a
        child of its own, :mod:`rfverify.containment.supervise`): the data-dependence decision alone."""
        try:
            self.decide_data_dependence(cast(CheckContext, self.context(self.checks()[0])))
        except PluginError:
            pass  # undecided: the declarations stand

    def decide_data_dependence(self, ctx: CheckContext) -> None:
        """Declared or detected, once (:mod:`rfverify.kinds.data_dependence`); sets ``declarations.data_dependent``."""
        from dataclasses import replace

        from rfverify.kinds.data_dependence import decide

        if self.data_dependence is None:
            self.data_dependence = decide(ctx, self.declared_data_dependent)
            self.declarations = replace(self.declarations, data_dependent=bool(self.data_dependence["data_dependent"]))

    def metrics(self) -> dict[str, Any]:
        """The report's ``metrics`` block: held-out kernel-approximation metrics (:mod:`rfverify.metrics`)."""
        from rfverify.metrics import report_metrics

        return report_metrics(self.context(self.checks()[0]))


def reference_random_basis(kernel: Kernel, m: int, random_state: int,
                           X_fit: np.ndarray) -> tuple[Any | None, str]:
    """The registry's random features for ``kernel`` (rbf, laplacian, arccos), fitted at ``m`` and
    ``random_state``, with a description; ``(None, reason)`` for other kernels.

    The random basis that ``adapted-approximation`` compares a data-dependent map with; the kind hands it
    to the check so that the checks never import the reference schemes they judge.
    """
    name, params = kernel.name, dict(kernel.params)
    if name == "rbf":
        from rfverify.implementations.rff import RandomFourierFeatures

        return (RandomFourierFeatures(m, random_state, gamma=params["gamma"]).fit(X_fit),
                "random Fourier features (rfverify.implementations.rff, same m and random_state)")
    if name == "laplacian":
        from rfverify.implementations.laplacian import LaplacianRandomFeatures

        return (LaplacianRandomFeatures(m, random_state, gamma=params["gamma"]).fit(X_fit),
                "Cauchy random Fourier features (rfverify.implementations.laplacian, same m and random_state)")
    if name == "arccos":
        from rfverify.implementations.arccos import ArcCosineFeatures

        return (ArcCosineFeatures(m, random_state, order=params["order"]).fit(X_fit),
                "arc-cosine random features (rfverify.implementations.arccos, same m and random_state)")
    return None, (f"no reference random basis: the map has no initial_basis() and rfverify has no random "
                  f"features for kernel {kernel.describe()}")


verify_feature_map = make_verify(FeatureMapConfig, "verify_feature_map", """Verify a feature map against a kernel; returns a
    :class:`~rfverify.results.Report`.

    ``implementation`` is a factory, a function, an sklearn-style class or
    instance, or a ``"MODULE:ATTR"`` string (see :mod:`rfverify.adapters`).
    ``checks`` selects checks by name; ``xfail`` maps check names to the reason
    they are expected to fail.  Raises :class:`~rfverify.errors.UsageError`
    for bad arguments; a misbehaving implementation yields status ``error``.
    ``time_limit`` (seconds per check) and ``memory_limit`` (bytes or "4G")
    default to the profile's (:mod:`rfverify.containment.guard`); 0 disables either.
    ``data_dependent``: declare that fit depends on X (True), or that it does
    not (False); None lets the plug-in's ``data_dependent`` attribute or a
    detection in the preflight decide (:mod:`rfverify.kinds.data_dependence`).
    ``metrics``: compute the report's held-out metrics block (None: when every
    check runs).
    ``deterministic``: the map draws nothing (None: its ``deterministic`` attribute decides);
    ``param_map``: kernel parameter -> ``"NAME[:EXPRESSION]"`` (:mod:`rfverify.param_map`);
    ``init``: constructor arguments; ``global_seed``: ``"numpy"``/``"torch"`` for a library seeded only
    through that global generator (seeded from each draw's random_state, restored after, recorded);
    ``input``: ``"torch"``, ``"jax"`` or ``"cupy"`` hands the plug-in that library's arrays; outputs of numpy, torch
    (CPU or CUDA), JAX, CuPy and dask are brought to the host in their own dtype (:mod:`rfverify.arrays`; the
    report records library, dtype and device).  ``jit``: the map is jit-compiled (None: ``input="jax"`` or a
    detected ``jax.jit`` function), so ``explore`` draws its shapes from a small fixed set.
    ``method``, ``call_kw``, ``width``, ``feature_scale``: the method returning features, extra keywords of that
    call, the output width and a normalisation as expressions of m (:mod:`rfverify.plugin_calls`); the keys
    ``n_components``/``random_state`` of ``param_map`` rename (or, with ``""``, drop) those arguments.
    ``space`` narrows the configuration space ``explore`` searches and ``pins`` fixes axes of it
    (:mod:`rfverify.spaces`).  A clean refusal (ValueError, TypeError, NotImplementedError) away from the main
    configuration sets that configuration aside and the verdict states the refused region;
    ``strict_space=True`` makes any refusal in the space a failure of ``explore`` (:mod:`rfverify.refusals`).    The keywords are the fields of :class:`FeatureMapOptions` and those of the run (``seed``, ``profile``,
    ``name``, ``checks``, ``xfail``, ``time_limit``, ``memory_limit``, ``strict_space``, ``metrics``).
    """, run_keywords=("metrics",))
#: The feature-map kind's entry point is also :func:`rfverify.verify` (``kind="feature-map"``, the default).
verify = verify_feature_map
