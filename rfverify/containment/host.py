"""The plug-in's process: a supervised child that holds every plug-in object and runs the calls the harness asks for.

The checks run in the harness, with its own numpy and scipy; the plug-in runs in a child forked from it
(:class:`Host`, a :class:`rfverify.containment.supervise.Supervisor` that serves operations instead of whole checks).  A plug-in
named ``MODULE:ATTR`` is imported in the child only — the harness never imports it; a live object (the Python API,
the pytest plugin) is inherited by the child through ``fork`` and every call into it is made there.

The child keeps a table of handles (the root object, what calls return that is not data) and answers one
operation at a time — read an attribute, set one, call, ``repr``, run one of rfverify's own introspection
functions on its objects (form detection, signatures, ``get_params``) — with data only (:mod:`rfverify.containment.remote`):
numbers, strings, numeric arrays of declared dtype and shape, handles, error records.  The harness holds
:class:`rfverify.containment.remote.Remote` proxies and validates every reply; one that does not fit is the plug-in's error and
ends the child.

A check (or the preflight, the metrics) is one **scope**: :meth:`Host.begin` enters the guard in the child
(:class:`rfverify.containment.guard.guarded`: the time limit counted over the scope's calls, the memory budget, no printing, no
global random state), :meth:`Host.end` leaves it and reports what the scope did wrong (printing, bytes on file
descriptor 1, a changed random state, a monkey-patched numpy).  Between two operations the harness computes; the
in-child timer only counts while the plug-in runs.  A death, a hang past the limit and its grace, a signal to the
harness or an unreadable reply ends the scope: every later operation of it raises the same
:class:`~rfverify.containment.remote.RemotePluginError`, and the next scope gets a fresh child (the root re-resolved there).
"""

from __future__ import annotations

import io
import mmap
import os
import pickle
import select
import signal
import weakref
from typing import Any, Callable

import numpy as np

from rfverify.containment import guard, remote, sentinel, supervise
from rfverify.errors import PluginError
from rfverify.containment.guard import Limits
from rfverify.containment.remote import ProtocolError, Remote, RemotePluginError

__all__ = ["Host", "dead_error"]

_TOO_LARGE = b"\0too large"
#: Bytes of the memory map the child writes its replies' arrays into (larger replies go through the channel).
_SHARED_BYTES = 32 << 20
_LIVE: "weakref.WeakSet[Host]" = weakref.WeakSet()


def dead_error(message: str) -> RemotePluginError:
    """A :class:`RemotePluginError` whose text is ``message`` exactly (already a formatted PluginError)."""
    exc = RemotePluginError.__new__(RemotePluginError)
    Exception.__init__(exc, message)
    exc.implementation, exc.problem, exc.hint = "", message, ""
    return exc


class _Pickler(pickle.Pickler):
    """The harness's requests: a proxy goes as its handle; an array as its bytes, layout (C, F or strided) and slot,
    so that the same array handed over again is the same object in the plug-in's process, refilled in place (as
    one process would see a buffer the harness reuses)."""

    def __init__(self, fh: Any, host: "Host") -> None:
        super().__init__(fh, protocol=pickle.HIGHEST_PROTOCOL)
        self.host = host

    def reducer_override(self, obj: Any) -> Any:
        if type(obj) is Remote:
            if obj._rf_host is not self.host or (obj._rf_gen is not None and obj._rf_gen != self.host._gen):
                raise PluginError(self.host.plugin, "an object the plug-in returned before its process was replaced "
                                  "was used again", "a plug-in whose process died or was ended cannot be used "
                                  "further in that check")
            return _load_handle, (obj._rf_id,)
        if type(obj) is np.ndarray and obj.dtype.kind in "biufc" and obj.ndim:
            order = "C" if obj.flags.c_contiguous else "F" if obj.flags.f_contiguous else "S"
            slot = self.host._slot_of(obj)
            if self.host._unchanged(slot, obj, order):  # sent before, the same values: refilled from its copy there
                return _same_array, (slot,)
            strides = obj.strides if order == "S" and all(st > 0 for st in obj.strides) else None
            data = obj.tobytes(order="F" if order == "F" else "C")
            return _load_array, (slot, data, obj.dtype.str, obj.shape, order, strides)
        return NotImplemented


class Host(supervise.Supervisor):
    """The plug-in's objects in a supervised child process, served by operation.

    ``root``: ``("spec", "MODULE:ATTR")`` (imported in the child with ``load``) or ``("object", obj)`` (inherited
    by fork); ``convert``: the one function that makes a plug-in's array-like a numpy array
    (:func:`rfverify.adapters.to_numpy`); ``limits``: of the operations made outside a scope (form detection), and,
    once :meth:`set_limits` is called, of each scope.
    """

    def __init__(self, plugin: str, root: tuple[str, Any], load: Callable[[str], Any],
                 convert: Callable[[Any], Any], limits: Limits | None = None) -> None:
        super().__init__(None, limits or Limits(), plugin, (None, None, None))
        self.root, self.load, self.convert = root, load, convert
        self._gen = 0
        self._proxies: "weakref.WeakValueDictionary[tuple[int, int], Remote]" = weakref.WeakValueDictionary()
        self._released: list[tuple[int, int]] = []
        self._slots: dict[int, tuple[Any, int]] = {}  # id(array) -> (weak reference, slot) of arrays sent
        self._pristine: dict[int, tuple[np.ndarray, str]] = {}  # slot -> a copy of what was sent, its layout
        self._by_slot: dict[int, Any] = {}  # slot -> weak reference to the array sent from it
        self._memo: dict[int, tuple[Any, int]] = {}  # id(obj) -> (reference, token) of what run_kept sent
        self._mirrors: "weakref.WeakValueDictionary[int, Any]" = weakref.WeakValueDictionary()
        self._shared: Any = None
        self._scope: str | None = None
        self._scope_clock: Any = None
        self._dead: str | None = None
        #: The last scope ended by the child's death by itself (a crash, an exit), not by a limit or a signal.
        self.scope_crashed = False
        _LIVE.add(self)

    # -- the harness's side ---------------------------------------------------------------------------------
    def root_proxy(self) -> Remote:
        """The plug-in's root object (handle 0: valid in every child this host starts)."""
        return Remote(self, None, 0, "plugin")

    def local_root(self) -> Any:
        """The root object in this process (in-process runs: imports ``MODULE:ATTR`` here)."""
        kind, value = self.root
        return self.load(value) if kind == "spec" else value

    def set_limits(self, limits: Limits) -> None:
        self.limits = limits

    def run_kept(self, fn: Callable[..., Any], state: Any, *args: Any) -> Any:
        """``fn(state, *args)`` in the child (as :meth:`run`), with ``fn`` and ``state`` sent once per child and kept
        there while ``state`` lives here (an adapter's description: an operation repeated thousands of times
        carries only its arguments)."""
        return self.op("kept", None, *self._kept(fn), *self._kept(state), args)

    def _kept(self, obj: Any) -> tuple[int, Any]:
        """(token, ``obj``) the first time ``obj`` goes to this child, (token, None) after."""
        entry = self._memo.get(id(obj))
        if entry is not None and entry[0]() is obj:
            return entry[1], None
        token = self._next_slot = getattr(self, "_next_slot", 0) + 1
        gen = self._gen

        def gone(_ref: Any, key: int = id(obj), token: int = token) -> None:
            if self._memo.get(key, (None, None))[1] == token:
                del self._memo[key]
            if self._gen == gen:
                self._released.append((token, -1))

        ref: Any
        try:
            ref = weakref.ref(obj, gone)
        except TypeError:  # a function or a type without weak references: kept for the child's life
            ref = _Strong(obj)
        self._memo[id(obj)] = (ref, token)
        return token, obj

    def _unchanged(self, slot: int, arr: np.ndarray, order: str) -> bool:
        """Whether ``arr`` (in ``slot``) holds what was last sent from it, in the same layout; records it otherwise
        (small arrays only: a comparison is cheaper than the pipe)."""
        if arr.nbytes > _KEEP_BYTES:
            return False
        prev = self._pristine.get(slot)
        if prev is not None and prev[1] == order and prev[0].shape == arr.shape and prev[0].dtype == arr.dtype \
                and prev[0].strides == arr.strides and np.array_equal(prev[0], arr):
            return True
        self._pristine[slot] = (arr.copy(order="K"), order)
        return False

    def run(self, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        """``fn(*args, **kwargs)`` in the child, on the real objects behind the proxies among ``args``: one of
        rfverify's own functions (pickled by reference) that reads plug-in objects; its result comes back as data."""
        return self.op("run", None, fn, args, kwargs)

    def op(self, kind: str, target: Any, *args: Any) -> Any:
        """One operation in the child: its value, or what the plug-in raised (a stand-in), or the scope's end."""
        if self._dead is not None:
            raise dead_error(self._dead)
        what = self._scope or (f"importing {self.root[1]} (and detecting its form)" if self.root[0] == "spec"
                               else "form detection")
        if self._proc is None:
            self._start()
        released, self._released = self._released, []
        buf = io.BytesIO()
        try:
            _Pickler(buf, self).dump((kind, released, guard._last_call(), target, *args))
        except BaseException:
            self._pristine.clear()  # what this request would have sent never arrived: the next ones send it all
            self._released = released + self._released
            raise
        self._gate.open()
        self._outstanding += 1
        try:
            self._conn.send_bytes(buf.getbuffer())
        except (OSError, ValueError):
            pass  # a child that died between operations: reported by the wait
        try:
            raw = self._wait(what, self._scope_clock, end_descendants=self._scope is None)
        except supervise._Died as exc:
            self._fail(str(exc), exc.crashed)
            raise dead_error(str(exc)) from None
        gen = self._gen
        try:
            (tag, body), meta = remote.decode(raw if raw != _TOO_LARGE else b"", lambda h, t, c: self._handle(gen, h, t, c),
                                              extra=("w",), mirrors=self._mirrors, shared=self._shared)
            if meta["w"] is not None and tag == "v":
                body = self._write_back(body)
        except ProtocolError as exc:
            self._end(signal.SIGKILL)
            self._discard()
            message = self._message(f"{what}: the plug-in's process sent a reply that does not fit rfverify's protocol "
                                    f"({exc})", "a plug-in must not write to rfverify's channel; its process is ended")
            self._fail(message, False)
            raise dead_error(message) from None
        if tag == "e":
            if body.get("rfverify") == "PluginError" and self._scope is not None and body.get("parts") \
                    and "did not finish within the time limit" in body["parts"][1]:
                self._dead = str(PluginError(*body["parts"]))  # the in-child timer ended the scope
            remote.raise_record(body)
        return body

    def _fail(self, message: str, crashed: bool) -> None:
        if self._scope is not None:
            self._dead = message
            self.scope_crashed = crashed

    def _handle(self, gen: int, hid: int, type_name: str, cacheable: bool) -> Remote:
        key = (gen, hid)
        proxy = self._proxies.get(key) if hid else None
        if hid == 0:
            proxy = self.root_proxy()
        elif proxy is None:
            proxy = Remote(self, gen, hid, type_name)
            self._proxies[key] = proxy
        object.__setattr__(proxy, "_rf_count", proxy._rf_count + 1)
        if cacheable:
            proxy._rf_attrs["__cacheable__"] = True
        return proxy

    def _write_back(self, body: Any) -> Any:
        """The value of a reply that also says which inputs the plug-in wrote into: their new values written into
        the harness's arrays (where they are writable and still alive), as one process would see them."""
        if not (type(body) is tuple and len(body) == 2 and type(body[1]) is list):
            raise ProtocolError("a reply with written inputs that is not (value, [[slot, array], ...])")
        value, writes = body
        for item in writes:
            if not (type(item) is list and len(item) == 2 and type(item[0]) is int and type(item[1]) is np.ndarray):
                raise ProtocolError("a written input that is not [slot, array]")
            slot, new = item
            ref = self._by_slot.get(slot)
            arr = ref() if ref is not None else None
            if arr is None or arr.shape != new.shape or arr.dtype != new.dtype or not arr.flags.writeable:
                continue
            np.copyto(arr, new)
            if slot in self._pristine:
                self._pristine[slot] = (arr.copy(order="K"), self._pristine[slot][1])
        return value

    def _slot_of(self, arr: Any) -> int:
        entry = self._slots.get(id(arr))
        if entry is not None and entry[0]() is arr:
            return entry[1]
        slot = self._next_slot = getattr(self, "_next_slot", 0) + 1
        gen = self._gen

        def gone(_ref: Any, key: int = id(arr), slot: int = slot) -> None:
            if self._slots.get(key, (None, None))[1] == slot:
                del self._slots[key]
            self._pristine.pop(slot, None)
            self._by_slot.pop(slot, None)
            if self._gen == gen:
                self._released.append((-slot, 0))

        self._slots[id(arr)] = (weakref.ref(arr, gone), slot)
        self._by_slot[slot] = self._slots[id(arr)][0]
        return slot

    def release(self, proxy: Remote) -> None:
        if proxy._rf_gen == self._gen and proxy._rf_id and self._proc is not None:
            self._released.append((proxy._rf_id, proxy._rf_count))

    def begin(self, what: str) -> None:
        """Start a scope (a check, the preflight, the metrics) under the guard in the child."""
        self._scope, self._dead, self.scope_crashed = what, None, False
        if self._proc is None:
            self._start()
        self._gate.open()
        self._outstanding += 1  # the signal gate stays open for the whole scope
        self._scope_clock = self._clock()
        try:
            self.op("begin", None, what, self.limits, self.plugin)
        except RemotePluginError:
            pass  # the scope is dead: its operations raise, end() reports it

    def end(self) -> str | None:
        """End the scope: the problem the child found (printing, fd 1, random state, numpy patched) or its death."""
        problem = self._dead
        if problem is None and self._proc is not None:
            try:
                state = self.op("end", None)
                problem = self._judge_end(state)
            except RemotePluginError as exc:
                problem = str(exc)
            except Exception as exc:  # noqa: BLE001 - a stand-in: the guard's own exit cannot raise the plug-in's
                problem = str(guard.plugin_error(exc, self.plugin, f"{self._scope} (ending the scope)"))
        try:
            if self._proc is not None:
                self._seen.update(sentinel.end_descendants(self._proc.pid))
            self._outstanding = max(0, self._outstanding - 1)
            if not self._outstanding:
                self._take_signals(self._gate.close(), self._scope or "the scope")
            self._signalled(self._scope or "the scope")
        except supervise._Died as exc:
            self._discard()
            problem = problem or str(exc)
        self._scope, self._scope_clock, self._dead = None, None, None
        return problem

    def _judge_end(self, state: Any) -> str | None:
        if type(state) is not dict or set(state) != {"problem", "written", "first", "retire"} \
                or not (state["problem"] is None or type(state["problem"]) is str) \
                or type(state["written"]) is not int or type(state["first"]) is not str \
                or type(state["retire"]) is not bool:
            self._discard()
            return self._message(f"{self._scope}: the plug-in's process ended the scope with a reply that does not "
                                 "fit rfverify's protocol", "a plug-in must not write to rfverify's channel")
        if state["retire"]:
            self._discard()
        if state["problem"] is not None:
            from rfverify.text import clean

            return clean(state["problem"], 4000, one_line=True)
        if state["written"] > 0:
            line = (state["first"].strip().splitlines() or [""])[0]
            return str(PluginError(self.plugin, f"wrote {state['written']} byte(s) straight to file descriptor 1 "
                                   f"(stdout) during {self._scope}: {line!r} (last call into the plug-in: "
                                   f"{self._last_call()})", "a plug-in must not print (it would corrupt --json - "
                                   "output); C code too: use the logging or warnings modules"))
        return None

    def __del__(self) -> None:  # a configuration dropped without a run: its process and watchdog end with it
        try:
            if self._proc is not None or self._watchdog.pid is not None:
                self.close()
        except Exception:  # noqa: BLE001 - at exit, best effort
            pass

    # -- the child's life ---------------------------------------------------------------------------------------
    def _start(self) -> None:
        # the replies' arrays, written there by the child and copied out here (a new map for each child: nothing a
        # previous one left running can write into this one's)
        self._shared = mmap.mmap(-1, _SHARED_BYTES)
        super()._start()
        self._gen += 1
        self._released = []
        self._slots.clear()
        self._pristine.clear()
        self._by_slot.clear()
        self._memo.clear()
        self._mirrors = weakref.WeakValueDictionary()

    def _child_target(self, child_conn: Any) -> tuple[Any, tuple[Any, ...]]:
        return _host_main, (child_conn, self, self._page, self._out.fileno(), os.getpid())

    def _poll(self, conn: Any, timeout: float) -> bool:
        """Whether a reply is ready within ``timeout`` (one poll object per channel: thousands of operations)."""
        poller = self.__dict__.get("_poller")
        if poller is None or poller[0] is not conn:
            poller = (conn, select.poll())
            poller[1].register(conn.fileno(), select.POLLIN | select.POLLHUP | select.POLLERR)
            self.__dict__["_poller"] = poller
        return bool(poller[1].poll(max(0, int(timeout * 1000))))

    def _read(self, conn: Any) -> Any:
        try:
            return conn.recv_bytes(remote.MAX_REPLY)
        except OSError as exc:
            if "bad message length" in str(exc):
                return _TOO_LARGE
            raise

# ----------------------------------------------------------------------------------------------------------------
# the child
# ----------------------------------------------------------------------------------------------------------------
class _Table:
    """The child's objects by handle; handle 0 is the root, resolved on first use."""

    def __init__(self, host: Host) -> None:
        self.host = host
        self.objs: dict[int, Any] = {}
        self.ids: dict[int, int] = {}
        self.counts: dict[int, int] = {}
        self.next = 1
        self._root: list[Any] = []
        self._roots: dict[int, tuple[Any, int]] = {}

    def root_key(self, buf: Any) -> int:
        """A key for the array buffer ``buf`` (the same while it lives)."""
        entry = self._roots.get(id(buf))
        if entry is not None and entry[0]() is buf:
            return entry[1]
        key, self.next = self.next, self.next + 1
        if len(self._roots) > 4096:  # forget the buffers that are gone
            self._roots = {k: v for k, v in self._roots.items() if v[0]() is not None}
        try:
            self._roots[id(buf)] = (weakref.ref(buf), key)
        except TypeError:
            pass
        return key

    def root(self) -> Any:
        if not self._root:
            obj = self.host.local_root()
            self._root.append(obj)
            self.ids[id(obj)] = 0
        return self._root[0]

    def new(self, obj: Any) -> bool:
        return id(obj) not in self.ids

    def get(self, hid: int) -> Any:
        return self.root() if hid == 0 else self.objs[hid]

    def add(self, obj: Any) -> int:
        hid = self.ids.get(id(obj))
        if hid == 0:
            return 0
        if hid is None:
            hid, self.next = self.next, self.next + 1
            self.objs[hid], self.ids[id(obj)], self.counts[hid] = obj, hid, 0
        self.counts[hid] += 1
        return hid

    def release(self, pairs: Any) -> None:
        for hid, n in pairs:
            if hid < 0:
                _SLOTS.pop(-hid, None)
                _PRISTINE.pop(-hid, None)
                continue
            if n == -1:  # a kept function or state (Host.run_kept)
                _KEPT.pop(hid, None)
                continue
            left = self.counts.get(hid, 0) - n
            if left > 0:
                self.counts[hid] = left
            elif hid in self.objs:
                obj = self.objs.pop(hid)
                self.ids.pop(id(obj), None)
                self.counts.pop(hid, None)


#: The child's handle table and the arrays the harness sent, by slot (set in the child).
_TABLE: list[_Table] = []
_SLOTS: dict[int, Any] = {}
#: Copies of the small arrays as the harness sent them (refilled from here when sent unchanged), by slot; the
#: functions and states of Host.run_kept, by token.
_PRISTINE: dict[int, Any] = {}
_KEPT: dict[int, Any] = {}
#: The arrays the current request brought (slot, array), for :func:`_written`.
_LOADED: list[tuple[int, Any]] = []
#: Largest array (bytes) compared with what was sent before instead of sent again.
_KEEP_BYTES = 1 << 20


class _Strong:
    """A reference that holds its object (for what cannot be weakly referenced)."""

    def __init__(self, obj: Any) -> None:
        self.obj = obj

    def __call__(self) -> Any:
        return self.obj


def _load_handle(hid: int) -> Any:  # pragma: no cover - child
    return _TABLE[0].get(hid)


def _load_array(slot: int, data: bytes, dtype: str, shape: tuple[int, ...], order: str,
                strides: tuple[int, ...] | None) -> Any:  # pragma: no cover - child
    """The array the harness sent: the same object as last time for the same slot (refilled in place), else a new
    one in the layout it had (C, F, or strided over a larger buffer)."""
    fresh = np.frombuffer(data, np.dtype(dtype)).reshape(shape, order="F" if order == "F" else "C")
    if fresh.nbytes <= _KEEP_BYTES:
        _PRISTINE[slot] = fresh
    prev = _SLOTS.get(slot)
    if prev is not None and prev.shape == fresh.shape and prev.dtype == fresh.dtype and prev.flags.writeable:
        np.copyto(prev, fresh)
        _LOADED.append((slot, prev))
        return prev
    if strides is not None:
        extent = sum((n - 1) * st for n, st in zip(shape, strides)) + fresh.dtype.itemsize
        buf = np.empty(extent, np.uint8)
        arr = np.ndarray(shape, fresh.dtype, buffer=buf, strides=strides)
        arr[...] = fresh
    else:
        arr = np.array(fresh, order="F" if order == "F" else "C")
    _SLOTS[slot] = arr
    _LOADED.append((slot, arr))
    return arr


def _written() -> list[Any]:  # pragma: no cover - child
    """The small arrays of this request the plug-in wrote into, as [slot, values] (their copies here updated): the
    harness writes the same values into its own arrays, as one process would have them."""
    out = []
    for slot, arr in _LOADED:
        prev = _PRISTINE.get(slot)
        if prev is not None and prev.shape == arr.shape and prev.dtype == arr.dtype \
                and prev.tobytes() != arr.tobytes():
            now = np.array(arr, order="C")
            _PRISTINE[slot] = now
            out.append([slot, now])
    return out


def _same_array(slot: int) -> Any:  # pragma: no cover - child
    """The array of ``slot`` again, refilled with what the harness last sent (whatever the plug-in did to it)."""
    fresh = _PRISTINE[slot]
    prev = _SLOTS.get(slot)
    if prev is not None and prev.shape == fresh.shape and prev.dtype == fresh.dtype and prev.flags.writeable:
        np.copyto(prev, fresh)
        _LOADED.append((slot, prev))
        return prev
    arr = np.array(fresh, order="K")
    _SLOTS[slot] = arr
    _LOADED.append((slot, arr))
    return arr


def _host_main(conn: Any, host: Host, page: Any, out_fd: int, harness: int) -> None:  # pragma: no cover - child
    code = 0
    try:
        supervise._child_setup(out_fd, harness)
        try:  # the harness's end of the channel, inherited by fork: nothing in this process may write on it
            host._parent_end.close()
        except (OSError, AttributeError):
            pass
        guard.supervise_child(page, supervise._FORK_AT, os.getpid())
        _serve(conn, host)
    except BaseException:  # noqa: BLE001 - nothing of the child may run the harness's code
        code = 70
    finally:
        os._exit(code)


def _serve(conn: Any, host: Host) -> None:  # pragma: no cover - child
    table = _Table(host)
    _TABLE[:] = [table]
    scope: guard.guarded | None = None
    dead: bytes | None = None
    before: dict[str, Any] = {}
    out_start = 0
    while True:
        try:
            raw = conn.recv_bytes()
        except (EOFError, OSError):
            return
        _LOADED.clear()
        try:
            msg = pickle.loads(raw)  # resolving the root imports the plug-in: its errors
        except BaseException as exc:  # noqa: BLE001 - are data too
            conn.send_bytes(remote.encode_error(exc))
            continue
        if msg[0] == "close":
            return
        op, released, action, target = msg[:4]
        table.release(released)
        try:
            if op == "begin":
                what, limits, host.plugin = msg[4], msg[5], msg[6]
                dead, guard.EXHAUSTED[:] = None, []
                before, out_start = supervise._namespaces(), supervise._fd1_size()
                scope = guard.guarded(host.plugin, what, limits)
                scope.paused = True
                scope.__enter__()
                reply = remote.encode(None, table, host.convert)
            elif op == "end":
                reply = remote.encode(_end_scope(scope, before, out_start, dead), table, host.convert)
                scope, dead = None, None
            elif dead is not None:
                reply = dead
            else:
                reply = _run_op(op, target, msg[4:], action, scope, table, host)
        except guard.TimeLimitExceeded as exc:
            reply = _timed_out(scope, exc)
            dead, scope = reply, None
        except BaseException as exc:  # noqa: BLE001 - the plug-in's exception is data
            if guard.SHOW_TRACEBACKS and op not in ("begin", "end"):  # --debug: the plug-in's own traceback, here
                guard._show_traceback(exc, host.plugin, action)
            try:
                reply = remote.encode_error(exc)
            except BaseException:  # noqa: BLE001
                reply = remote.encode_error(RuntimeError("an exception that could not be read"))
        try:
            sys_flush()
            conn.send_bytes(reply)
        except guard.TimeLimitExceeded:
            conn.send_bytes(reply)


def sys_flush() -> None:  # pragma: no cover - child
    import sys

    try:
        sys.stdout.flush()
    except (OSError, ValueError, AttributeError):
        pass


def _timed_out(scope: Any, exc: BaseException) -> bytes:  # pragma: no cover - child
    try:
        if scope is not None:
            scope.__exit__(type(exc), exc, None)
        raise PluginError("plug-in", "the time limit", "")
    except PluginError as err:
        return remote.encode_error(err)


def _run_op(op: str, target: Any, args: tuple[Any, ...], action: str, scope: Any, table: _Table,
            host: Host) -> bytes:  # pragma: no cover - child
    guard._LAST.action = action
    if guard._SHARED is not None:
        guard._note_call(action)
    if scope is not None:
        scope.paused = False
    try:
        if op == "getattr":
            value = getattr(target, args[0])
        elif op == "setattr":
            setattr(target, args[0], args[1])
            value = None
        elif op == "call":
            value = target(*args[0], **args[1])
        elif op == "repr":
            from rfverify.text import clean, plain

            value = clean(plain(target, "__repr__"), 2000, one_line=True)
        elif op == "run":
            fn, fargs, fkw = args
            value = fn(*fargs, **fkw)
        elif op == "kept":
            ftok, fn, stok, state, fargs = args
            if fn is not None:
                _KEPT[ftok] = fn
            if state is not None:
                _KEPT[stok] = state
            value = _KEPT[ftok](_KEPT[stok], *fargs)
        else:
            raise ValueError(f"unknown operation {op!r}")
    finally:
        if scope is not None:
            scope.paused = True
        if guard._SHARED is not None:
            guard._check_not_forked(action)
    written = _written() if _LOADED else []
    if written:  # the value and what the plug-in wrote into the harness's inputs
        return remote.encode((value, written), table, host.convert, extra={"w": 1}, shared=host._shared)
    return remote.encode(value, table, host.convert, shared=host._shared)


def _end_scope(scope: Any, before: dict[str, Any], out_start: int, dead: bytes | None) -> dict[str, Any]:
    """What the scope did wrong, as data (pragma: child)."""
    problem: str | None = None
    if scope is not None:
        try:
            scope.__exit__(None, None, None)
        except PluginError as exc:
            from rfverify.text import plain

            problem = plain(exc)
    written = supervise._fd1_size() - out_start
    first = supervise._fd1_read(out_start).decode("utf-8", "replace") if written > 0 else ""
    patched = supervise._replaced(before) if before else []
    if patched and problem is None:
        problem = str(PluginError(host_name(scope), f"replaced {', '.join(patched[:5])}"
                                  f"{' ...' if len(patched) > 5 else ''} during {getattr(scope, 'what', 'the scope')} "
                                  f"(last call into the plug-in: {guard._last_call()})",
                                  "a plug-in must not monkey-patch numpy, math or builtins; this child process is "
                                  "discarded"))
    return {"problem": problem, "written": max(0, written), "first": first[:200], "retire": bool(patched or guard.EXHAUSTED)}


def host_name(scope: Any) -> str:
    return getattr(scope, "plugin", "plug-in")


@__import__("atexit").register
def _close_all() -> None:
    for host in list(_LIVE):
        try:
            host.close()
        except Exception:  # noqa: BLE001 - at exit, best effort
            pass
