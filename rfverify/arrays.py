"""Plug-in arrays from any array library: the one conversion of outputs to the host, the one of inputs to a library.

Every kind's plug-in may return a numpy array, a torch tensor (CPU or CUDA, even one that requires grad), a JAX
array, a CuPy array, a dask array (computed), a list of numbers or any object with ``__array__`` or
``__dlpack__``.  :func:`to_numpy` brings it to the host as a numpy array **in its own dtype** (a float32 tensor
stays float32, so the checks judge it with float32 round-off) and refuses, with a one-line
:class:`~rfverify.errors.PluginError`, what cannot be converted or what lies about its shape.  Libraries are
recognised with ``array-api-compat`` (which looks in ``sys.modules`` and imports nothing: torch, JAX, CuPy and
dask are imported only when a plug-in uses them).

:func:`to_input` hands the harness's float64 numpy batches to a plug-in in the input form it declared
(``input="numpy" | "torch" | "jax" | "cupy"``): a torch tensor on a module's device and dtype (torch's default
float dtype otherwise), a JAX array in JAX's default float dtype (float32 unless ``jax_enable_x64``), a CuPy
array on the current GPU.  :class:`ArrayRecord` keeps what went in and came out (library, dtype, device) for
the report.

Both functions are pure functions of their arguments (no state but the optional record), so they may run in
whichever process calls the plug-in.
"""

from __future__ import annotations

import importlib
import os
import sys
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from rfverify.errors import PluginError, UsageError

__all__ = ["INPUTS", "JIT_INPUTS", "ArrayRecord", "to_numpy", "to_input", "input_code", "input_import", "host_dtype", "library_of",
           "validate_input"]

#: The declarable input forms (``--input``); None and "numpy" are the same.
INPUTS = ("numpy", "torch", "jax", "cupy")
#: Input forms whose code is typically jit-compiled (a new input shape is a new compilation).
JIT_INPUTS = ("jax",)
#: The package each input form needs (the usage error names it).
_PACKAGES = {"torch": "torch", "jax": "jax", "cupy": "cupy"}


def validate_input(input: Any, what: str = "input") -> str | None:
    """``input`` as stored: None for numpy, else one of :data:`INPUTS` (a UsageError otherwise)."""
    if input not in (None, *INPUTS):
        raise UsageError(f"{what} must be one of {', '.join(INPUTS)}, got {input!r}")
    return None if input in (None, "numpy") else str(input)


def _import(form: str) -> Any:
    """The library of an input form, imported on first use; a one-line UsageError if it is missing."""
    module = sys.modules.get(form)
    if module is not None:
        return module
    try:
        return importlib.import_module(form)
    except ImportError:
        pkg = _PACKAGES[form]
        raise UsageError(f"input={form!r}: the plug-in's arrays need {pkg}: pip install {pkg}") from None


def _compat() -> Any:
    import array_api_compat

    return array_api_compat


#: type -> library, as array-api-compat recognised it (a check costs microseconds; outputs come by the thousand).
_LIBRARY_OF_TYPE: dict[type, str] = {}


def library_of(a: Any) -> str:
    """The array library of ``a``: numpy, torch, jax, cupy, dask, or the type's name (a list, another object)."""
    if isinstance(a, np.ndarray):
        return "numpy"
    known = _LIBRARY_OF_TYPE.get(type(a))
    if known is not None:
        return known
    c = _compat()
    found = type(a).__name__
    for lib, test in (("torch", c.is_torch_array), ("jax", c.is_jax_array), ("cupy", c.is_cupy_array),
                      ("dask", c.is_dask_array)):
        try:
            if test(a):
                found = lib
                break
        except Exception:  # noqa: BLE001 - an isinstance against a plug-in's odd object
            continue
    if found in ("torch", "jax", "cupy", "dask"):
        _LIBRARY_OF_TYPE[type(a)] = found
    return found


def _device(a: Any, lib: str) -> str:
    """Where ``a`` lives, as text (cpu, cuda:0, TFRT_CPU_0 ...); "cpu" for host objects."""
    try:
        if lib == "torch":
            return str(a.device)
        if lib == "jax":
            return ",".join(sorted(str(d) for d in a.devices()))
        if lib == "cupy":
            return f"cuda:{a.device.id}"
        return "cpu" if lib in ("numpy", "dask", "list", "tuple") else str(getattr(a, "device", "cpu"))
    except Exception:  # noqa: BLE001 - the device is recorded, never judged
        return "?"


def host_dtype(a: Any) -> np.dtype | None:
    """The numpy dtype of an array of any library (``torch.float32`` -> float32), or None if it has none."""
    dt = getattr(a, "dtype", None)
    if dt is None:
        return None
    try:
        return np.dtype(dt)
    except TypeError:
        try:
            return np.dtype(str(dt).rpartition(".")[2])
        except TypeError:
            return None


@dataclass
class ArrayRecord:
    """What a plug-in was handed and returned: ``(library, dtype, device)`` of inputs and outputs, for the report."""

    input: str = "numpy"
    inputs: set[tuple[str, str, str]] = field(default_factory=set)
    outputs: set[tuple[str, str, str]] = field(default_factory=set)

    def to_dict(self) -> dict[str, Any]:
        def fmt(seen: set[tuple[str, str, str]]) -> list[dict[str, str]]:
            return [{"library": lib, "dtype": dt, "device": dev} for lib, dt, dev in sorted(seen)]

        return {"input": self.input, "inputs": fmt(self.inputs), "outputs": fmt(self.outputs)}

    def describe(self) -> str:
        """One line: ``torch float32 on cpu -> torch float32 on cpu`` (empty before any call)."""
        def one(seen: set[tuple[str, str, str]]) -> str:
            return "; ".join(f"{lib} {dt} on {dev}" for lib, dt, dev in sorted(seen))

        if not self.inputs and not self.outputs:
            return "" if self.input == "numpy" else f"input {self.input}"
        return f"in: {one(self.inputs) or self.input}; out: {one(self.outputs) or '-'}"

    @property
    def foreign(self) -> bool:
        """Anything but numpy arrays went in or came out."""
        return self.input != "numpy" or any(lib != "numpy" for lib, _, _ in self.outputs)


def to_input(X: Any, form: str | None, like: Any = None, *, keep_dtype: bool = False,
             record: ArrayRecord | None = None) -> Any:
    """``X`` (a numpy array) in the input form ``form`` (None or "numpy": ``X`` itself); a numpy ``Generator`` (a
    sampler's or rule's ``rng``) becomes that library's random source, seeded from it (``torch.Generator``, JAX
    ``PRNGKey``, CuPy generator).

    ``like``: an object whose first floating parameter or buffer gives the device and dtype (a torch module);
    otherwise the library's default float dtype (float32 for torch and JAX), or ``X``'s own dtype with
    ``keep_dtype`` (a transform is exercised at float32 and float64: JAX without x64 can only take float32).
    """
    out: Any
    if isinstance(X, np.random.Generator) and form not in (None, "numpy"):
        out = _generator(X, form)
    elif form in (None, "numpy"):
        out = X
    elif form == "torch":
        torch = _import("torch")
        device, dtype = None, None
        for attr in ("parameters", "buffers"):
            try:
                first = next(iter(getattr(like, attr)()), None) if hasattr(like, attr) else None
            except Exception:  # noqa: BLE001 - plug-in code; fall back to the defaults
                first = None
            if first is not None and getattr(getattr(first, "dtype", None), "is_floating_point", False):
                device, dtype = first.device, first.dtype
                break
        if dtype is None:
            dtype = getattr(torch, str(X.dtype)) if keep_dtype else torch.get_default_dtype()
        out = torch.as_tensor(np.ascontiguousarray(X), dtype=dtype, device=device)
    elif form == "jax":
        jax = _import("jax")
        default = np.dtype(jax.dtypes.canonicalize_dtype(np.float64))  # float32 unless jax_enable_x64
        dtype = X.dtype if keep_dtype and np.dtype(X.dtype).itemsize <= default.itemsize else default
        out = _jax_input(jax, np.ascontiguousarray(X, dtype=dtype))
    elif form == "cupy":
        out = _import("cupy").asarray(np.ascontiguousarray(X))
    else:
        raise UsageError(f"input must be one of {', '.join(INPUTS)}, got {form!r}")
    if record is not None:
        lib = "numpy" if form in (None, "numpy") else str(form)
        record.inputs.add((lib, str(host_dtype(out) or type(out).__name__), _device(out, lib)))
    return out


#: How a printed program imports each input form's library, and hands it a numpy array (``{}``) or a numpy
#: ``Generator`` (``rng``) the way :func:`to_input` does.
_INPUT_CODE = {
    "torch": ("import torch", "torch.as_tensor({})", "torch.Generator().manual_seed(int({}.integers(2 ** 63 - 1)))"),
    "jax": ("import jax, jax.numpy as jnp", "jnp.asarray({})", "jax.random.PRNGKey(int({}.integers(2 ** 32)))"),
    "cupy": ("import cupy", "cupy.asarray({})", "cupy.random.default_rng(int({}.integers(2 ** 63 - 1)))"),
}


def input_import(form: str | None) -> str | None:
    """The import line a printed program needs for the input form ``form`` (None for numpy)."""
    return _INPUT_CODE[form][0] if form in _INPUT_CODE else None


def input_code(form: str | None, code: str, *, generator: bool = False) -> str:
    """The code that hands the numpy array (or, with ``generator``, the numpy ``Generator``) written as ``code`` to
    a plug-in declared with input form ``form``, as :func:`to_input` does: ``torch.as_tensor(X)`` for torch."""
    if form not in _INPUT_CODE:
        return code
    return _INPUT_CODE[form][2 if generator else 1].format(code)


def _generator(rng: np.random.Generator, form: str) -> Any:
    """A sampler's or rule's random source in its library, seeded from the harness's numpy generator (so the draw
    stays a function of the check's key): a ``torch.Generator``, a JAX ``PRNGKey``, a CuPy generator."""
    if form == "torch":
        return _import("torch").Generator().manual_seed(int(rng.integers(2 ** 63 - 1)))
    if form == "jax":
        _import("jax")
        import jax.random

        return jax.random.PRNGKey(int(rng.integers(2 ** 32)))
    if form == "cupy":
        return _import("cupy").random.default_rng(int(rng.integers(2 ** 63 - 1)))
    raise UsageError(f"input must be one of {', '.join(INPUTS)}, got {form!r}")


#: Recent JAX inputs by content: a JAX array is immutable, so the same values may be handed over again without a
#: new transfer (a statistical check transforms one pair set for every draw; a transfer costs 40-90 us).
_JAX_INPUTS: "OrderedDict[tuple[Any, ...], Any]" = OrderedDict()
_JAX_CACHE_ITEMS, _JAX_CACHE_BYTES = 16, 1 << 16
_JAX_PID = [os.getpid()]


def _jax_input(jax: Any, X: np.ndarray) -> Any:
    """``jax.device_put(X)`` (not ``jnp.asarray``: that compiles a conversion for every new shape), reused for the
    same small array's values."""
    if X.nbytes > _JAX_CACHE_BYTES:
        return jax.device_put(X)
    if _JAX_PID[0] != os.getpid():  # a forked child never reuses its parent's device buffers
        _JAX_INPUTS.clear()
        _JAX_PID[0] = os.getpid()
    key = (X.shape, X.dtype.str, X.tobytes())
    hit = _JAX_INPUTS.get(key)
    if hit is not None:
        _JAX_INPUTS.move_to_end(key)
        return hit
    out = _JAX_INPUTS[key] = jax.device_put(X)
    if len(_JAX_INPUTS) > _JAX_CACHE_ITEMS:
        _JAX_INPUTS.popitem(last=False)
    return out


def _check_shape(declared: Any, A: Any, out: Any, plugin: str, action: str) -> None:
    """An object whose ``shape`` disagrees with the array it converts to is the plug-in's error."""
    try:
        said = tuple(int(s) for s in declared)
    except Exception:  # noqa: BLE001 - a shape that is not a tuple of ints is not a claim we can compare
        return
    if said != A.shape:
        raise PluginError(plugin, f"{action} returned a {type(out).__name__} whose shape says {said} but whose "
                          f"values form an array of shape {A.shape}",
                          "the object's shape must describe its values (__array__ / __dlpack__)")


def to_numpy(out: Any, *, plugin: str = "the plug-in", action: str = "the call",
             record: ArrayRecord | None = None) -> Any:
    """A plug-in's output on the host as a numpy array in its own dtype (see the module docstring).

    numpy arrays are returned as they are (subclasses as ``numpy.asarray`` makes them); torch tensors are
    detached and copied to the CPU (conjugation resolved); CuPy arrays come through ``.get()``; JAX arrays
    through ``numpy.asarray``; dask arrays are computed (synchronously) and converted in turn; anything else
    through DLPack when it offers it, else ``numpy.asarray`` (lists, ``__array__``).  ``None`` and objects that
    are not arrays pass through unchanged (the caller's validation names them).  An object whose ``shape``
    disagrees with what it converts to is a :class:`PluginError`.
    """
    if type(out) is np.ndarray:
        if record is not None:
            record.outputs.add(("numpy", str(out.dtype), "cpu"))
        return out
    if out is None or isinstance(out, (str, bytes, dict)):
        return out
    lib = library_of(out)
    device = _device(out, lib)
    declared = getattr(out, "shape", None) if lib not in ("numpy", "dask") else None
    try:
        if isinstance(out, np.ndarray):
            A = np.asarray(out)
        elif lib == "torch":
            t = out.detach()
            if t.is_conj():
                t = t.resolve_conj()
            A = t.cpu().numpy()
        elif lib == "cupy":
            A = out.get()
        elif lib == "jax":
            A = np.asarray(out)
        elif lib == "dask":
            computed = out.compute(scheduler="synchronous")
            A = to_numpy(computed, plugin=plugin, action=f"{action} (dask array, computed)")
            device = f"{_device(computed, library_of(computed))} (dask, computed)"
        elif callable(getattr(out, "detach", None)):  # a tensor-like object (detach, then to the CPU)
            t = out.detach()
            A = np.asarray(t.cpu() if callable(getattr(t, "cpu", None)) else t)
        elif not hasattr(out, "__array__") and hasattr(out, "__dlpack__"):
            A = np.from_dlpack(out)
        elif isinstance(out, (list, tuple)) or hasattr(out, "__array__"):
            A = np.asarray(out)
        else:
            return out
    except (KeyboardInterrupt, MemoryError):
        raise
    except Exception as exc:  # noqa: BLE001 - the plug-in's object could not be converted
        from rfverify.text import plain

        raise PluginError(plugin, f"{action} returned {lib} output that cannot be brought to the host as a numpy "
                          f"array ({type(exc).__name__}: {plain(str(exc))[:200]})",
                          "return an array of numbers (numpy, torch, JAX, CuPy or dask)") from None
    if declared is not None:
        _check_shape(declared, A, out, plugin, action)
    if record is not None and isinstance(A, np.ndarray):
        record.outputs.add((lib, str(A.dtype), device))
    return A


def is_jitted(obj: Any) -> bool:
    """Whether ``obj`` (or its ``transform``/``__call__``) is a ``jax.jit`` function (it has ``lower`` and ``trace``:
    looked up on the type, so no plug-in code runs)."""
    for target in (obj, getattr(type(obj), "transform", None), getattr(obj, "__dict__", {}).get("transform")):
        if target is None:
            continue
        cls = type(target)
        if callable(target) and hasattr(cls, "lower") and hasattr(cls, "trace"):
            return True
    return False


def decide_jit(jit: Any, input: str | None, obj: Any) -> bool:
    """``jit`` as declared (True/False), else (None) True for the input forms of :data:`JIT_INPUTS` or a detected
    ``jax.jit`` function."""
    if jit not in (None, True, False):
        raise UsageError(f"jit must be True, False or None (decide), got {jit!r}")
    if jit is not None:
        return bool(jit)
    return input in JIT_INPUTS or is_jitted(obj)


def handed_dtype(form: str | None, dtype: Any) -> np.dtype:
    """The dtype an input of ``dtype`` reaches the plug-in in under ``to_input(..., keep_dtype=True)``: its own,
    but at most JAX's default float dtype for ``form="jax"`` (float32 unless ``jax_enable_x64``).  The round-off
    the plug-in is allowed is that dtype's."""
    dtype = np.dtype(dtype)
    if form == "jax":
        default = np.dtype(_import("jax").dtypes.canonicalize_dtype(np.float64))
        return dtype if dtype.itemsize <= default.itemsize else default
    return dtype
