"""The wire between the harness and the plug-in's process: plain data out of the plug-in, never a pickled object.

The plug-in's objects live in a supervised child process (:mod:`rfverify.containment.host`); the harness holds
:class:`Remote` proxies and asks the child for one operation at a time (read an attribute, call).  What comes
back is **data**, encoded by :func:`encode` and read by :func:`decode`:

* a header of JSON (at most :data:`MAX_HEADER` bytes) holding the value's shape as a tree of ``null``, booleans,
  numbers, strings and one-key objects — ``{"l": [...]}`` a list, ``{"t": [...]}`` a tuple, ``{"d": [[key,
  value], ...]}`` a dict with string keys, ``{"c": [re, im]}`` a complex number, ``{"a": i}`` the i-th numeric
  array, ``{"n": i}`` the i-th array as a numpy scalar, ``{"k": [...]}`` a non-numeric array described (its
  kind, dtype, shape and the type of an element: never its objects), ``{"h": [id, type name, cacheable]}`` a
  handle to an object that stays in the child — and the arrays' specifications (an allow-listed numeric or
  bool dtype, a shape, an origin such as ``torch.Tensor float32 cpu``);
* then the arrays' raw bytes, back to back.

Nothing in a reply runs code when it is read: :func:`decode` parses JSON, checks every key, type, dtype, shape
and size (:data:`MAX_REPLY` bytes in all, :data:`MAX_NODES` nodes, :data:`MAX_DEPTH` levels) and builds numpy
arrays from the bytes.  A reply that does not fit is a :class:`ProtocolError`, which the host turns into the
plug-in's error.  An exception the plug-in raised comes back as an error record of plain strings (its type's
name, the names of its type's bases — for the refusal rule —, its first line, length-capped and without
absolute paths) and is raised in the harness as a stand-in of the nearest built-in type
(:func:`raise_record`), so that :func:`rfverify.containment.guard.call` words it as it always has.

The other direction (harness to child) is a pickle: the child is the side that is not trusted.
"""

from __future__ import annotations

import json
import math
import re
import struct
import weakref
from typing import Any, Callable

import numpy as np

from rfverify.errors import PluginError, UsageError

__all__ = ["Remote", "ProtocolError", "encode", "encode_error", "decode", "raise_record", "is_remote",
           "MAX_REPLY", "MAX_HEADER"]

#: Largest reply accepted from the child, bytes (the largest array a call may return, in float64, plus slack).
MAX_REPLY = (1 << 27) * 8 + (1 << 24)
#: Largest JSON header of a reply, bytes.
MAX_HEADER = 4 << 20
#: Most nodes (values, containers) in one reply's tree, and its deepest nesting.
MAX_NODES = 200_000
MAX_DEPTH = 32
#: Longest string accepted in a reply (characters); a longer one stays in the child as a handle.
MAX_STR = 100_000
#: Methods whose bound handles come with a new handle (an object's ``fit`` and ``transform``), cached by the proxy.
PREFETCH = ("fit", "transform")
#: Array dtypes that travel as raw bytes (native byte order; numpy's ``dtype.str``).
_DTYPES = {np.dtype(t).str: np.dtype(t) for t in
           ("?", "i1", "i2", "i4", "i8", "u1", "u2", "u4", "u8", "f2", "f4", "f8", "g", "c8", "c16", "G")}
_STRUCT = struct.Struct("<I")
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,99}\Z")


class ProtocolError(Exception):
    """A reply from the plug-in's process that does not fit the protocol."""


# ----------------------------------------------------------------------------------------------------------------
# child side: encode
# ----------------------------------------------------------------------------------------------------------------
def _type_name(obj: Any) -> str:
    from rfverify.text import type_name

    name = type_name(obj)
    return name if _NAME.match(name) else "object"


def _array_like(value: Any) -> bool:
    """Whether ``value`` offers an array protocol (numpy's, DLPack, a torch tensor's ``detach``), read from its type
    without running any ``__getattr__`` or property of the plug-in's."""
    import inspect

    if isinstance(value, type):  # a class (numpy.float64 given as a dtype parameter) is an object, not an array
        return False
    cls = type(value)
    known = _ARRAY_LIKE.get(cls)
    if known is None:  # decided once per type (the protocols are the type's)
        try:
            known = any(inspect.getattr_static(cls, a, None) is not None
                        for a in ("__array__", "__array_interface__", "__array_struct__", "__dlpack__", "detach"))
        except Exception:  # noqa: BLE001 - a type that cannot be read statically is not an array
            known = False
        if len(_ARRAY_LIKE) < 4096:
            _ARRAY_LIKE[cls] = known
    return known


_ARRAY_LIKE: dict[type, bool] = {}


def _origin(value: Any) -> str:
    """What an array-like was before it became a numpy array (plain metadata: library type, dtype, device)."""
    from rfverify.text import clean

    parts = [f"{getattr(type(value), '__module__', '?')}.{_type_name(value)}"]
    for attr in ("dtype", "device"):
        try:
            parts.append(str(getattr(value, attr)))
        except Exception:  # noqa: BLE001 - plug-in code; metadata only
            pass
    return clean(" ".join(parts), 200, one_line=True)


class _Encoder:
    def __init__(self, table: Any, convert: Callable[[Any], np.ndarray]) -> None:
        self.table, self.convert = table, convert
        self.arrays: list[np.ndarray] = []
        self.specs: list[list[Any]] = []
        self.nodes = 0

    def array(self, A: np.ndarray, origin: str, scalar: bool = False) -> Any:
        A = np.asarray(A)
        if A.dtype.str not in _DTYPES:
            native = A.dtype.newbyteorder("=")
            if A.dtype.kind in "biufc" and native.str in _DTYPES:
                A = A.astype(native)
            else:
                example = _type_name(A.flat[0]) if A.size and A.dtype.kind == "O" else ""
                return {"k": [A.dtype.kind, A.dtype.str[:40], list(A.shape), example]}
        alias = self.alias(A)
        A = A if A.flags.c_contiguous else A.copy(order="C")  # (np.ascontiguousarray would make a 0-d array 1-d)
        self.arrays.append(A)
        self.specs.append([A.dtype.str, list(A.shape), origin] + ([alias] if alias else []))
        return {"n" if scalar else "a": len(self.arrays) - 1}

    def alias(self, A: np.ndarray) -> list[Any] | None:
        """Where ``A`` lies in the buffer it views (a workspace the plug-in returns again, written anew): the buffer's
        key, size, ``A``'s offset and strides; the harness mirrors the buffer, so what it received earlier from the
        same buffer changes as it would in one process.  None for an array that owns contiguous memory of its own."""
        root = A
        while isinstance(root.base, np.ndarray):
            root = root.base
        if A.size == 0 or not (root.flags.c_contiguous or root.flags.f_contiguous) or root.base is not None \
                or not hasattr(self.table, "root_key"):
            return None
        offset = A.__array_interface__["data"][0] - root.__array_interface__["data"][0]
        item = A.dtype.itemsize
        if offset % item or any(st % item for st in A.strides):
            return None
        return [self.table.root_key(root), root.nbytes, offset, list(A.strides)]

    def value(self, v: Any, depth: int = 0) -> Any:
        self.nodes += 1
        if self.nodes > MAX_NODES or depth > MAX_DEPTH:
            raise ProtocolError("the value is too large or too deeply nested")
        t = type(v)
        if v is None or t is bool or t is float:
            return v
        if t is int:
            return v if abs(v) < 1 << 256 else self.handle(v)
        if t is complex:
            return {"c": [v.real, v.imag]}
        if t is str:
            return v if len(v) <= MAX_STR else self.handle(v)
        if isinstance(v, np.generic) and t.__module__ == "numpy":
            return self.array(np.asarray(v), "numpy", scalar=True)
        if t is list or t is tuple:
            return {"l" if t is list else "t": [self.value(x, depth + 1) for x in v]}
        if t is dict and all(type(k) is str for k in v):
            return {"d": [[k, self.value(x, depth + 1)] for k, x in v.items()]}
        if isinstance(v, np.ndarray):
            return self.array(np.asarray(v), "numpy" if t is np.ndarray else _origin(v))
        if _array_like(v):
            try:
                A = self.convert(v)  # the one conversion (rfverify.adapters.to_numpy)
            except Exception as exc:  # noqa: BLE001 - the harness reads it as numpy's refusal would read
                from rfverify.text import clean, plain

                return {"u": [_type_name(v), clean(plain(exc), 300, one_line=True)]}
            return self.array(A, _origin(v))
        return self.handle(v)

    def handle(self, v: Any) -> Any:
        import inspect

        new = self.table.new(v)
        hid = self.table.add(v)
        methods: dict[str, int] = {}
        for name in PREFETCH if new else ():  # the methods every check calls next, with the object: no round trip
            try:
                static = inspect.getattr_static(v, name)  # no descriptor or __getattr__ of the plug-in's runs
            except AttributeError:
                continue
            if inspect.isfunction(static) and not isinstance(v, type):
                methods[name] = self.table.add(getattr(v, name))
        return {"h": [hid, _type_name(v), inspect.ismethod(v), methods]}


def encode(value: Any, table: Any, convert: Callable[[Any], np.ndarray], extra: dict[str, Any] | None = None,
           shared: Any = None) -> bytes:
    """The reply carrying ``value`` (objects that are not data become handles in ``table``).  With ``shared`` (a
    memory map the harness reads too), arrays that fit are written there, back to back from its start, and the
    reply says how many bytes (``"s"``): one copy on each side instead of a stream through the channel."""
    enc = _Encoder(table, convert)
    tree = enc.value(value)
    total = sum(A.nbytes for A in enc.arrays)
    if shared is not None and 0 < total <= len(shared):
        view, offset = np.frombuffer(shared, np.uint8), 0
        for A in enc.arrays:
            if A.nbytes:
                view[offset:offset + A.nbytes] = A.reshape(-1).view(np.uint8)
            offset += A.nbytes
        return _pack({"v": tree, "a": enc.specs, "s": total, **(extra or {})}, [])
    return _pack({"v": tree, "a": enc.specs, **(extra or {})}, enc.arrays)


def _pack(header: dict[str, Any], arrays: list[np.ndarray]) -> bytes:
    head = json.dumps(header, separators=(",", ":")).encode()
    return b"".join([_STRUCT.pack(len(head)), head, *(A.tobytes() for A in arrays)])


def encode_error(exc: BaseException, extra: dict[str, Any] | None = None) -> bytes:
    """The error record of whatever ``exc`` is: plain strings read without trusting it."""
    return _pack({"e": error_record(exc), **(extra or {})}, [])


def error_record(exc: BaseException) -> dict[str, Any]:
    """The record :func:`encode_error` sends (a dict of plain strings and ints; :func:`raise_record` reads it)."""
    from rfverify.containment.guard import _one_line
    from rfverify.text import plain, type_name

    rec: dict[str, Any] = {"type": _type_name(exc), "mro": [], "message": ""}
    try:
        rec["mro"] = [type_name(c, is_type=True) for c in type(exc).__mro__][:30]
    except BaseException:  # noqa: BLE001
        pass
    if isinstance(exc, (PluginError, UsageError)) and type(exc).__module__ == "rfverify.errors":
        rec["rfverify"] = type(exc).__name__
        rec["message"] = plain(exc)[:20_000]
        if isinstance(exc, PluginError):
            rec["parts"] = [plain(exc.implementation)[:2000], plain(exc.problem)[:20_000], plain(exc.hint)[:4000]]
            ref = getattr(exc, "refusal", None)
            if ref is not None:
                rec["refusal"] = [plain(getattr(ref, f))[:2000] for f in ("exception", "message", "action")]
    else:
        said = _one_line(exc)
        rec["message"] = "" if said == "(no message)" and not plain(exc).strip() else said  # empty stays empty
    if isinstance(exc, OSError) and type(exc.errno) is int:
        rec["errno"] = exc.errno
    if isinstance(exc, SystemExit):
        code = exc.code
        rec["code"] = code if code is None or type(code) in (int, bool) else plain(code, "__repr__")[:100]
    return rec


# ----------------------------------------------------------------------------------------------------------------
# harness side: decode
# ----------------------------------------------------------------------------------------------------------------
def _need(cond: bool, what: str) -> None:
    if not cond:
        raise ProtocolError(what)


def _mirrored(dtype: np.dtype, shape: list[int], alias: Any, flat: np.ndarray, mirrors: Any) -> np.ndarray:
    """The array ``flat`` written into the harness's mirror of the plug-in's buffer ``alias`` describes, as a view
    of it (bounds checked: a view never reaches outside its mirror)."""
    _need(type(alias) is list and len(alias) == 4 and all(type(x) is int for x in alias[:3])
          and type(alias[3]) is list and len(alias[3]) == len(shape) and all(type(x) is int for x in alias[3]),
          "an array's buffer")
    key, nbytes, offset, strides = alias
    item = dtype.itemsize
    _need(0 < nbytes <= MAX_REPLY and 0 <= offset and offset % item == 0 and all(st % item == 0 for st in strides),
          "an array's place in its buffer")
    lo = offset + sum(min(0, (n - 1) * st) for n, st in zip(shape, strides))
    hi = offset + sum(max(0, (n - 1) * st) for n, st in zip(shape, strides)) + item
    _need(0 <= lo and hi <= nbytes, "an array outside its buffer")
    mirror = mirrors.get(key)
    if mirror is None or mirror.nbytes != nbytes:
        whole = math.prod(shape) * item == nbytes  # the view covers every byte of the buffer: nothing to clear
        mirror = np.empty(nbytes, np.uint8) if whole else np.zeros(nbytes, np.uint8)
        mirrors[key] = mirror
    view = np.ndarray(tuple(shape), dtype, buffer=mirror, offset=offset, strides=tuple(strides))
    view[...] = flat.reshape(shape)
    return view


def decode(data: bytes, make_handle: Callable[[int, str, bool], Any], extra: tuple[str, ...] = (),
           mirrors: Any = None, shared: Any = None) -> tuple[Any, Any]:
    """``("v", value)`` or ``("e", record)`` and the header's ``extra`` fields, from a reply; a reply that does not fit
    raises :class:`ProtocolError`.  ``shared``: the memory map a reply's arrays may be in (``"s"``: their bytes
    there, from its start); they are copied out once, then only the copies are read."""
    _need(type(data) is bytes and len(data) >= 4, "no header")
    _need(len(data) <= MAX_REPLY, f"a reply of {len(data):,} bytes, more than the {MAX_REPLY:,} accepted")
    (n,) = _STRUCT.unpack_from(data)
    _need(n <= MAX_HEADER and 4 + n <= len(data), "a header longer than the reply or the limit")
    try:
        header = json.loads(data[4:4 + n].decode("utf-8"))
    except (ValueError, UnicodeDecodeError, RecursionError) as exc:
        raise ProtocolError(f"a header that is not JSON ({type(exc).__name__})") from None
    _need(type(header) is dict, "a header that is not an object")
    keys = set(header) - set(extra)
    _need(keys in ({"v", "a"}, {"v", "a", "s"}, {"e"}), f"header fields {sorted(header)[:8]}")
    meta = {k: header.get(k) for k in extra}
    if "e" in header:
        _need(len(data) == 4 + n, "bytes after an error record")
        return ("e", _record(header["e"])), meta
    specs = header["a"]
    _need(type(specs) is list and len(specs) <= MAX_NODES, "array specifications")
    arrays, offset = [], 4 + n
    if "s" in header:  # the arrays' bytes are in the shared map, the reply is the header alone
        _need(shared is not None and type(header["s"]) is int and 0 < header["s"] <= len(shared)
              and len(data) == 4 + n, "arrays in shared memory")
        data, offset = shared, 0
        end = header["s"]
    else:
        end = len(data)
    for spec in specs:
        _need(type(spec) is list and len(spec) in (3, 4) and type(spec[0]) is str and type(spec[2]) is str,
              "an array spec")
        dtype = _DTYPES.get(spec[0])
        if dtype is None:
            raise ProtocolError(f"an array of dtype {spec[0][:40]!r}")
        shape = spec[1]
        _need(type(shape) is list and len(shape) <= 32 and all(type(s) is int and 0 <= s < 1 << 40 for s in shape),
              "an array shape")
        count = math.prod(shape)
        size = count * dtype.itemsize
        _need(offset + size <= end, "fewer bytes than the arrays declare")
        flat = np.frombuffer(data, dtype, count, offset)
        if len(spec) == 4 and mirrors is not None and count:
            arrays.append(_mirrored(dtype, shape, spec[3], flat, mirrors))
        else:
            arrays.append(flat.reshape(shape).copy())
        offset += size
    _need(offset == end, "more bytes than the arrays declare")
    state: dict[str, Any] = {"nodes": 0, "used": set()}
    value = _tree(header["v"], arrays, make_handle, state, 0)
    _need(len(state["used"]) == len(arrays), "arrays the value does not use")
    return ("v", value), meta


class _Opaque:
    """An element of a non-numeric array the child described (never the plug-in's object)."""


def _opaque(name: str) -> type:
    return type(name, (_Opaque,), {"__module__": "plugin"})


def _tree(node: Any, arrays: list[np.ndarray], make_handle: Any, state: dict[str, Any], depth: int) -> Any:
    state["nodes"] += 1
    _need(state["nodes"] <= MAX_NODES and depth <= MAX_DEPTH, "a value too large or too deeply nested")
    t = type(node)
    if node is None or t in (bool, int, float):
        return node
    if t is str:
        _need(len(node) <= MAX_STR, "a string too long")
        return node
    _need(t is dict and len(node) == 1, "a value of an unknown form")
    (tag, body), = node.items()
    if tag in ("l", "t"):
        _need(type(body) is list, "a list")
        items = [_tree(x, arrays, make_handle, state, depth + 1) for x in body]
        return items if tag == "l" else tuple(items)
    if tag == "d":
        _need(type(body) is list and all(type(p) is list and len(p) == 2 and type(p[0]) is str for p in body), "a dict")
        return {k: _tree(v, arrays, make_handle, state, depth + 1) for k, v in body}
    if tag == "c":
        _need(type(body) is list and len(body) == 2 and all(type(x) in (int, float) for x in body), "a complex")
        return complex(body[0], body[1])
    if tag in ("a", "n"):
        _need(type(body) is int and 0 <= body < len(arrays) and body not in state["used"], "an array reference")
        state["used"].add(body)
        A = arrays[body]
        if tag == "n":
            _need(A.ndim == 0, "a scalar that is not 0-d")
            return A[()]
        return A
    if tag == "k":
        _need(type(body) is list and len(body) == 4 and type(body[0]) is str and type(body[1]) is str
              and type(body[2]) is list and type(body[3]) is str, "a non-numeric array")
        kind, dt, shape, example = body
        _need(all(type(s) is int and 0 <= s for s in shape) and len(shape) <= 32, "a non-numeric array's shape")
        size = int(np.prod(shape, dtype=object)) if shape else 1
        if kind in "USMm" and re.fullmatch(r"[<>|=]?[USMm]\d{0,6}(\[\w{1,4}\])?", dt) and size <= 1 << 16:
            return np.zeros(shape, np.dtype(dt))
        out = np.empty(shape if size <= 1 << 16 else (1,), object)
        if out.size and example:
            _need(bool(_NAME.match(example)), "an element type name")
            out.fill(_opaque(example)())
        return out
    if tag == "u":
        _need(type(body) is list and len(body) == 2 and all(type(x) is str for x in body)
              and _NAME.match(body[0]) is not None, "an unconvertible array-like")
        return _unconvertible(body[0], body[1][:300])
    if tag == "h":
        _need(type(body) is list and len(body) == 4 and type(body[0]) is int and type(body[1]) is str
              and type(body[2]) is bool and _NAME.match(body[1]) is not None and type(body[3]) is dict
              and len(body[3]) <= len(PREFETCH) and all(k in PREFETCH and type(v) is int for k, v in body[3].items()),
              "a handle")
        proxy = make_handle(body[0], body[1], body[2])
        for name, hid in body[3].items():
            method = make_handle(hid, "method", True)
            if type(proxy) is Remote and type(method) is Remote:
                proxy._rf_attrs[name] = method
        return proxy
    raise ProtocolError(f"a value tagged {tag[:10]!r}")


def _unconvertible(name: str, message: str) -> Any:
    def __array__(self: Any, *a: Any, **k: Any) -> Any:
        raise TypeError(message)
    return type(name, (_Opaque,), {"__module__": "plugin", "__array__": __array__})()


def _record(rec: Any) -> dict[str, Any]:
    _need(type(rec) is dict and {"type", "mro", "message"} <= set(rec)
          and set(rec) <= {"type", "mro", "message", "errno", "code", "rfverify", "parts", "refusal"}, "an error record")
    ref = rec.get("refusal")
    _need(ref is None or (type(ref) is list and len(ref) == 3 and all(type(p) is str for p in ref)), "a refusal")
    _need(type(rec["type"]) is str and _NAME.match(rec["type"]) is not None, "an error type name")
    _need(type(rec["mro"]) is list and len(rec["mro"]) <= 30 and all(type(m) is str for m in rec["mro"]), "a type's bases")
    _need(type(rec["message"]) is str and len(rec["message"]) <= 20_000, "an error message")
    _need(type(rec.get("errno", 0)) is int, "an errno")
    _need(rec.get("code") is None or type(rec["code"]) in (int, bool, str), "an exit code")
    _need(rec.get("rfverify") in (None, "PluginError", "UsageError"), "an rfverify error")
    parts = rec.get("parts")
    _need(parts is None or (type(parts) is list and len(parts) == 3 and all(type(p) is str for p in parts)), "parts")
    return rec


# ----------------------------------------------------------------------------------------------------------------
# the plug-in's exceptions, raised in the harness as stand-ins
# ----------------------------------------------------------------------------------------------------------------
_BASES: dict[str, type[BaseException]] = {c.__name__: c for c in (
    ValueError, TypeError, NotImplementedError, AttributeError, KeyError, IndexError, LookupError, ArithmeticError,
    ZeroDivisionError, OverflowError, FloatingPointError, MemoryError, RecursionError, RuntimeError, OSError,
    ImportError, AssertionError, StopIteration, Exception, SystemExit, GeneratorExit, BaseException)}
_STANDINS: dict[tuple[str, type], type] = {}


class RemotePluginError(PluginError):
    """A :class:`~rfverify.errors.PluginError` the plug-in's process reported for the harness (a time limit, a
    print, a changed random state, its own death): passed on as it is by :func:`rfverify.containment.guard.call`."""

    _rf_passthrough = True


class _Code:
    def __init__(self, text: str) -> None:
        self.text = text

    def __repr__(self) -> str:
        return self.text


def raise_record(rec: dict[str, Any], checked: bool = True) -> None:
    """Raise what the error record ``rec`` describes: rfverify's own error, or a stand-in of the plug-in's
    (``checked=False``: a record that came inside a value, validated here first)."""
    from rfverify.text import clean, strip_paths

    if not checked:
        try:
            rec = _record(rec)
        except ProtocolError as bad:
            raise PluginError("plug-in", f"its process sent an error record that does not fit rfverify's protocol "
                              f"({bad})", "a plug-in must not write to rfverify's channel") from None

    msg = strip_paths(clean(rec["message"], 20_000))
    if rec.get("rfverify") == "UsageError":
        raise UsageError(msg)
    if rec.get("rfverify") == "PluginError":
        impl, problem, hint = rec.get("parts") or ["plug-in", msg, ""]
        err = RemotePluginError(impl, problem, hint)
        if rec.get("refusal"):
            from rfverify.refusals import Refusal

            err.refusal = Refusal(*(clean(p, 300, one_line=True) for p in rec["refusal"]))
        raise err
    base: type[BaseException] = BaseException
    for name in rec["mro"]:
        if name in _BASES:
            base = _BASES[name]
            break
    if base is BaseException and "KeyboardInterrupt" in rec["mro"]:
        base = KeyboardInterrupt
    key = (rec["type"], base)
    if key not in _STANDINS:
        attrs: dict[str, Any] = {"__module__": "plugin", "_rf_remote": True}
        if base is KeyboardInterrupt:  # never the harness's Ctrl-C: a plain BaseException that says what it was
            attrs["_rf_keyboard"] = True
            base = BaseException
        _STANDINS[key] = type(rec["type"], (base,), attrs)
    cls: Any = _STANDINS[key]
    if issubclass(cls, SystemExit):
        code = rec.get("code")
        raise cls(_Code(code) if isinstance(code, str) else code)
    exc = cls(clean(rec["message"], 300, one_line=True) if rec["message"] else None) if rec["message"] else cls()
    if issubclass(cls, OSError) and "errno" in rec:
        exc.errno = rec["errno"]
    raise exc


# ----------------------------------------------------------------------------------------------------------------
# the proxy
# ----------------------------------------------------------------------------------------------------------------
def is_remote(obj: Any) -> bool:
    return type(obj) is Remote


class Remote:
    """An object of the plug-in's, held in its process; attribute reads and calls are operations there.

    Dunder names are never forwarded (numpy's and Python's protocols see a plain object), so a Remote that is
    not data stays what it is: :func:`rfverify.containment.guard.as_array` refuses it as it refuses any non-array.
    """

    __slots__ = ("_rf_host", "_rf_gen", "_rf_id", "_rf_type", "_rf_attrs", "_rf_count", "__weakref__")
    _rf_remote = True

    def __init__(self, host: Any, gen: int | None, hid: int, type_name: str) -> None:
        object.__setattr__(self, "_rf_host", host)
        object.__setattr__(self, "_rf_gen", gen)
        object.__setattr__(self, "_rf_id", hid)
        object.__setattr__(self, "_rf_type", type_name)
        object.__setattr__(self, "_rf_attrs", {})
        object.__setattr__(self, "_rf_count", 0)

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__") and name.endswith("__"):
            raise AttributeError(name)
        attrs = self._rf_attrs
        if name in attrs:
            return attrs[name]
        value = self._rf_host.op("getattr", self, name)
        if type(value) is Remote and value._rf_attrs.get("__cacheable__"):
            attrs[name] = value
        return value

    def __setattr__(self, name: str, value: Any) -> None:
        self._rf_attrs.clear()
        self._rf_host.op("setattr", self, name, value)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self._rf_host.op("call", self, args, kwargs)

    def __repr__(self) -> str:
        try:
            text = self._rf_host.op("repr", self)
        except Exception:  # noqa: BLE001 - a repr never fails
            text = None
        return text if type(text) is str else f"<{self._rf_type} object>"

    def __del__(self) -> None:
        try:
            self._rf_host.release(self)
        except Exception:  # noqa: BLE001 - at exit, the host may be gone
            pass


def proxy_table() -> "weakref.WeakValueDictionary[Any, Remote]":
    return weakref.WeakValueDictionary()
