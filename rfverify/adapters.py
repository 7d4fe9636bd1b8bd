"""Plug-in adapters: take third-party feature maps as they are, without wrappers.

A feature map is accepted in any of four forms (detected, never declared):

* a **factory** ``make(n_components, random_state)`` returning an object with
  ``fit(X) -> self`` and ``transform(X) -> (n, m) array``;
* a **function** ``features(X, n_components, random_state) -> (n, m) array``
  (three required positional parameters), deterministic given its arguments;
* an **estimator class** in the scikit-learn style, constructed as
  ``Cls(n_components=..., random_state=...)`` (scikit-learn is never imported);
* an **estimator instance**: its ``get_params()`` are kept and only
  ``n_components`` / ``random_state`` are replaced, on a new instance each time.

Kernel parameters whose names the constructor or factory accepts (``gamma``
for ``RBFSampler``) are passed through, and reported; a parameter map
(:mod:`rfverify.param_map`) passes them under the library's names and units
(``gamma=sigma:1/sqrt(2*gamma)``), and ``init`` sets other constructor
arguments.  A library seeded only through numpy's or torch's global generator
is accepted with an explicit ``global_seed="numpy"|"torch"``: the generator is
seeded from the check's ``random_state`` before each fit and restored after.
``input="torch"`` hands the plug-in torch tensors on the module's device and
dtype (torch is imported only then).  Outputs go through
``numpy.asarray`` (CPU torch tensors are detached first); the kernel estimate
is ``Re(Phi(X) conj(Phi(Y))^T)``, so complex features work.
"""

from __future__ import annotations

import importlib
import inspect
import io
import sys
from dataclasses import dataclass, field
from typing import Any, Mapping

import numpy as np

from rfverify import guard
from rfverify.errors import PluginError, UsageError
from rfverify.text import type_name

__all__ = ["FeatureMapPlugin", "FittedMap", "load_object", "as_feature_map", "to_numpy"]

_X_NAMES = {"x", "X", "data", "inputs", "points"}


def load_object(spec: str) -> Any:
    """Import ``MODULE:ATTR`` (ATTR may be dotted); the working directory is importable."""
    if not isinstance(spec, str) or spec.count(":") != 1 or spec.startswith(":") or spec.endswith(":"):
        raise UsageError(f"expected MODULE:ATTR (e.g. sklearn.kernel_approximation:RBFSampler), got {spec!r}")
    mod_name, attr = spec.split(":")
    if "" not in sys.path and "." not in sys.path:
        sys.path.insert(0, "")
    if not all(p.isidentifier() for p in mod_name.split(".")) or not all(p.isidentifier() for p in attr.split(".")):
        raise UsageError(f"expected MODULE:ATTR with dotted Python names (e.g. sklearn.kernel_approximation:"
                         f"RBFSampler), got {spec!r}")
    streams = sys.stdout, sys.stderr
    printed = io.StringIO()
    try:
        # what a module prints on import must not corrupt '--json -' output: shown on stderr if the import works
        sys.stdout = sys.stderr = printed
        module = importlib.import_module(mod_name)
    except ImportError as exc:
        raise UsageError(
            f"cannot import module {mod_name!r} ({guard._one_line(exc)}); run from the directory that contains "
            f"it or install it"
        ) from None
    except KeyboardInterrupt:
        raise
    except SystemExit as exc:
        raise PluginError(spec, f"importing {mod_name} called sys.exit({exc.code!r})",
                          "fix the module so that it imports (guard scripts with if __name__ == '__main__')") from None
    except BaseException as exc:  # the module itself is broken
        raise PluginError(spec, f"importing {mod_name} raised {type_name(exc)}: {guard._one_line(exc)}",
                          "fix the module so that it imports") from None
    finally:
        sys.stdout, sys.stderr = streams
    if printed.getvalue():
        sys.stderr.write(printed.getvalue())
    obj: Any = module
    for part in attr.split("."):
        try:
            obj = getattr(obj, part)
        except AttributeError:
            raise UsageError(f"module {mod_name!r} has no attribute {attr!r}") from None
        except KeyboardInterrupt:
            raise
        except BaseException as exc:  # noqa: BLE001 - a module __getattr__ is plug-in code
            raise PluginError(spec, f"reading {attr} raised {type_name(exc)}: {guard._one_line(exc)}",
                              "fix the module") from None
    return obj


def to_numpy(out: Any) -> np.ndarray:
    """``numpy.asarray`` that also accepts CPU torch tensors that require grad."""
    if hasattr(out, "detach") and callable(out.detach):
        out = out.detach()
        if hasattr(out, "cpu"):
            out = out.cpu()
    return np.asarray(out)


def _spec_of(obj: Any) -> str | None:
    """``module:qualname`` if importing it gives back ``obj``, else None."""
    mod = getattr(obj, "__module__", None)
    qual = getattr(obj, "__qualname__", None)
    if not mod or not qual or "<" in qual:
        return None
    try:
        target: Any = importlib.import_module(mod)
        for part in qual.split("."):
            target = getattr(target, part)
    except Exception:
        return None
    return f"{mod}:{qual}" if target is obj else None


def _accepted_names(fn: Any) -> tuple[set[str], bool]:
    try:
        sig = inspect.signature(fn)
    except (TypeError, ValueError):
        return set(), True
    names = {p.name for p in sig.parameters.values() if p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)}
    var_kw = any(p.kind == p.VAR_KEYWORD for p in sig.parameters.values())
    return names, var_kw


def _required_positional(fn: Any) -> list[str]:
    try:
        sig = inspect.signature(fn)
    except (TypeError, ValueError):
        return []
    return [
        p.name
        for p in sig.parameters.values()
        if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) and p.default is p.empty
    ]


@dataclass
class FittedMap:
    """One fitted draw of a feature map; ``transform`` validates every output."""

    plugin: "FeatureMapPlugin"
    obj: Any
    n_components: int
    random_state: int
    n_out: int | None = None
    #: Rows of the X it was fitted on: a data-dependent map's width may depend on them (Nystroem keeps
    #: min(n_components, n_rows) landmarks), so widths are compared per (n_components, fit_rows).
    fit_rows: int | None = None

    def transform(self, X: np.ndarray, *, judge_width: bool = False) -> np.ndarray:
        """The features of ``X``, checked: shape, finiteness, and a width fixed by fit and by n_components
        (a PluginError otherwise).  ``judge_width``: the caller judges the width itself (the contract check's
        one-row transforms, whose other width is a finding, not an error); it is then neither checked nor kept."""
        return self.judge(X, self.call(X), judge_width=judge_width)

    def action(self) -> str:
        if self.plugin.form == "function":
            return f"calling {self.plugin.name}(X, {self.n_components}, {self.random_state})"
        return "transform"

    def call(self, X: np.ndarray) -> Any:
        """The plug-in's raw output for ``X`` (its exceptions as PluginErrors)."""
        name = self.plugin.name
        if self.plugin.form == "function":
            return guard.call(self.obj, self.plugin.to_input(X, None), self.n_components, self.random_state,
                              plugin=name, action=self.action(),
                              hint="a feature function must accept (X, n_components, random_state)")
        method = self.obj.transform if hasattr(self.obj, "transform") else self.obj  # a torch module: forward
        return guard.call(method, self.plugin.to_input(X, self.obj), plugin=name, action="transform",
                          hint=f"transform(X) must accept a float64 array of shape {X.shape}")

    def judge(self, X: np.ndarray, out: Any, *, judge_width: bool = False) -> np.ndarray:
        """``out`` (the plug-in's output for ``X``) as a checked array: see :meth:`transform`."""
        name, action = self.plugin.name, self.action()
        A = guard.as_array(out, plugin=name, action=action, complex_ok=True)
        if A.ndim != 2 or A.shape[0] != X.shape[0]:
            raise PluginError(name, f"{action} returned shape {A.shape} for {X.shape[0]} input rows",
                              f"return an array of shape ({X.shape[0]}, m)")
        if A.shape[1] > guard.FEATURE_EXPANSION_LIMIT * max(1, self.n_components):
            raise PluginError(name, f"{action} returned {A.shape[1]:,} features for n_components="
                              f"{self.n_components}, more than {guard.FEATURE_EXPANSION_LIMIT} per component",
                              "return a number of features proportional to n_components")
        guard.check_finite(A, plugin=name, action=f"{action} (n_components={self.n_components}, "
                           f"random_state={self.random_state})", hint="features must be finite")
        if judge_width:
            return A
        if self.n_out is None:
            self.n_out = A.shape[1]
        elif A.shape[1] != self.n_out:
            raise PluginError(name, f"{action} returned {A.shape[1]} columns after returning {self.n_out}",
                              "the number of features must be fixed by fit")
        seen = self.plugin.widths.setdefault((self.n_components, self.fit_rows), (A.shape[1], self.random_state))
        if seen[0] != A.shape[1] and seen[1] == self.random_state:  # the same n_components and seed: the batch
            raise PluginError(name, f"{action} of {X.shape[0]} row(s) returned {A.shape[1]} columns, another batch "
                              f"{seen[0]} (n_components={self.n_components}, random_state={self.random_state})",
                              "the number of features must be fixed by fit, whatever the batch")
        if seen[0] != A.shape[1]:
            raise PluginError(name, f"n_components={self.n_components} gave {A.shape[1]} features with "
                              f"random_state={self.random_state} but {seen[0]} with random_state={seen[1]}"
                              + (f" (both fitted on {self.fit_rows} rows)" if self.fit_rows is not None else ""),
                              "the number of features must depend on n_components only")
        return A


@dataclass
class FeatureMapPlugin:
    """A feature-map implementation under test, in whatever form it came."""

    obj: Any
    form: str
    name: str
    spec: str | None
    passthrough: Mapping[str, Any] = field(default_factory=dict)
    #: Constructor arguments given by the caller (``--init KEY=VALUE``), passed on every build.
    init: Mapping[str, Any] = field(default_factory=dict)
    #: None, "numpy" or "torch": the global generator seeded from random_state around each fit (opt-in).
    global_seed: str | None = None
    #: None or "torch": inputs handed over as torch tensors (module's device and dtype).
    input: str | None = None
    #: kernel parameter -> ParamRoute (rfverify.param_map), for the report and the reproduce command.
    param_map: Mapping[str, Any] = field(default_factory=dict)
    #: (n_components, rows fitted) -> (features returned, the random_state that first returned them).
    widths: dict[tuple[int, int | None], tuple[int, int]] = field(default_factory=dict, repr=False)

    #: The plug-in's process (:class:`rfverify.host.Host`) when ``obj`` is a proxy into it, else None.
    host: Any = field(default=None, repr=False, compare=False)

    def build(self, n_components: int, random_state: int) -> Any:
        """A fresh, unfitted object (or the function itself)."""
        if self.host is not None and (self.global_seed is not None or self.form == "instance"):
            # the global generator and the instance's type are the plug-in process's: built there, in one operation
            return guard.call(self.host.run, _build_obj, self.form, self.obj, n_components, random_state,
                              dict(self.passthrough), dict(self.init), self.global_seed, plugin=self.name,
                              action=f"constructing with n_components={n_components}, random_state={random_state}",
                              hint=self._construct_hint(), passthrough=(UsageError,))
        if self.global_seed is not None:
            with seeded_global(self.global_seed, random_state):
                return self._guarded_build(n_components, random_state)
        return self._guarded_build(n_components, random_state)

    def _guarded_build(self, n_components: int, random_state: int) -> Any:
        return guard.call(_build_obj, self.form, self.obj, n_components, random_state, self.passthrough, self.init,
                          plugin=self.name, hint=self._construct_hint(), passthrough=(PluginError,),
                          action=f"constructing with n_components={n_components}, random_state={random_state}")

    def _construct_hint(self) -> str:
        return {
            "factory": "a factory must accept make(n_components, random_state)",
            "class": "the class must accept n_components= and random_state= keywords",
            "instance": "the estimator must accept n_components= and random_state= in its constructor",
        }.get(self.form, "")

    def fit_transform(self, n_components: int, random_state: int, X: np.ndarray) -> tuple[FittedMap, np.ndarray]:
        """:meth:`fit` on ``X``, then the checked features of ``X``: one operation in the plug-in's process."""
        if self.host is None:
            fitted = self.fit(n_components, random_state, X)
            return fitted, fitted.transform(X)
        obj, out = self.host.run(_fit_in_process, self.obj, self.form, self.name, dict(self.passthrough),
                                 dict(self.init), self.global_seed, self.input, n_components, random_state, X, True)
        fitted = FittedMap(self, obj, n_components, random_state, fit_rows=int(np.shape(X)[0]))
        return fitted, fitted.judge(X, out)

    def fit(self, n_components: int, random_state: int, X: np.ndarray) -> FittedMap:
        """Build and fit one draw (with the declared global generator seeded from ``random_state`` around the
        constructor and around fit).  In the plug-in's process (:mod:`rfverify.host`) both are one operation."""
        if self.host is not None:
            obj = self.host.run(_fit_in_process, self.obj, self.form, self.name, dict(self.passthrough),
                                dict(self.init), self.global_seed, self.input, n_components, random_state, X)
            return FittedMap(self, obj, n_components, random_state, fit_rows=int(np.shape(X)[0]))
        return self.fit_built(self.build(n_components, random_state), n_components, random_state, X)

    def to_input(self, X: np.ndarray, obj: Any) -> Any:
        """``X`` as the plug-in takes it: the array itself, or a torch tensor on ``obj``'s device and dtype."""
        if self.input != "torch":
            return X
        if getattr(type(obj), "_rf_remote", False):  # made in the plug-in's process, when the call arrives there
            return _TorchInput(X, obj)
        return to_torch(X, obj)

    def fit_built(self, obj: Any, n_components: int, random_state: int, X: np.ndarray) -> FittedMap:
        """Fit an object made by :meth:`build`; ``fit`` may return the estimator or None."""
        if self.form != "function":
            if self.input == "torch" and not hasattr(obj, "transform") and callable(obj):
                return FittedMap(self, obj, n_components, random_state, fit_rows=int(np.shape(X)[0]))  # a module
            if not hasattr(obj, "fit") or not hasattr(obj, "transform"):
                raise PluginError(self.name, f"{type(obj).__name__} has no fit/transform methods",
                                  "the factory must return an object with fit(X) and transform(X)")
            if self.global_seed is not None and self.host is not None:
                ret = guard.call(self.host.run, _seeded_call, self.global_seed, random_state, obj.fit,
                                 self.to_input(X, obj), plugin=self.name, action="fit",
                                 hint=f"fit(X) must accept a float64 array of shape {X.shape}")
            elif self.global_seed is not None:
                with seeded_global(self.global_seed, random_state):
                    ret = guard.call(obj.fit, self.to_input(X, obj), plugin=self.name, action="fit",
                                     hint=f"fit(X) must accept a float64 array of shape {X.shape}")
            else:
                ret = guard.call(obj.fit, self.to_input(X, obj), plugin=self.name, action="fit",
                                 hint=f"fit(X) must accept a float64 array of shape {X.shape}")
            if ret is not None and ret is not obj and hasattr(ret, "transform"):
                obj = ret
        return FittedMap(self, obj, n_components, random_state, fit_rows=int(np.shape(X)[0]))

    def params_of(self, obj: Any) -> dict[str, Any] | None:
        """Constructor parameters of a built object (estimator forms only)."""
        if self.form in ("class", "instance") and hasattr(obj, "get_params"):
            try:
                return dict(obj.get_params(deep=False))
            except Exception:
                return None
        return None

    def describe(self) -> str:
        return f"{self.name} [{self.form}]"


def _build_obj(form: str, obj: Any, n_components: int, random_state: int, passthrough: Mapping[str, Any],
               init: Mapping[str, Any], global_seed: str | None = None) -> Any:
    """A fresh object of a plug-in of ``form`` (in the plug-in's process when ``obj`` lives there)."""
    if global_seed is not None:
        with seeded_global(global_seed, random_state):
            return _build_obj(form, obj, n_components, random_state, passthrough, init)
    if form == "function":
        return obj
    if form == "factory":
        return obj(n_components, random_state, **passthrough, **init)
    if form == "class":
        return obj(n_components=n_components, random_state=random_state, **passthrough, **init)
    params = dict(obj.get_params(deep=False))
    params.update(n_components=n_components, random_state=random_state, **passthrough, **init)
    return type(obj)(**params)


def _fit_in_process(obj: Any, form: str, name: str, passthrough: dict[str, Any], init: dict[str, Any],
                    global_seed: str | None, input: str | None, n_components: int, random_state: int,
                    X: np.ndarray, transform: bool = False) -> Any:
    """:meth:`FeatureMapPlugin.fit` where the plug-in lives (its messages and refusals as the harness words them):
    the fitted object, which stays there; with ``transform``, also its raw output for ``X`` (judged by the
    harness)."""
    plugin = FeatureMapPlugin(obj, form, name, None, passthrough, init=init, global_seed=global_seed, input=input)
    fitted = plugin.fit(n_components, random_state, X)
    return (fitted.obj, fitted.call(X)) if transform else fitted.obj


def _seeded_call(which: str, random_state: int, fn: Any, *args: Any) -> Any:
    """``fn(*args)`` with the global generator ``which`` seeded from ``random_state`` and restored after."""
    with seeded_global(which, random_state):
        return fn(*args)


class _TorchInput:
    """``X`` to be handed over as a torch tensor on ``obj``'s device and dtype, made where it is unpickled (the
    plug-in's process: torch is never imported by the harness for it)."""

    def __init__(self, X: np.ndarray, obj: Any) -> None:
        self.X, self.obj = X, obj

    def __reduce__(self) -> Any:
        return to_torch, (self.X, self.obj)


GLOBAL_SEEDS = ("numpy", "torch")
INPUTS = ("numpy", "torch")


def _torch() -> Any:
    """torch, imported on first use (never at rfverify's import); a one-line UsageError if it is missing."""
    try:
        return importlib.import_module("torch")
    except ImportError:
        raise UsageError("input='torch' / global_seed='torch' need torch: pip install torch") from None


class seeded_global:
    """Seed numpy's (or torch's) global generator from ``random_state`` and restore the caller's state after.

    For libraries that can only be seeded through the global generator (rfflearn: ``np.random.randn``):
    each fit gets the generator in the state ``seed(random_state)`` gives, so the draw is a function of the
    check's key like any other, and whatever the library consumed is undone (the guard sees no change).
    """

    def __init__(self, which: str, random_state: int) -> None:
        self.which, self.random_state = which, int(random_state)

    def __enter__(self) -> "seeded_global":
        if self.which == "torch":
            torch = _torch()
            self.saved = torch.random.get_rng_state()
            torch.manual_seed(self.random_state)
        else:
            self.saved = np.random.get_state()
            np.random.seed(self.random_state % 2 ** 32)
        return self

    def __exit__(self, *exc: Any) -> None:
        if self.which == "torch":
            _torch().random.set_rng_state(self.saved)
        else:
            np.random.set_state(self.saved)


def to_torch(X: np.ndarray, obj: Any) -> Any:
    """``X`` as a torch tensor on the device and in the floating dtype of ``obj``'s first parameter or buffer
    (torch's default dtype on the CPU when it has none)."""
    torch = _torch()
    device, dtype = None, None
    for attr in ("parameters", "buffers"):
        try:
            first = next(iter(getattr(obj, attr)()), None) if hasattr(obj, attr) else None
        except Exception:  # noqa: BLE001 - plug-in code; fall back to the defaults
            first = None
        if first is not None and getattr(getattr(first, "dtype", None), "is_floating_point", False):
            device, dtype = first.device, first.dtype
            break
    if dtype is None:
        dtype = torch.get_default_dtype()
    return torch.as_tensor(np.ascontiguousarray(X), dtype=dtype, device=device)


def _same(a: Any, b: Any) -> bool:
    """``a == b`` as one bool (arrays compared whole; a comparison that raises means different)."""
    try:
        if isinstance(a, float) and isinstance(b, float):
            return bool(np.isclose(a, b, rtol=1e-12, atol=0.0))  # a converted parameter (param_map)
        return bool(np.all(np.asarray(a == b)))
    except Exception:  # noqa: BLE001 - a parameter's own __eq__ is plug-in code
        return False


def as_feature_map(obj: Any, *, kernel_params: Mapping[str, Any] | None = None,
                   name: str | None = None, spec: str | None = None, param_map: Mapping[str, Any] | None = None,
                   init: Mapping[str, Any] | None = None, global_seed: str | None = None,
                   input: str | None = None) -> FeatureMapPlugin:
    """Detect the form of ``obj`` (or load ``MODULE:ATTR``) and wrap it for the harness.

    ``param_map``: kernel parameter -> ``"NAME[:EXPRESSION]"`` or ``""`` (:mod:`rfverify.param_map`);
    ``init``: other constructor arguments; ``global_seed``: ``"numpy"`` or ``"torch"`` for a library seeded
    only through that global generator; ``input``: ``"torch"`` to hand over torch tensors.
    """
    if isinstance(obj, FeatureMapPlugin):
        return obj
    from rfverify.param_map import as_param_map

    routes = as_param_map(param_map)
    init = dict(init or {})
    for k in init:
        if not isinstance(k, str) or not k.isidentifier() or k in ("n_components", "random_state"):
            raise UsageError(f"init argument {k!r} is not allowed: n_components and random_state are set per draw, "
                             "and keys must be parameter names")
    if global_seed not in (None, *GLOBAL_SEEDS):
        raise UsageError(f"global_seed must be None, 'numpy' or 'torch', got {global_seed!r}")
    if input not in (None, *INPUTS):
        raise UsageError(f"input must be None, 'numpy' or 'torch', got {input!r}")
    kernel_params = dict(kernel_params or {})
    from rfverify.supervise import isolation_wanted

    if isolation_wanted():  # every call into the plug-in, its import and its form detection in its own process
        from rfverify.host import Host

        host = Host(name or (obj if isinstance(obj, str) else type_name(obj, is_type=isinstance(obj, type))), ("spec", obj) if isinstance(obj, str)
                    else ("object", obj), load_object, to_numpy, BUILD_LIMITS)
        found = host.run(_detect_plain, host.root_proxy(), kernel_params, name,
                         obj if isinstance(obj, str) else spec, routes, init, input == "torch")
        plugin = FeatureMapPlugin(host.root_proxy(), found["form"], name or found["name"], found["spec"],
                                  found["passthrough"], host=host)
        host.plugin = plugin.name
    else:
        if isinstance(obj, str):
            spec = obj
            obj = load_object(obj)
        plugin = _detect_guarded(obj, kernel_params, name, spec, routes, init, input == "torch")
    plugin.init = init
    plugin.global_seed = global_seed
    plugin.input = None if input == "numpy" else input
    plugin.param_map = routes
    return plugin


#: Limits of the operations that build a configuration (import, form detection) in the plug-in's process; the
#: CLI sets its --time-limit here.
BUILD_LIMITS = guard.Limits()


def _detect_guarded(obj: Any, kernel_params: dict[str, Any], name: str | None, spec: str | None,
                    routes: Mapping[str, Any], init: Mapping[str, Any], module_ok: bool) -> "FeatureMapPlugin":
    who = name or (obj.__qualname__ if isinstance(obj, type) else type(obj).__qualname__)
    # detection calls plug-in code (hasattr runs __getattr__, get_params): under the guard, like every call
    with guard.guarded(who, "form detection", guard.Limits()):
        return guard.call(_detect, obj, kernel_params, name, spec, routes, init, module_ok, plugin=who,
                          action="form detection (fit/transform attributes, get_params())",
                          hint="attribute lookups and get_params(deep=False) must not raise; get_params "
                               "returns a dict", passthrough=(UsageError, PluginError))


def _detect_plain(obj: Any, kernel_params: dict[str, Any], name: str | None, spec: str | None,
                  routes: Mapping[str, Any], init: Mapping[str, Any], module_ok: bool) -> dict[str, Any]:
    """Form detection in the plug-in's process (:mod:`rfverify.host`): plain data only."""
    from rfverify.text import NAME_LIMIT, clean

    plugin = _detect_guarded(obj, kernel_params, name, spec, routes, init, module_ok)
    spec = plugin.spec if plugin.spec is None or len(plugin.spec) <= 10_000 else None
    return {"form": plugin.form, "name": clean(plugin.name, NAME_LIMIT, one_line=True), "spec": spec,
            "passthrough": dict(plugin.passthrough)}


def _routed(kernel_params: dict[str, Any], routes: Mapping[str, Any], accepted: set[str] | None,
            var_kw: bool, who: str) -> dict[str, Any]:
    """Constructor arguments from the kernel's parameters: routed by the parameter map, else by name."""
    from rfverify.param_map import apply_param_map

    reserved = {"n_components", "random_state"}
    out = apply_param_map(routes, kernel_params)
    for target in out:
        if target in reserved:
            raise UsageError(f"param_map cannot set {target}: it is set per draw")
        if accepted is not None and target not in accepted and not var_kw:
            raise UsageError(f"{who} does not accept {target!r} (param_map sends a kernel parameter there); "
                             f"it accepts {', '.join(sorted(accepted - reserved)) or 'nothing else'}")
    for k, v in kernel_params.items():
        if k not in routes and accepted is not None and k in accepted and k not in reserved:
            out.setdefault(k, v)
    return out


def _detect(obj: Any, kernel_params: dict[str, Any], name: str | None, spec: str | None,
            routes: Mapping[str, Any] | None = None, init: Mapping[str, Any] | None = None,
            module_ok: bool = False) -> "FeatureMapPlugin":
    reserved = {"n_components", "random_state"}
    routes = routes or {}
    init = init or {}
    if isinstance(obj, type):
        if module_ok and callable(getattr(obj, "forward", None)) and not hasattr(obj, "transform"):
            pass  # a torch module: called on tensors, no fit (input="torch")
        elif not (hasattr(obj, "fit") and hasattr(obj, "transform")):
            raise UsageError(f"class {obj.__qualname__} has no fit/transform methods; "
                             "pass an estimator class, an instance, a factory or a function")
        form = "class"
        accepted, var_kw = _accepted_names(obj)
        missing = reserved - accepted
        if missing and not var_kw:
            raise UsageError(f"class {obj.__qualname__} does not accept {', '.join(sorted(missing))}; "
                             "the contract needs Cls(n_components=..., random_state=...)")
        passthrough = _routed(kernel_params, routes, accepted, var_kw, f"class {obj.__qualname__}")
        label = name or obj.__qualname__
    elif hasattr(obj, "fit") and hasattr(obj, "transform") and hasattr(obj, "get_params"):
        form = "instance"
        params = obj.get_params(deep=False)
        if not isinstance(params, Mapping):
            raise PluginError(type(obj).__qualname__, f"get_params(deep=False) returned {type(params).__name__}, "
                              "not a dict", "return the constructor parameters as a dict (sklearn's contract)")
        params = dict(params)
        for key in reserved:
            if key not in params:
                raise UsageError(f"{type(obj).__qualname__} has no parameter {key!r}; the contract needs "
                                 "n_components and random_state")
        passthrough = {}
        for k, v in _routed(kernel_params, routes, set(params), False, type(obj).__qualname__).items():
            if k in init:
                continue
            if not _same(params[k], v):
                raise UsageError(f"{type(obj).__qualname__}({k}={params[k]!r}) disagrees with the kernel "
                                 f"parameter {k}={v!r}; make them agree (or route it: param_map / --param-name)")
        label = name or type(obj).__qualname__  # an instance has no import path of its own
    elif callable(obj):
        req = _required_positional(obj)
        accepted, var_kw = _accepted_names(obj)
        if len(req) >= 3 or (req and req[0] in _X_NAMES):
            form = "function"
            passthrough = {}
        else:
            form = "factory"
            passthrough = _routed(kernel_params, routes, accepted, var_kw, getattr(obj, "__qualname__", "the factory"))
        label = name or getattr(obj, "__qualname__", type(obj).__name__)
    else:
        raise UsageError(f"cannot use {type(obj).__name__} as a feature map: pass a factory "
                         "make(n_components, random_state), a function f(X, n_components, random_state), "
                         "or an sklearn-style estimator class or instance")
    clash = sorted(set(passthrough) & set(init))
    if clash:
        raise UsageError(f"{', '.join(clash)} set both by the kernel's parameters and by init; set it once")
    if spec is None and form != "instance":
        spec = _spec_of(obj)
    return FeatureMapPlugin(obj, form, label, spec, passthrough)
