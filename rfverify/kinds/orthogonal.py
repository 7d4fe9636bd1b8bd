"""The ``orthogonal`` plug-in kind: random orthogonal-matrix samplers claimed Haar on O(d) or SO(d).

A sampler is accepted in two forms (detected, never declared):

* ``sample(d, rng) -> (d, d) array`` — a function (or an object with a
  ``sample`` method) taking the dimension and a keyword-or-positional ``rng``
  (a :class:`numpy.random.Generator`);
* a scipy.stats-like distribution with ``rvs(dim=..., random_state=...)``
  (``scipy.stats.ortho_group``, ``special_ortho_group``).

Every draw ``t`` of a check gets its own Generator spawned from the root seed
and the stable key ``("orthogonal", stream, d, group)`` and ``t``: verdicts do
not depend on the implementation's name, check order or selection.  The Haar
checks share one sample (``OrthogonalContext.sample``), drawn once per
configuration and cached; it is a deterministic function of the key.

Declared capability: ``group`` ("O" or "SO") decides what the determinant and
moment checks expect.  ``is Haar`` is kept apart from ``gives an unbiased
kernel``: see :data:`KERNEL_NOTE`.
"""

from __future__ import annotations

import types
from dataclasses import dataclass, field
from typing import Any, Iterable, Iterator, Mapping

import numpy as np

from rfverify.containment import guard
from rfverify.adapters import load_object
from rfverify.plugin_calls import spec_of
from rfverify.arrays import ArrayRecord, to_input, to_numpy, validate_input
from rfverify.errors import PluginError, UsageError
from rfverify.jsontypes import JSONValue
from rfverify.containment.hosted_kinds import HostedAdapter
from rfverify.kinds.base import (CliSpec, KindConfig, call_kw_option, input_option, parse_int, pin_flag, pins_option,
                                 space_option)
from rfverify.kinds.options import make_verify, option
from rfverify.profiles import Profile, budget
from rfverify.registry import BaseContext, CheckSpec, PluginObject

__all__ = ["OrthogonalBudget", "orthogonal_budget", "orthogonal_corners", "ORTHOGONAL_CORNER_D_MAX", "OrthogonalSampler", "OrthogonalConfig",
           "OrthogonalContext", "OrthogonalOptions", "verify_orthogonal", "KERNEL_NOTE", "GROUPS"]

GROUPS = ("O", "SO")

KERNEL_NOTE = (
    "'Haar' and 'unbiased ORF kernel' are different claims: the ORF estimate "
    "(1/m) sum_i cos(s_i q_i.(x - y)) with independent s_i ~ chi_d is unbiased for the Gaussian kernel as "
    "soon as every single row q_i is uniform on the sphere (the joint law of the rows only affects the "
    "variance), so a non-Haar Q can still give an unbiased kernel, and a Haar Q with the wrong row norms "
    "does not; verify ORF feature maps with 'rfverify check feature-map'."
)


def _spaces_module() -> "types.ModuleType":  # imported when a configuration is made (Hypothesis), not when the CLI parser is built
    import rfverify.spaces

    return rfverify.spaces


@dataclass(frozen=True)
class OrthogonalBudget:
    """Sample sizes of the Haar battery for one profile.

    ``draws``: matrices in the shared sample; ``pilot``: the first look of
    every two-look test (a gross departure stops there, see
    :func:`rfverify.properties.haar.two_looks`); ``ortho_draws``: matrices
    checked for orthogonality.
    """

    draws: int
    pilot: int
    ortho_draws: int




#: ``orthogonal_corners(profile)``: the Haar battery at the corner dimensions (:mod:`rfverify.corners`): quick none; default the smallest and the
#: largest d of the space (the largest cut at 128: the eigen-angle and invariance tests decompose every draw),
#: thorough also d = 2; a corner draws ``draws`` matrices (the first ``pilot`` its first look), shares
#: ``share`` of each Haar check's alpha, Bonferroni over the design's corners.
def orthogonal_budget(profile: Profile | str) -> OrthogonalBudget:
    """The profile's Haar sample (``orthogonal`` in :data:`rfverify.profiles.BUDGETS`)."""
    return OrthogonalBudget(**budget(profile, "orthogonal"))


def orthogonal_corners(profile: Profile | str) -> tuple[int, OrthogonalBudget]:
    """(number of corners, the budget at a corner) of a profile (``orthogonal-corners``)."""
    n, kw = budget(profile, "orthogonal-corners")
    return n, OrthogonalBudget(**kw)


ORTHOGONAL_CORNER_D_MAX = 128


def _validate_group(group: Any) -> str:
    if not isinstance(group, str) or group not in GROUPS:
        raise UsageError(f"group must be 'O' or 'SO', got {group!r}")
    return str(group)


class OrthogonalSampler(HostedAdapter):
    """The plug-in, whatever its form: ``draw(d, rng) -> (d, d) ndarray`` with health checks.  With the judge on
    (:mod:`rfverify.containment.hosted_kinds`) the sampler lives in its own process: its form is detected there and every draw
    is made there, the matrix judged here."""

    def __init__(self, implementation: Any, *, name: str | None = None, call_kw: Mapping[str, Any] | None = None,
                 input: str | None = None, hosted: bool = True) -> None:
        from rfverify.containment.hosted_kinds import detect, host_for
        from rfverify.plugin_calls import as_call_kw

        self.spec: str | None = implementation if isinstance(implementation, str) else None
        #: None (numpy), "torch", "jax" or "cupy": the sampler's rng is that library's random source.
        self.input = validate_input(input)
        #: What went in and came out (library, dtype, device), for the report.
        self.arrays = ArrayRecord(self.input or "numpy")
        #: Extra keywords of every draw (``--call-kw``).
        self.call_kw = as_call_kw(call_kw)
        label = name or (implementation if isinstance(implementation, str) else "the sampler")
        #: The sampler's process (:class:`rfverify.containment.host.Host`), or None when it runs in this process.
        self.host = host_for(str(label), implementation) if hosted else None
        if self.host is not None:
            found = detect(self.host, _detect_sampler, implementation if isinstance(implementation, str) else None,
                           name, dict(self.call_kw))
            self.host.plugin = str(found["name"])
            obj: PluginObject = self.host.root_proxy()
        else:
            obj = load_object(implementation) if isinstance(implementation, str) else implementation
            found = _detect_sampler(obj, implementation if isinstance(implementation, str) else None, name,
                                    self.call_kw)
        self.obj = obj
        self.form, self.name = str(found["form"]), str(found["name"])
        self.spec = self.spec or found["spec"]

    def draw(self, d: int, rng: np.random.Generator) -> np.ndarray:
        """One matrix; a raising sampler, a wrong shape, a non-float or non-finite value is a PluginError."""
        return self._judge(d, self._remote("raw_draw", d, rng) if self.host is not None else self.raw_draw(d, rng))

    def draws(self, d: int, rngs: Iterable[np.random.Generator]) -> Iterator[np.ndarray]:
        """:meth:`draw` for each of ``rngs`` in order (a generator); in the sampler's process a few operations for
        all of them (:meth:`rfverify.containment.hosted_kinds.HostedAdapter._draws`)."""
        if self.host is None:
            for rng in rngs:
                yield self.draw(d, rng)
            return
        for out in self._draws("raw_draw", d, rngs):
            yield self._judge(d, out)

    def _judge(self, d: int, out: PluginObject) -> np.ndarray:
        """The sampler's output for d (a numpy array, from wherever it ran), validated here."""
        action = f"sampling a {d}x{d} matrix"
        Q = guard.as_array(out, plugin=self.name, action=action, complex_ok=True)
        if np.iscomplexobj(Q):
            raise PluginError(self.name, f"{action} returned a complex {Q.dtype} matrix: not supported (complex "
                              "unitary samplers)", "the orthogonal checks hold real samplers to Haar measure on O(d) "
                              "or SO(d); U(d) (scipy.stats.unitary_group) has other moments and is not verified here")
        if Q.shape != (d, d):
            raise PluginError(self.name, f"returned shape {Q.shape} for d={d}, expected ({d}, {d})",
                              "return one square matrix per call")
        guard.check_finite(Q, plugin=self.name, action=action)
        return Q

    def raw_draw(self, d: int, rng: np.random.Generator) -> PluginObject:
        """The sampler's output for (d, rng), brought to numpy (where the sampler lives)."""
        action = f"sampling a {d}x{d} matrix"
        hint = "the sampler must accept (d, rng) or rvs(dim=d, random_state=rng)"
        # the plug-in's own UsageError is a fault too: it refused a valid d
        rng = to_input(rng, self.input, record=self.arrays)
        if self.form == "rvs":
            out = guard.call(self.obj.rvs, dim=d, random_state=rng, **self.call_kw, plugin=self.name, action=action,
                             hint=hint)
        elif self.form == "sample-method":
            out = guard.call(self.obj.sample, d, rng, **self.call_kw, plugin=self.name, action=action, hint=hint)
        else:
            out = guard.call(self.obj, d, rng, **self.call_kw, plugin=self.name, action=action, hint=hint)
        return to_numpy(out, plugin=self.name, action=action, record=self.arrays)


def _detect_sampler(obj: PluginObject, spec: str | None, name: str | None,
                    call_kw: Mapping[str, PluginObject]) -> dict[str, JSONValue]:
    """The sampler's form, spec and name (plain data: run where the sampler lives)."""
    from rfverify.text import NAME_LIMIT, clean

    if callable(getattr(obj, "rvs", None)) and not callable(getattr(obj, "sample", None)):
        form = "rvs"
    elif callable(getattr(obj, "sample", None)) and not isinstance(obj, type):
        form = "sample-method"
    elif callable(obj):
        form = "function"
    else:
        raise UsageError(f"{(spec if spec is not None else obj)!r} is neither sample(d, rng) -> (d, d) array nor an object "
                         "with rvs(dim=..., random_state=...)")
    if spec is None:
        spec = spec_of(obj, instances=True)
    label = name or getattr(obj, "__name__", None) or getattr(obj, "name", None) or type(obj).__name__
    if call_kw:
        from rfverify.plugin_calls import check_accepts

        fn = {"rvs": getattr(obj, "rvs", None), "sample-method": getattr(obj, "sample", None)}.get(form, obj)
        check_accepts(fn, call_kw, str(label))
    return {"form": form, "spec": spec if spec is None or len(spec) <= 10_000 else None,
            "name": clean(str(label), NAME_LIMIT, one_line=True)}


@dataclass(frozen=True)
class OrthogonalOptions:
    """The options of an orthogonal sampler (``verify_orthogonal``, ``rfverify check orthogonal``), declared once."""

    dim: int = option(8, flag="--dim", cli_default="8", help="matrix dimension d (default 8)",
                      parse=lambda text: parse_int(text, "--dim"), render=lambda c: ["--dim", str(c.dim)])
    group: str = option("O", flag="--group", cli_default="O", choices=list(GROUPS), help="declared group (default O)",
                        render=lambda c: ["--group", c.group])
    #: ``{"d": D}`` fixes the dimension ``explore`` searches and runs the Haar battery at that corner alone.
    pins: Mapping[str, Any] | None = pins_option(
        pin_flag("d=D", "explore: pin the dimension searched"),
        render=lambda c: ["--pin", f"d={c.pins['d']}"] if c.pins.get("d") is not None else [])
    call_kw: Mapping[str, Any] | None = call_kw_option(render=lambda c: _call_kw_options(c.sampler.call_kw))
    input: str | None = input_option("the rng argument: a torch.Generator, a JAX PRNGKey or a CuPy generator seeded "
                                     "from the check's stream",
                                     render=lambda c: ["--input", c.sampler.input] if c.sampler.input else [])
    #: ``{"d": (lo, hi)}`` narrows the dimensions ``explore`` searches.
    space: Mapping[str, Any] | None = space_option()


def _call_kw_options(call_kw: Mapping[str, Any]) -> list[str]:
    from rfverify.plugin_calls import call_kw_options

    return call_kw_options(call_kw)


class OrthogonalConfig(KindConfig):
    """A validated configuration for verifying one orthogonal sampler."""

    kind = "orthogonal"
    DIM_RANGE = (1, 1024)
    DIM_WHY = "the Haar battery holds thousands of d x d matrices: 1500 draws at d = 1024 are 12 GB"
    CLI = CliSpec("Verify MODULE:ATTR, sample(d, rng) -> (d, d) or an object with rvs(dim=..., random_state=...), "
                  "against Haar measure on --group.",
                  examples=("rfverify check orthogonal rfverify.implementations.orthogonal:haar_qr --dim 8 --group O",))

    Options = OrthogonalOptions
    options: OrthogonalOptions

    def _setup(self, implementation: Any, name: str | None) -> None:
        o = self.options
        self.dim = self.validate_dim(o.dim)
        self.group = _validate_group(o.group)
        #: Axes of the space ``explore`` searches fixed by the caller (``d``; :mod:`rfverify.kinds.pins`).
        self.pins = dict(o.pins or {})
        #: The caller's narrowing of that space (``{"d": (lo, hi)}``; ``space=``, ``--space d=LO:HI``).
        self.space = self.caller_space = dict(o.space or {})
        for key in self.space:
            if key not in ("d", "dim"):
                raise UsageError(f"unknown configuration key {key!r} for an orthogonal sampler; use d")
        _spaces_module().orthogonal_space(self, read_plugin=False)  # a bad space or pin: a UsageError now
        self.budget = orthogonal_budget(self.profile)
        from rfverify.validation import as_name

        self.sampler = OrthogonalSampler(implementation, name=as_name(name), call_kw=o.call_kw, input=o.input)
        self._cache: dict[tuple[Any, ...], np.ndarray] = {}
        self._dtype: np.dtype | None = None

    @property
    def plugin(self) -> OrthogonalSampler:
        return self.sampler

    #: The sampler is imported, detected and called in its own process (rfverify.containment.hosted_kinds) when the judge is on.
    HOSTED = True

    @property
    def host(self) -> PluginObject:
        """The sampler's process (:class:`rfverify.containment.host.Host`), or None when it runs in this process."""
        return self.sampler.host

    def in_process(self) -> None:
        """Run the sampler in this process from now on (``isolate=False``)."""
        self.sampler.in_process()

    def target(self) -> dict[str, Any]:
        return {"name": f"Haar on {self.group}({self.dim})", "params": {}}

    def as_dict(self) -> dict[str, Any]:
        return {"dim": self.dim, "group": self.group, "form": self.sampler.form, "spec": self.sampler.spec,
                "call_kw": dict(self.sampler.call_kw),
                "budget": {"draws": self.budget.draws, "pilot": self.budget.pilot,
                           "ortho_draws": self.budget.ortho_draws},
                "note": KERNEL_NOTE, "input": self.sampler.input or "numpy", "arrays": self.sampler.arrays.to_dict()}

    def _context(self, spec: CheckSpec, alpha: float, reproduce: str) -> "OrthogonalContext":
        return OrthogonalContext(spec.name, self.profile, self.seeds, alpha, reproduce, config=self)

    def preflight(self) -> str | None:
        """Draw once (a health check); the problem, or None."""
        try:
            Q = self.sampler.draw(self.dim, self.seeds.rng("orthogonal", "preflight", self.dim, self.group))
        except PluginError as exc:
            return str(exc)
        self._dtype = Q.dtype
        return None

    def draws(self, stream: str, start: int, stop: int) -> np.ndarray:
        """Matrices ``start..stop-1`` of ``stream`` as a float64 ``(n, d, d)`` array (cached)."""
        key = (stream, start, stop)
        if key not in self._cache:
            d = self.dim
            out = np.empty((stop - start, d, d))
            rngs = (self.seeds.rng("orthogonal", stream, d, self.group, trial=t) for t in range(start, stop))
            for i, Q in enumerate(self.sampler.draws(d, rngs)):
                self._dtype = Q.dtype
                out[i] = Q
            self._cache[key] = out
        return self._cache[key]


@dataclass
class OrthogonalContext(BaseContext[OrthogonalConfig]):
    """What an orthogonal-sampler check may use; randomness only via ``seeds``."""

    _extra: dict[str, Any] = field(default_factory=dict, repr=False)

    @property
    def dim(self) -> int:
        return self.config.dim

    @property
    def group(self) -> str:
        return self.config.group

    @property
    def budget(self) -> OrthogonalBudget:
        return self.config.budget

    @property
    def dtype(self) -> np.dtype:
        """The dtype the sampler returns (it decides the round-off tolerance)."""
        return self.config._dtype if self.config._dtype is not None else np.dtype(np.float64)

    def rng(self, *stream: Any) -> np.random.Generator:
        """A check-private Generator (e.g. for choosing entries), independent of the sample."""
        return self.seeds.rng("orthogonal", self.check, self.dim, self.group, *stream)

    def reference_rotation(self, *stream: Any) -> np.ndarray:
        """A fixed Haar-distributed matrix of the declared group from rfverify's reference sampler
        (:func:`rfverify.implementations.orthogonal.haar_qr`), drawn from this check's private stream."""
        from rfverify.implementations.orthogonal import haar_qr

        return haar_qr(self.dim, self.rng(*stream), group=self.group)

    def at_corner(self, d: int, alpha: float, budget: OrthogonalBudget) -> "OrthogonalContext":
        """This check at the corner dimension ``d`` with the corner ``budget`` and ``alpha``: its own shared sample
        (one per corner, cached on the configuration for every check), a reproduce command pinning d."""
        import copy
        from dataclasses import replace

        corners = self.config.__dict__.setdefault("_corner_configs", {})
        if d not in corners:
            cfg = copy.copy(self.config)
            cfg.dim, cfg.budget, cfg._cache = d, budget, {}
            corners[d] = cfg
        pinned = self.config.pins.get("d") is not None
        reproduce = self.reproduce if pinned else f"{self.reproduce} --pin d={d}"
        return replace(self, config=corners[d], alpha=alpha, reproduce=reproduce, _extra={"corner": d})

    def fail(self, headline: str, observed: str | None = None, expected: str | None = None, **kw: Any) -> Any:
        """:meth:`BaseContext.fail`, naming the corner dimension in ``where:`` at a corner."""
        if self._extra.get("corner") is not None:
            kw["where"] = (kw.get("where", "") + f" at the corner dimension d = {self.dim} "
                           f"({self.budget.draws} draws)").strip()
        return super().fail(headline, observed, expected, **kw)

    def pilot(self) -> np.ndarray:
        """The shared Haar sample's first look: ``budget.pilot`` matrices."""
        return self.config.draws("haar", 0, self.budget.pilot)

    def sample(self) -> np.ndarray:
        """The whole shared Haar sample: ``budget.draws`` matrices (the pilot first)."""
        rest = self.config.draws("haar", self.budget.pilot, self.budget.draws)
        return np.concatenate([self.pilot(), rest])


verify_orthogonal = make_verify(OrthogonalConfig, "verify_orthogonal", """Verify a random orthogonal-matrix sampler claimed Haar on ``group`` (O or SO) at dimension ``dim``.

    ``implementation``: ``sample(d, rng)``, an object with ``sample`` or
    ``rvs(dim=, random_state=)``, or ``"MODULE:ATTR"``.  Returns a
    :class:`~rfverify.results.Report` (kind ``orthogonal``).  ``time_limit`` /
    ``memory_limit``: per check (:class:`rfverify.containment.guard.Limits`).  ``pins``: ``{"d": D}`` fixes the dimension
    ``explore`` searches and runs the Haar battery at that corner dimension alone (``--pin d=D``); ``space``:
    ``{"d": (lo, hi)}`` narrows it; ``strict_space``: a refusal anywhere in it fails ``explore``
    (:mod:`rfverify.refusals`).  ``call_kw``: extra keywords of every draw (``--call-kw KEY=VALUE``).
    ``input``: ``"torch"``, ``"jax"`` or ``"cupy"`` hands the sampler that library's random source as ``rng``;
    matrices of any array library are accepted (:mod:`rfverify.arrays`).  The keywords are the fields of
    :class:`OrthogonalOptions` and those of the run (``seed``, ``profile``, ``name``, ``checks``, ``xfail``,
    ``time_limit``, ``memory_limit``, ``strict_space``).
    """)
