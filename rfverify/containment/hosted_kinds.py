"""The plug-ins of the sampler, rule, transform and kernel kinds in their own process, judged here.

As for feature maps (:mod:`rfverify.containment.host`, :mod:`rfverify.containment.remote`): with the judge on
(:func:`rfverify.containment.supervise.judge_wanted`), a plug-in named ``MODULE:ATTR`` is imported in a supervised child only,
a live object is inherited by it through ``fork``; its form is detected there (:func:`detect`, plain data back); every
call into it is one operation there (:meth:`HostedAdapter._remote`) whose value comes back as validated data, and
the kind's adapter judges that value here (shape, dtype, finiteness) before any check computes with it, with this
process's numpy and scipy.

**Random sources in step.**  A sampler or a rule receives an ``rng``; in one process the harness's ``Generator``
advances by what the plug-in drew.  Here its ``bit_generator.state`` goes over as data, the child builds the
generator (and any torch/JAX/CuPy source from it, :func:`rfverify.arrays.to_input`), calls the plug-in and sends the
advanced state back; the state is validated (a dict of str and int, the same bit generator) and set on the
harness's ``Generator``, which then stands exactly where it would in one process.

An adapter that uses this derives from :class:`HostedAdapter`: ``host`` (None in one process or in the plug-in's own
process), ``obj`` the plug-in (a :class:`~rfverify.containment.remote.Remote` of the root when hosted), ``_rebind(obj)`` sets the
fields derived from it.  Its light copy (no host) is what the child runs the in-process code of; a deep copy (the
stateful checks' pristine copy) is a deep copy made in the child; a pickle never carries the host.
"""

from __future__ import annotations

import copy
import itertools
from typing import Callable, Iterable, Iterator

import numpy as np

from rfverify.errors import PluginError
from rfverify.jsontypes import JSONValue
from rfverify.registry import PluginObject

__all__ = ["host_for", "detect", "HostedAdapter", "RngState", "HostGroup", "BATCH_DRAWS", "BATCH_BYTES"]

#: Draws one batch operation makes at most, and the bytes of output it returns at most (the rest is asked again).
BATCH_DRAWS = 256
BATCH_BYTES = 8 << 20


def host_for(label: str, implementation: PluginObject) -> PluginObject:
    """A :class:`rfverify.containment.host.Host` for ``implementation`` (``"MODULE:ATTR"``, imported in the child only, or a live
    object inherited by fork), or None when the judge is off (``RFVERIFY_WHOLE_CHECKS=1``, ``RFVERIFY_INPROCESS=1``,
    no fork)."""
    from rfverify.containment.supervise import judge_wanted

    if not judge_wanted():
        return None
    from rfverify.adapters import BUILD_LIMITS, load_object, to_numpy
    from rfverify.containment.host import Host

    root = ("spec", implementation) if isinstance(implementation, str) else ("object", implementation)
    return Host(label, root, load_object, to_numpy, BUILD_LIMITS)


def detect(host: PluginObject, fn: Callable[..., dict[str, JSONValue]], *args: PluginObject) -> dict[str, JSONValue]:
    """``fn(root, *args)`` (an rfverify function detecting the plug-in's form) in the child: its plain answer,
    validated (a dict of str keys whose values are None, bool, int, str or a tuple of them)."""
    found = host.run(fn, host.root_proxy(), *args)
    plain = (type(None), bool, int, str)
    if type(found) is not dict or not all(type(k) is str and (type(v) in plain or (
            type(v) is tuple and all(type(x) in plain for x in v))) for k, v in found.items()):
        raise PluginError(host.plugin, "its process answered form detection with a reply that does not fit "
                          "rfverify's protocol", "a plug-in must not write to rfverify's channel")
    return found


class RngState:
    """A numpy ``Generator`` sent as its bit generator's state and the seed sequence it was made from (a plug-in may
    read ``rng.bit_generator.seed_seq``), rebuilt in the plug-in's process."""

    def __init__(self, rng: np.random.Generator) -> None:
        self.state = rng.bit_generator.state
        seq = getattr(rng.bit_generator, "seed_seq", None)
        self.seq = (seq.entropy, tuple(seq.spawn_key), seq.pool_size, seq.n_children_spawned) \
            if isinstance(seq, np.random.SeedSequence) else None

    def rebuild(self) -> np.random.Generator:
        cls = getattr(np.random, self.state["bit_generator"])
        if self.seq is not None:
            entropy, key, pool, spawned = self.seq
            bitgen = cls(np.random.SeedSequence(entropy, spawn_key=key, pool_size=pool, n_children_spawned=spawned))
        else:
            bitgen = cls()
        bitgen.state = self.state
        return np.random.Generator(bitgen)


def _plain_state(state: PluginObject, name: str, depth: int = 0) -> bool:
    """A bit generator's state as data: a dict of str keys whose values are int, str or such a dict (two levels)."""
    if type(state) is not dict or depth > 2 or len(state) > 16:
        return False
    if depth == 0 and state.get("bit_generator") != name:
        return False
    return all(type(k) is str and (type(v) is int or (type(v) is str and len(v) < 64)
                                   or _plain_state(v, name, depth + 1)) for k, v in state.items())


class HostedAdapter:
    """What a kind's adapter needs to run its plug-in in the plug-in's process (see the module doc)."""

    host: PluginObject = None
    name: str = "plug-in"
    obj: PluginObject = None
    #: What went in and came out (:class:`rfverify.arrays.ArrayRecord`), for the report.
    arrays: PluginObject = None
    #: The fields :meth:`_rebind` sets from ``obj`` (never copied on their own: a deep copy rebinds them).
    DERIVED: tuple[str, ...] = ("obj",)

    def _rebind(self, obj: PluginObject) -> None:
        """Set ``obj`` and the fields derived from it (an adapter with more overrides it)."""
        self.obj = obj

    def _light(self) -> "HostedAdapter":
        """This adapter without its process, for the plug-in's process (the same object while ``obj`` is)."""
        from rfverify.arrays import ArrayRecord

        cached = self.__dict__.get("_light_of")
        if cached is None or cached[0] is not self.obj:
            light = copy.copy(self)
            light.__dict__.pop("_light_of", None)
            light.host = None
            light.arrays = ArrayRecord(getattr(self, "input", None) or "numpy")
            cached = (self.obj, light)
            self.__dict__["_light_of"] = cached
        return cached[1]

    def _remote(self, op: str, *args: PluginObject) -> PluginObject:
        """``self.<op>(*args)`` run on the light copy in the plug-in's process: its value (data).  A numpy
        ``Generator`` among ``args`` goes as its state and comes back advanced (set on it here); the arrays' record
        gained there is merged into this adapter's."""
        rngs = [a for a in args if isinstance(a, np.random.Generator)]
        sent = tuple(RngState(a) if isinstance(a, np.random.Generator) else a for a in args)
        reply = self.host.run_kept(_in_plugin_process, self._light(), op, *sent)
        if not (type(reply) is tuple and len(reply) == 4 and type(reply[1]) is list and len(reply[1]) == len(rngs)):
            raise PluginError(self.name, "its process answered a call with a reply that does not fit rfverify's "
                              "protocol", "a plug-in must not write to rfverify's channel")
        value, states, ins, outs = reply
        self._advance(rngs, states)
        self._record(ins, outs)
        return value

    def _draws(self, op: str, d: int, rngs: Iterable[np.random.Generator]) -> Iterator[PluginObject]:
        """``self.<op>(d, rng)`` for each of ``rngs`` in order (a generator of the raw outputs): up to
        :data:`BATCH_DRAWS` draws (:data:`BATCH_BYTES` of output) per operation in the plug-in's process, each
        generator's advanced state set back; what a draw raised is raised when its turn comes, after the draws
        before it."""
        from rfverify.containment.remote import raise_record

        rngs = iter(rngs)
        pending: list[np.random.Generator] = []
        while True:
            pending += list(itertools.islice(rngs, BATCH_DRAWS - len(pending)))
            if not pending:
                return
            reply = self.host.run_kept(_in_plugin_batch, self._light(), op, d, [RngState(r) for r in pending])
            if not (type(reply) is tuple and len(reply) == 5 and type(reply[0]) is list and type(reply[1]) is list
                    and len(reply[1]) == len(reply[0]) <= len(pending) and (reply[0] or reply[2] is not None)):
                raise PluginError(self.name, "its process answered a batch of draws with a reply that does not fit "
                                  "rfverify's protocol", "a plug-in must not write to rfverify's channel")
            outs, states, failed, ins, seen = reply
            self._record(ins, seen)
            done, pending = pending[:len(outs)], pending[len(outs):]
            for rng, out, state in zip(done, outs, states):
                self._advance([rng], [state])
                yield out
            if failed is not None:
                raise_record(failed, checked=False)

    def _advance(self, rngs: list[np.random.Generator], states: list[PluginObject]) -> None:
        """Set each generator's state to the one its draw left in the plug-in's process (validated first)."""
        for rng, state in zip(rngs, states):
            name = rng.bit_generator.state["bit_generator"]
            if not _plain_state(state, name):
                raise PluginError(self.name, "its process sent back a random generator state that is not a "
                                  f"{name} state", "a plug-in must not write to rfverify's channel")
            try:
                rng.bit_generator.state = state
            except (TypeError, ValueError, KeyError) as exc:
                raise PluginError(self.name, f"its process sent back an invalid {name} state ({exc})",
                                  "a plug-in must not write to rfverify's channel") from None

    def _record(self, ins: PluginObject, outs: PluginObject) -> None:
        """What the plug-in's process saw go in and come out, merged into this adapter's record."""
        record = getattr(self, "arrays", None)
        for seen, got in ((getattr(record, "inputs", None), ins), (getattr(record, "outputs", None), outs)):
            if seen is not None and type(got) is list:
                seen.update(x for x in got if type(x) is tuple and len(x) == 3 and all(type(p) is str for p in x))

    def in_process(self) -> None:
        """The plug-in in this process from now on (``isolate=False``): its object here, its process ended."""
        if self.host is not None:
            host, self.host = self.host, None
            self._rebind(host.local_root())
            self.__dict__.pop("_light_of", None)
            host.close()

    def __getstate__(self) -> dict[str, JSONValue]:
        state = dict(self.__dict__)
        state.pop("_light_of", None)
        state["host"] = None  # the process stays with the harness; the object goes by its handle (rfverify.containment.host)
        return state

    def __deepcopy__(self, memo: dict[int, PluginObject]) -> "HostedAdapter":
        """A deep copy; when hosted, its plug-in object is a deep copy made in the plug-in's process (a handle to it:
        :func:`copy.deepcopy` of a function is the function, the root's handle)."""
        new = object.__new__(type(self))
        memo[id(self)] = new
        for key, value in self.__dict__.items():
            if key in ("host", "_light_of", *self.DERIVED):
                continue
            new.__dict__[key] = copy.deepcopy(value, memo)
        new.host = self.host
        if self.host is None:
            new._rebind(copy.deepcopy(self.obj, memo))
        else:
            new._rebind(self.host.run(_deep_copied, self.obj))
        return new


def _deep_copied(obj: PluginObject) -> PluginObject:
    """A deep copy of the plug-in's object in its process (what it raises comes back, as in one process)."""
    return copy.deepcopy(obj)


def _in_plugin_batch(plug: HostedAdapter, op: str, d: int, states: list[RngState]) -> tuple[PluginObject, ...]:
    """:meth:`HostedAdapter._draws` where the plug-in lives: (outputs, the generators' advanced states, the first
    draw's error record or None, the record's inputs and outputs gained), stopping at the first error or at
    :data:`BATCH_BYTES`.  Each array is a copy: a plug-in returning one workspace for every draw is read as one
    process reads it, draw by draw."""
    from rfverify.errors import UsageError
    from rfverify.containment.remote import error_record

    record = getattr(plug, "arrays", None)
    had = (set(getattr(record, "inputs", ())), set(getattr(record, "outputs", ())))
    outs: list[PluginObject] = []
    advanced: list[PluginObject] = []
    failed, size = None, 0
    for state in states:
        rng = state.rebuild()
        try:
            out = getattr(plug, op)(d, rng)
        except (PluginError, UsageError) as exc:
            failed = error_record(exc)
            break
        parts = out if type(out) is tuple else (out,)
        parts = tuple(np.array(a) if type(a) is np.ndarray else a for a in parts)
        outs.append(parts if type(out) is tuple else parts[0])
        advanced.append(rng.bit_generator.state)
        size += sum(a.nbytes for a in parts if type(a) is np.ndarray)
        if size >= BATCH_BYTES:
            break
    return (outs, advanced, failed, sorted(getattr(record, "inputs", set()) - had[0]),
            sorted(getattr(record, "outputs", set()) - had[1]))


def _in_plugin_process(plug: HostedAdapter, op: str,
                       *args: PluginObject) -> tuple[PluginObject, list[JSONValue], list[JSONValue], list[JSONValue]]:
    """``plug.<op>(*args)`` where the plug-in lives (``plug.obj`` the real object there): (value, the generators'
    advanced states, the inputs and outputs the arrays' record gained)."""
    record = getattr(plug, "arrays", None)
    had = (set(getattr(record, "inputs", ())), set(getattr(record, "outputs", ())))
    rngs: list[np.random.Generator] = []
    real = []
    for a in args:
        if isinstance(a, RngState):
            a = a.rebuild()
            rngs.append(a)
        real.append(a)
    value = getattr(plug, op)(*real)
    states = [g.bit_generator.state for g in rngs]
    return (value, states, sorted(getattr(record, "inputs", set()) - had[0]),
            sorted(getattr(record, "outputs", set()) - had[1]))


class HostGroup:
    """Several plug-in processes run as one (a kernel callable and the feature map given to test its composition):
    a scope begins in each and ends in each, the last begun ended first (their signal gates nest); the first
    problem is the scope's.  The interface :class:`rfverify.runner.Hosted` uses of a :class:`rfverify.containment.host.Host`."""

    def __init__(self, hosts: list[PluginObject]) -> None:
        self.hosts = [h for h in hosts if h is not None]

    @property
    def plugin(self) -> str:
        return str(self.hosts[0].plugin)

    @property
    def scope_crashed(self) -> bool:
        return any(h.scope_crashed for h in self.hosts)

    def set_limits(self, limits: PluginObject) -> None:
        for h in self.hosts:
            h.set_limits(limits)

    def begin(self, what: str) -> None:
        for h in self.hosts:
            h.begin(what)

    def end(self) -> str | None:
        problems = [h.end() for h in reversed(self.hosts)]
        return next((p for p in reversed(problems) if p is not None), None)

    def close(self) -> None:
        for h in reversed(self.hosts):
            h.close()
