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
``input="torch" | "jax" | "cupy"`` hands the plug-in that library's arrays (a torch module's device and
dtype; the library is imported only then), and outputs of any array library (numpy, torch on CPU or CUDA,
JAX, CuPy, dask) come back to the host in their own dtype: both conversions are :mod:`rfverify.arrays`' one
pair.  The kernel estimate is ``Re(Phi(X) conj(Phi(Y))^T)``, so complex features work.
"""

from __future__ import annotations

import importlib
import inspect
import io
import sys
from dataclasses import dataclass, field, replace
from typing import Any, Mapping

import numpy as np

from rfverify.containment import guard
from rfverify.arrays import ArrayRecord, to_input, to_numpy, validate_input
from rfverify.errors import PluginError, UsageError
from rfverify.plugin_calls import RESERVED, CallSpec, spec_of
from rfverify.text import type_name

__all__ = ["FeatureMapPlugin", "FittedMap", "load_object", "as_feature_map", "to_numpy", "to_input"]

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
        out, action = self.plugin.features_call(self.obj, X, self.n_components, self.random_state)
        return self.judge(X, out, action, judge_width=judge_width)

    def judge(self, X: np.ndarray, out: Any, action: str, *, judge_width: bool = False) -> np.ndarray:
        """``out`` (the plug-in's output for ``X``, made by ``action``) as a checked array: see :meth:`transform`.
        A plug-in in its own process (:mod:`rfverify.containment.host`) sent it as data, already brought to numpy there."""
        name = self.plugin.name
        if self.plugin.host is None:
            out = to_numpy(out, plugin=name, action=action, record=self.plugin.arrays)
        A = guard.as_array(out, plugin=name, action=action, complex_ok=True)
        if A.ndim != 2 or A.shape[0] != X.shape[0]:
            raise PluginError(name, f"{action} returned shape {A.shape} for {X.shape[0]} input rows",
                              f"return an array of shape ({X.shape[0]}, m)")
        calls = self.plugin.calls
        declared = calls.declared_width(self.n_components, int(X.shape[1])) if calls.width else None
        if declared is not None and A.shape[1] != declared:
            raise PluginError(name, f"{action} returned {A.shape[1]} columns; the declared width {calls.width} is "
                              f"{declared} at m = {self.n_components}, d = {X.shape[1]}",
                              "fix the declaration (--width EXPR of m and d) or the map")
        if A.shape[1] > guard.FEATURE_EXPANSION_LIMIT * max(1, self.n_components, declared or 0):
            raise PluginError(name, f"{action} returned {A.shape[1]:,} features for n_components="
                              f"{self.n_components}, more than {guard.FEATURE_EXPANSION_LIMIT} per component",
                              "return a number of features proportional to n_components")
        guard.check_finite(A, plugin=name, action=f"{action} (n_components={self.n_components}, "
                           f"random_state={self.random_state})", hint="features must be finite")
        if calls.feature_scale is not None:  # a declared normalisation of an unnormalised map
            A = A * np.asarray(calls.scale(self.n_components, int(X.shape[1])), dtype=A.real.dtype)
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
    #: None (numpy), "torch", "jax" or "cupy": the form inputs are handed over in (rfverify.arrays.to_input).
    input: str | None = None
    #: A jit-compiled map (decided by the configuration): explore draws shapes from a small fixed set.
    jit: bool = False
    #: What went in and came out (library, dtype, device), for the report.
    arrays: ArrayRecord = field(default_factory=ArrayRecord, repr=False)
    #: kernel parameter -> ParamRoute (rfverify.param_map), for the report and the reproduce command.
    param_map: Mapping[str, Any] = field(default_factory=dict)
    #: (n_components, rows fitted) -> (features returned, the random_state that first returned them).
    widths: dict[tuple[int, int | None], tuple[int, int]] = field(default_factory=dict, repr=False)
    #: How it is called (:mod:`rfverify.plugin_calls`): features method, call keywords, width, scale, names.
    calls: CallSpec = field(default_factory=CallSpec)
    #: The kernel's parameters the passthrough was made from (a moved configuration re-routes them).
    kernel_params: Mapping[str, Any] = field(default_factory=dict)
    #: The plug-in's process (:class:`rfverify.containment.host.Host`) when ``obj`` is a proxy into it, else None: then every
    #: build, fit and features call is one operation there (:func:`_in_plugin_process`), its output sent as data.
    host: Any = field(default=None, repr=False, compare=False)

    def _hosted(self, op: str, *args: Any) -> Any:
        """``op`` (build, fit, fit_transform, fit_built, features) in the plug-in's process: its value (data, or
        handles of the objects that stay there), the arrays' record merged into this adapter's.  The adapter's
        description goes there once and stays while it is unchanged here (:meth:`rfverify.containment.host.Host.run_kept`)."""
        value, ins, outs = guard.call(self.host.run_kept, _in_plugin_process, self._light(), op, *args,
                                      plugin=self.name, action=op, passthrough=(UsageError,))
        for seen, got in ((self.arrays.inputs, ins), (self.arrays.outputs, outs)):
            seen.update(tuple(x) for x in got if type(x) is tuple and len(x) == 3 and all(type(p) is str for p in x))
        return value

    def _light(self) -> "FeatureMapPlugin":
        """This adapter without its process, for the plug-in's process (the same object while nothing changed)."""
        key = (self.form, self.name, self.spec, id(self.obj), self.global_seed, self.input, self.jit, id(self.calls),
               tuple((k, id(v)) for k, v in self.passthrough.items()), tuple((k, id(v)) for k, v in self.init.items()),
               id(self.param_map), id(self.kernel_params))
        cached = self.__dict__.get("_light_of")
        if cached is None or cached[0] != key:
            cached = (key, replace(self, host=None, widths={}, arrays=ArrayRecord(self.input or "numpy")))
            self.__dict__["_light_of"] = cached
        return cached[1]

    def passthrough_at(self, params: Any) -> dict[str, Any]:
        """The constructor arguments at kernel parameters moved to ``params`` (a mapping or pairs): a routed
        parameter is converted again (``gamma=sigma:...`` sets sigma from the moved gamma), the others replace
        their own entry; everything else passed (a routed parameter not moved) stays."""
        from rfverify.param_map import evaluate

        moved = dict(params)
        out = dict(self.passthrough)
        values = {**self.kernel_params, **moved}
        for k, v in moved.items():
            route = self.param_map.get(k)
            if route is not None:
                if route.target is not None:
                    out[route.target] = v if route.expression == k else evaluate(route.expression, values)
            elif k in out:
                out[k] = v
        return out

    def features_call(self, obj: Any, X: np.ndarray, n_components: int, random_state: int) -> tuple[Any, str]:
        """The plug-in's raw features of ``X`` (its declared method, call keywords; a function with its
        arguments) under the guard, and the action's description.  In the plug-in's own process (``host``) the
        call is made there and its output comes back as data: a numpy array in its own dtype."""
        if self.host is not None:
            out, action = self._hosted("features", obj, X, n_components, random_state)
            return out, str(action)
        name, kw = self.name, dict(self.calls.call_kw)
        if self.form == "function":
            n_name, r_name = self.calls.name_of("n_components"), self.calls.name_of("random_state")
            kw.update(self.passthrough)
            if self.calls.renamed:
                kw.update({k: v for k, v in ((n_name, n_components), (r_name, random_state)) if k})
                args: tuple[Any, ...] = (self.to_input(X, None),)
            else:
                args = (self.to_input(X, None), n_components, random_state)
            shown = ", ".join(["X", *map(repr, args[1:]), *(f"{k}={v!r}" for k, v in kw.items())])
            return guard.call(self.obj, *args, **kw, plugin=name, action=f"calling {name}({shown})",
                              hint="a feature function must accept (X, n_components, random_state)"), \
                f"calling {name}({shown})"
        meth = self.calls.method
        if meth is not None:
            method = getattr(obj, meth)
            action = f"{meth}(X{''.join(f', {k}={v!r}' for k, v in kw.items())})"
        else:
            method = obj.transform if hasattr(obj, "transform") else obj  # a torch module: forward
            action = "transform" if not kw else f"transform(X{''.join(f', {k}={v!r}' for k, v in kw.items())})"
        return guard.call(method, self.to_input(X, obj), **kw, plugin=name, action=action,
                          hint=f"{meth or 'transform'}(X) must accept a float64 array of shape {X.shape}"), action

    def build(self, n_components: int, random_state: int) -> Any:
        """A fresh, unfitted object (or the function itself)."""
        if self.host is not None:
            return self._hosted("build", n_components, random_state)
        if self.global_seed is not None:
            with seeded_global(self.global_seed, random_state):
                return self._guarded_build(n_components, random_state)
        return self._guarded_build(n_components, random_state)

    def _guarded_build(self, n_components: int, random_state: int) -> Any:
        return guard.call(self._build, n_components, random_state, plugin=self.name,
                          action=f"constructing with n_components={n_components}, random_state={random_state}",
                          hint=self._construct_hint(), passthrough=(PluginError,))

    def _build(self, n_components: int, random_state: int) -> Any:
        if self.form == "function":
            return self.obj
        if self.form == "factory":
            return self.obj(n_components, random_state, **self.passthrough, **self.init)
        drawn = {k: v for k, v in ((self.calls.name_of("n_components"), n_components),
                                   (self.calls.name_of("random_state"), random_state)) if k}
        kw = {k: v for k, v in self.passthrough.items() if not k.startswith(".")}
        if self.form == "class":
            return self._set_attributes(self.obj(**drawn, **kw, **self.init))
        params = dict(self.obj.get_params(deep=False))
        params.update(**drawn, **kw, **self.init)
        return self._set_attributes(type(self.obj)(**params))

    def _set_attributes(self, obj: Any) -> Any:
        """The routes to ``.ATTRIBUTE`` (``--param-name gamma=.lengthscale:...``) set after construction: a
        library whose constructor takes the parameter nowhere (gpytorch's kernels ignore unknown keywords)."""
        for k, v in self.passthrough.items():
            if k.startswith("."):
                setattr(obj, k[1:], v)
        return obj

    def _construct_hint(self) -> str:
        if self.calls.renamed and self.form in ("class", "instance"):
            return f"the constructor must accept {', '.join(k for k in map(self.calls.name_of, RESERVED) if k)}"
        return {
            "factory": "a factory must accept make(n_components, random_state)",
            "class": "the class must accept n_components= and random_state= keywords",
            "instance": "the estimator must accept n_components= and random_state= in its constructor",
        }.get(self.form, "")

    def fit(self, n_components: int, random_state: int, X: np.ndarray) -> FittedMap:
        """Build and fit one draw (with the declared global generator seeded from ``random_state`` around the
        constructor and around fit).  In the plug-in's process (``host``) build and fit are one operation."""
        if self.host is not None:
            return FittedMap(self, self._hosted("fit", n_components, random_state, X), n_components, random_state,
                             fit_rows=int(np.shape(X)[0]))
        return self.fit_built(self.build(n_components, random_state), n_components, random_state, X)

    def fit_transform(self, n_components: int, random_state: int, X: np.ndarray, *,
                      keep: bool = True) -> tuple[FittedMap, np.ndarray]:
        """:meth:`fit` on ``X``, then the checked features of ``X`` (one operation in the plug-in's process;
        ``keep=False``: the caller needs the features only, the fitted object is dropped there)."""
        if self.host is None:
            fitted = self.fit(n_components, random_state, X)
            return fitted, fitted.transform(X)
        obj, out, action = self._hosted("fit_transform", n_components, random_state, X, keep)
        fitted = FittedMap(self, obj, n_components, random_state, fit_rows=int(np.shape(X)[0]))
        return fitted, fitted.judge(X, out, str(action))

    def draws(self, n_components: int, seeds: list[int], X: np.ndarray) -> Any:
        """The checked features of ``X`` from a fresh fit for each random_state in ``seeds``, in order (a generator):
        :meth:`fit_transform` per seed, and in the plug-in's process a few operations for all of them (what a draw
        raised is raised when its turn comes, after the draws before it were judged)."""
        if self.host is None:
            for rs in seeds:
                yield self.fit_transform(n_components, rs, X, keep=False)[1]
            return
        from rfverify.containment.remote import raise_record

        seeds = [int(s) for s in seeds]
        done = 0
        while done < len(seeds):
            outs, actions, failed = self._hosted("draws", n_components, seeds[done:], X)
            if type(outs) is not list or type(actions) is not list or len(actions) != len(outs) \
                    or len(outs) > len(seeds) - done or (not outs and failed is None):
                raise PluginError(self.name, "its process answered a batch of draws with a reply that does not fit "
                                  "rfverify's protocol", "a plug-in must not write to rfverify's channel")
            for rs, out, action in zip(seeds[done:], outs, actions):
                yield FittedMap(self, None, n_components, rs, fit_rows=int(np.shape(X)[0])).judge(X, out, str(action))
            if failed is not None:
                raise_record(failed, checked=False)
            done += len(outs)

    def to_input(self, X: np.ndarray, obj: Any) -> Any:
        """``X`` as the plug-in takes it (:func:`rfverify.arrays.to_input`): the array itself, or the declared
        library's array (a torch tensor on ``obj``'s device and dtype) — made in the plug-in's process when it
        lives in one (the harness never imports the library for it)."""
        if self.host is not None:
            return X if self.input is None else _HostedInput(X, self.input, obj)
        return to_input(X, self.input, obj, record=self.arrays)

    def fit_built(self, obj: Any, n_components: int, random_state: int, X: np.ndarray) -> FittedMap:
        """Fit an object made by :meth:`build`; ``fit`` may return the estimator or None."""
        if self.host is not None:
            return FittedMap(self, self._hosted("fit_built", obj, n_components, random_state, X), n_components,
                             random_state, fit_rows=int(np.shape(X)[0]))
        if self.form != "function":
            if self.calls.method is not None and not hasattr(obj, self.calls.method):
                raise PluginError(self.name, f"{type(obj).__name__} has no method {self.calls.method!r}",
                                  "declare the method that returns features (--method NAME)")
            if (self.input or self.calls.method is not None) and not hasattr(obj, "fit") and (
                    self.calls.method is not None or (not hasattr(obj, "transform") and callable(obj))):
                # a torch module, or an object drawn at construction whose declared method returns features
                return FittedMap(self, obj, n_components, random_state, fit_rows=int(np.shape(X)[0]))
            if not hasattr(obj, "fit") or not hasattr(obj, self.calls.method or "transform"):
                raise PluginError(self.name, f"{type(obj).__name__} has no fit/transform methods",
                                  "the factory must return an object with fit(X) and transform(X)")
            if self.global_seed is not None:
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


def _in_plugin_process(plug: FeatureMapPlugin, op: str, *args: Any) -> tuple[Any, list[Any], list[Any]]:
    """One of the adapter's operations where the plug-in lives (:mod:`rfverify.containment.host`; ``plug.obj`` is the real
    object there, ``plug`` kept there between operations), with what the arrays' record gained: (value, inputs,
    outputs).  Features come back converted to numpy in their own dtype (:func:`rfverify.arrays.to_numpy`), with
    the action's wording; ``fit_transform`` keeps the fitted object only when asked (``keep``)."""
    value: Any
    had = (set(plug.arrays.inputs), set(plug.arrays.outputs))
    if op == "build":
        value = plug.build(*args)
    elif op == "fit_built":
        value = plug.fit_built(*args).obj
    elif op == "fit":
        value = plug.fit(*args).obj
    elif op == "fit_transform":
        n_components, random_state, X, keep = args
        fitted = plug.fit(n_components, random_state, X)
        out, action = plug.features_call(fitted.obj, X, n_components, random_state)
        value = (fitted.obj if keep else None, to_numpy(out, plugin=plug.name, action=action, record=plug.arrays),
                 action)
    elif op == "features":
        out, action = plug.features_call(*args)
        value = (to_numpy(out, plugin=plug.name, action=action, record=plug.arrays), action)
    elif op == "draws":
        value = _draws(plug, *args)
    else:
        raise ValueError(f"unknown operation {op!r}")
    return value, sorted(plug.arrays.inputs - had[0]), sorted(plug.arrays.outputs - had[1])


#: Bytes of features one ``draws`` operation returns at most (the rest is asked for again).
DRAWS_BYTES = 8 << 20


def _draws(plug: FeatureMapPlugin, n_components: int, seeds: list[int], X: np.ndarray) -> tuple[Any, ...]:
    """:meth:`FeatureMapPlugin.draws` where the plug-in lives: (outputs, actions, error record or None) for the
    first seeds, up to :data:`DRAWS_BYTES` of features, stopping at the first error (which comes as data, after
    the draws before it).  Each output is a copy: a plug-in returning one workspace for every draw is read as one
    process reads it, draw by draw."""
    from rfverify.containment.remote import error_record

    outs: list[Any] = []
    actions: list[str] = []
    failed = None
    size = 0
    for rs in seeds:
        try:
            fitted = plug.fit(n_components, rs, X)
            out, action = plug.features_call(fitted.obj, X, n_components, rs)
            A = to_numpy(out, plugin=plug.name, action=action, record=plug.arrays)
        except PluginError as exc:
            failed = error_record(exc)
            break
        outs.append(np.array(A) if type(A) is np.ndarray else A)
        actions.append(action)
        size += A.nbytes if type(A) is np.ndarray else 0
        if size >= DRAWS_BYTES:
            break
    return outs, actions, failed


class _HostedInput:
    """``X`` to be handed over in the declared input form (a torch tensor on ``obj``'s device and dtype), made where
    it is unpickled: the plug-in's process (the harness never imports torch or JAX for it)."""

    def __init__(self, X: np.ndarray, form: str, obj: Any) -> None:
        self.X, self.form, self.obj = X, form, obj

    def __reduce__(self) -> Any:
        return to_input, (self.X, self.form, self.obj)


GLOBAL_SEEDS = ("numpy", "torch")


def _torch() -> Any:
    """torch, imported on first use (never at rfverify's import); a one-line UsageError if it is missing."""
    try:
        return importlib.import_module("torch")
    except ImportError:
        raise UsageError("global_seed='torch' needs torch: pip install torch") from None


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


def _same(a: Any, b: Any) -> bool:
    """``a == b`` as one bool (arrays compared whole; a comparison that raises means different)."""
    try:
        if isinstance(a, float) and isinstance(b, float):
            return bool(np.isclose(a, b, rtol=1e-12, atol=0.0))  # a converted parameter (param_map)
        return bool(np.all(np.asarray(a == b)))
    except Exception:  # noqa: BLE001 - a parameter's own __eq__ is plug-in code
        return False


def _routes_and_names(param_map: Mapping[str, Any] | None) -> tuple[dict[str, Any], dict[str, str | None]]:
    """The kernel parameters' routes, and the names the width and the seed are passed as (``param_map``'s
    ``n_components`` and ``random_state`` keys: a rename only, never a conversion)."""
    from rfverify.param_map import as_param_map

    routes = dict(as_param_map(param_map))
    names: dict[str, str | None] = {}
    for key in RESERVED:
        if key in routes:
            route = routes.pop(key)
            if route.target is not None and route.expression != key:
                raise UsageError(f"param_map[{key!r}] renames the argument ({key}=NAME or {key}=), without a "
                                 f"conversion: got {route.target}:{route.expression}")
            names[key] = route.target
    return routes, names


def _checked_init(init: Mapping[str, Any] | None, names: Mapping[str, str | None]) -> dict[str, Any]:
    """The other constructor arguments: parameter names, none of them the width or the seed (set per draw)."""
    init = dict(init or {})
    for k in init:
        if not isinstance(k, str) or not k.isidentifier() or k in ("n_components", "random_state") or \
                k in {v for v in names.values() if v}:
            raise UsageError(f"init argument {k!r} is not allowed: n_components and random_state (and the names "
                             "they are passed as) are set per draw, and keys must be parameter names")
    return init


def as_feature_map(obj: Any, *, kernel_params: Mapping[str, Any] | None = None,
                   name: str | None = None, spec: str | None = None, param_map: Mapping[str, Any] | None = None,
                   init: Mapping[str, Any] | None = None, global_seed: str | None = None, hosted: bool = True,
                   input: str | None = None, method: str | None = None, call_kw: Mapping[str, Any] | None = None,
                   width: str | None = None, feature_scale: str | None = None) -> FeatureMapPlugin:
    """Detect the form of ``obj`` (or load ``MODULE:ATTR``) and wrap it for the harness.

    ``param_map``: kernel parameter -> ``"NAME[:EXPRESSION]"`` or ``""`` (:mod:`rfverify.param_map`); its keys
    ``n_components`` and ``random_state`` rename the width and the seed argument (``""``: not passed);
    ``init``: other constructor arguments; ``global_seed``: ``"numpy"`` or ``"torch"`` for a library seeded
    only through that global generator; ``input``: ``"torch"``, ``"jax"`` or ``"cupy"`` to hand over that
    library's arrays (:func:`rfverify.arrays.to_input`); ``method``, ``call_kw``, ``width``, ``feature_scale``:
    how the features are called and judged (:mod:`rfverify.plugin_calls`); ``hosted=False``: here, judge or not.
    """
    if isinstance(obj, FeatureMapPlugin):
        return obj
    routes, names = _routes_and_names(param_map)
    calls = CallSpec.make(method=method, call_kw=call_kw, width=width, feature_scale=feature_scale, names=names)
    init = _checked_init(init, names)
    if global_seed not in (None, *GLOBAL_SEEDS):
        raise UsageError(f"global_seed must be None, 'numpy' or 'torch', got {global_seed!r}")
    input = validate_input(input)
    kernel_params = dict(kernel_params or {})
    from rfverify.containment.supervise import judge_wanted

    if hosted and judge_wanted():  # its import, its form detection and every call into it in its own process
        from rfverify.containment.host import Host

        label = name or (obj if isinstance(obj, str) else type_name(obj, is_type=isinstance(obj, type)))
        host = Host(label, ("spec", obj) if isinstance(obj, str) else ("object", obj), load_object, to_numpy,
                    BUILD_LIMITS)
        found = host.run(_detect_plain, host.root_proxy(), kernel_params, name, obj if isinstance(obj, str) else spec,
                         routes, init, input is not None, calls)
        plugin = FeatureMapPlugin(host.root_proxy(), found["form"], name or found["name"], found["spec"],
                                  found["passthrough"], host=host)
        host.plugin = plugin.name
    else:
        if isinstance(obj, str):
            spec = obj
            obj = load_object(obj)
        plugin = _detect_guarded(obj, kernel_params, name, spec, routes, init, input is not None, calls)
    plugin.init = init
    plugin.global_seed = global_seed
    plugin.input = input
    plugin.arrays = ArrayRecord(input or "numpy")
    plugin.param_map = routes
    plugin.calls = calls
    plugin.kernel_params = dict(kernel_params)
    return plugin


#: Limits of the operations that build a configuration (import, form detection) in the plug-in's process; the
#: CLI sets its --time-limit here.
BUILD_LIMITS = guard.Limits()


def _detect_guarded(obj: Any, kernel_params: dict[str, Any], name: str | None, spec: str | None,
                    routes: Mapping[str, Any], init: Mapping[str, Any], module_ok: bool,
                    calls: CallSpec) -> FeatureMapPlugin:
    who = name or (obj.__qualname__ if isinstance(obj, type) else type(obj).__qualname__)
    # detection calls plug-in code (hasattr runs __getattr__, get_params): under the guard, like every call
    with guard.guarded(who, "form detection", guard.Limits()):
        return guard.call(_detect, obj, kernel_params, name, spec, routes, init, module_ok, calls,
                          plugin=who, action="form detection (fit/transform attributes, get_params())",
                          hint="attribute lookups and get_params(deep=False) must not raise; get_params "
                               "returns a dict", passthrough=(UsageError, PluginError))


def _detect_plain(obj: Any, kernel_params: dict[str, Any], name: str | None, spec: str | None,
                  routes: Mapping[str, Any], init: Mapping[str, Any], module_ok: bool,
                  calls: CallSpec) -> dict[str, Any]:
    """Form detection in the plug-in's process (:mod:`rfverify.containment.host`): plain data only."""
    from rfverify.text import NAME_LIMIT, clean

    plugin = _detect_guarded(obj, kernel_params, name, spec, routes, init, module_ok, calls)
    spec = plugin.spec if plugin.spec is None or len(plugin.spec) <= 10_000 else None
    return {"form": plugin.form, "name": clean(plugin.name, NAME_LIMIT, one_line=True), "spec": spec,
            "passthrough": dict(plugin.passthrough)}


def _routed(kernel_params: dict[str, Any], routes: Mapping[str, Any], accepted: set[str] | None,
            var_kw: bool, who: str, reserved: set[str] | None = None) -> dict[str, Any]:
    """Constructor arguments from the kernel's parameters: routed by the parameter map, else by name."""
    from rfverify.param_map import apply_param_map

    reserved = reserved if reserved is not None else {"n_components", "random_state"}
    out = apply_param_map(routes, kernel_params)
    for target in out:
        if target in reserved:
            raise UsageError(f"param_map cannot set {target}: it is set per draw")
        if target.startswith("."):  # an attribute set after construction
            continue
        if accepted is not None and target not in accepted and not var_kw:
            raise UsageError(f"{who} does not accept {target!r} (param_map sends a kernel parameter there); "
                             f"it accepts {', '.join(sorted(accepted - reserved)) or 'nothing else'}")
    for k, v in kernel_params.items():
        if k not in routes and accepted is not None and k in accepted and k not in reserved:
            out.setdefault(k, v)
    return out


def _detect(obj: Any, kernel_params: dict[str, Any], name: str | None, spec: str | None,
            routes: Mapping[str, Any] | None = None, init: Mapping[str, Any] | None = None,
            module_ok: bool = False, calls: CallSpec | None = None) -> "FeatureMapPlugin":
    calls = calls or CallSpec()
    # the names the width and the seed are passed under (None: not passed)
    reserved = {k for k in (calls.name_of(r) for r in RESERVED) if k}
    routes = routes or {}
    init = init or {}
    features = calls.method or "transform"
    if isinstance(obj, type):
        form, passthrough = "class", _detect_class(obj, kernel_params, routes, module_ok, calls, reserved)
        label = name or obj.__qualname__
    elif hasattr(obj, "fit") and hasattr(obj, features) and hasattr(obj, "get_params"):
        form, passthrough = "instance", _detect_instance(obj, kernel_params, routes, init, calls, reserved)
        label = name or type(obj).__qualname__  # an instance has no import path of its own
    elif callable(obj):
        form, passthrough = _detect_callable(obj, kernel_params, routes, calls, reserved)
        label = str(name or getattr(obj, "__qualname__", type(obj).__name__))
    else:
        raise UsageError(f"cannot use {type(obj).__name__} as a feature map: pass a factory "
                         "make(n_components, random_state), a function f(X, n_components, random_state), "
                         "or an sklearn-style estimator class or instance"
                         + (f" (it has no method {calls.method!r})" if calls.method else ""))
    if form in ("function", "factory") and any(k.startswith(".") for k in passthrough):
        raise UsageError(f"{label}: a .ATTRIBUTE route (--param-name KEY=.NAME) sets an attribute of a constructed "
                         "object; a function or a factory takes its parameters as arguments")
    clash = sorted(set(passthrough) & set(init))
    if clash:
        raise UsageError(f"{', '.join(clash)} set both by the kernel's parameters and by init; set it once")
    if spec is None and form != "instance":
        spec = spec_of(obj)
    return FeatureMapPlugin(obj, form, label, spec, passthrough)


def _detect_class(obj: type, kernel_params: dict[str, Any], routes: Mapping[str, Any], module_ok: bool,
                  calls: CallSpec, reserved: set[str]) -> dict[str, Any]:
    """An estimator class (or a torch module class), checked: the kernel parameters it is passed."""
    if module_ok and callable(getattr(obj, "forward", None)) and not hasattr(obj, "transform"):
        pass  # a torch module: called on tensors, no fit (input="torch")
    elif calls.method is not None:
        if not hasattr(obj, calls.method):
            raise UsageError(f"class {obj.__qualname__} has no method {calls.method!r} (declared to return "
                             "the features)")
    elif not (hasattr(obj, "fit") and hasattr(obj, "transform")):
        raise UsageError(f"class {obj.__qualname__} has no fit/transform methods; "
                         "pass an estimator class, an instance, a factory or a function (or declare the method "
                         "that returns features: --method NAME)")
    accepted, var_kw = _accepted_names(obj)
    missing = reserved - accepted
    if missing and not var_kw:
        raise UsageError(f"class {obj.__qualname__} does not accept {', '.join(sorted(missing))}; "
                         f"the contract needs Cls({', '.join(f'{k}=...' for k in sorted(reserved))}) (name them "
                         "with --param-name n_components=NAME / random_state=NAME, or random_state= to pass none)")
    if calls.method is not None:
        _check_method_kw(getattr(obj, calls.method), calls, f"{obj.__qualname__}.{calls.method}")
    return _routed(kernel_params, routes, accepted, var_kw, f"class {obj.__qualname__}", reserved)


def _detect_instance(obj: Any, kernel_params: dict[str, Any], routes: Mapping[str, Any], init: Mapping[str, Any],
                     calls: CallSpec, reserved: set[str]) -> dict[str, Any]:
    """An sklearn-style instance: its parameters must agree with the kernel's; only ``.ATTRIBUTE`` routes are
    passed (set after construction)."""
    params = obj.get_params(deep=False)
    if not isinstance(params, Mapping):
        raise PluginError(type(obj).__qualname__, f"get_params(deep=False) returned {type(params).__name__}, "
                          "not a dict", "return the constructor parameters as a dict (sklearn's contract)")
    params = dict(params)
    for key in sorted(reserved):
        if key not in params:
            raise UsageError(f"{type(obj).__qualname__} has no parameter {key!r}; the contract needs "
                             "n_components and random_state (or --param-name n_components=NAME / random_state=)")
    if calls.method is not None:
        _check_method_kw(getattr(obj, calls.method), calls, f"{type(obj).__qualname__}.{calls.method}")
    passthrough = {}
    for k, v in _routed(kernel_params, routes, set(params), False, type(obj).__qualname__, reserved).items():
        if k in init:
            continue
        if k.startswith("."):  # an attribute set after construction
            passthrough[k] = v
            continue
        if not _same(params[k], v):
            raise UsageError(f"{type(obj).__qualname__}({k}={params[k]!r}) disagrees with the kernel "
                             f"parameter {k}={v!r}; make them agree (or route it: param_map / --param-name)")
    return passthrough


def _detect_callable(obj: Any, kernel_params: dict[str, Any], routes: Mapping[str, Any], calls: CallSpec,
                     reserved: set[str]) -> tuple[str, dict[str, Any]]:
    """A function ``f(X, n_components, random_state)`` or a factory ``make(m, seed)``: (form, passed params)."""
    req = _required_positional(obj)
    accepted, var_kw = _accepted_names(obj)
    if not (len(req) >= 3 or (req and req[0] in _X_NAMES)):
        if calls.renamed:
            raise UsageError("a factory is called make(n_components, random_state): --param-name "
                             "n_components=/random_state= applies to a class, an instance or a function")
        return "factory", _routed(kernel_params, routes, accepted, var_kw, getattr(obj, "__qualname__", "the factory"))
    who = getattr(obj, "__qualname__", "the function")
    if calls.method is not None:
        raise UsageError(f"function {who} returns the features itself: --method {calls.method} applies to "
                         "a class, an instance or a factory's product")
    # kernel parameters reach a plain function by name (its signature) or by the parameter map
    passthrough = _routed(kernel_params, routes, accepted, var_kw, f"function {who}", reserved)
    if calls.renamed:
        missing = reserved - accepted
        if missing and not var_kw:
            raise UsageError(f"function {who} does not accept {', '.join(sorted(missing))} (--param-name "
                             "renames n_components/random_state)")
    if calls.call_kw:
        from rfverify.plugin_calls import check_accepts

        check_accepts(obj, calls.call_kw, f"function {who}")
    return "function", passthrough


def _check_method_kw(method: Any, calls: CallSpec, who: str) -> None:
    if calls.call_kw:
        from rfverify.plugin_calls import check_accepts

        check_accepts(method, calls.call_kw, who)
