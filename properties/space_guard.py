"""The refusal rule (:mod:`rfverify.refusals`) as the other kinds' explorations and statistical corners apply it.

:class:`SpaceGuard` sits between an explored property and the plug-in calls it makes: a clean refusal
(``ValueError``, ``TypeError``, ``NotImplementedError``) away from the main configuration is confirmed (the same
call again, and another seed) and raised as :class:`~rfverify.refusals.Refused`, so the search sets the
configuration aside; at the main configuration (the declared or pinned one) it stays the error it was; without
a log (a property evaluated on its own) it is a problem like any other.

:func:`probe_corner` is the statistical corners' rule: before a corner is judged, the plug-in is called there
with two seeds; both refuse -> the corner is set aside (its alpha share is not redistributed, as for a corner that
does not apply), one refuses -> :class:`~rfverify.refusals.InconsistentRefusal` (an error), both accept -> the
corner is judged, and a refusal raised later inside the check at that corner is inconsistent too
(:func:`refused_inside`).

>>> from rfverify.refusals import Axis, Refusal, SpaceLog
>>> from rfverify.errors import PluginError
>>> def probe(form, seed):
...     return Refusal("ValueError", "d > 2", "sample") if form["d"] > 2 else None
>>> guard = SpaceGuard(SpaceLog([Axis("d")], {"d": 2}, probe), main=[{"d": 2}])
>>> err = PluginError("s", "sample raised ValueError: d > 2"); err.refusal = probe({"d": 5}, 0)
>>> try:
...     guard.reject(err, {"d": 5}, seed=0)
... except Exception as exc:
...     print(type(exc).__name__, exc)
Refused ValueError: d > 2
"""

from __future__ import annotations

from dataclasses import replace
from typing import Callable, Iterable

from rfverify.errors import PluginError, UsageError
from rfverify.refusals import InconsistentRefusal, Refusal, Refused, SpaceLog, is_refusal, refusal_of
from rfverify.results import JSONRecord, JSONValue

__all__ = ["SpaceGuard", "refusal_in", "probe_corner", "refused_inside", "corner_note"]


def refusal_in(exc: BaseException, action: str | None = None) -> Refusal | None:
    """The clean refusal ``exc`` carries: a tagged :class:`PluginError`'s, or the plug-in's own exception of a
    refusal type that reached us unwrapped (a rule's ``UsageError``, a ``ValueError`` subclass); else None.
    ``action`` names the call in the kind's words, without the configuration (``sample(d, rng)``): a refused
    region is stated over many configurations."""
    if isinstance(exc, PluginError):
        ref = refusal_of(exc)
    elif is_refusal(exc):
        ref = Refusal(type(exc).__name__, str(exc).splitlines()[0] if str(exc) else "", action or "the call")
    else:
        ref = None
    return replace(ref, action=action) if ref is not None and action else ref


class SpaceGuard:
    """The refusal rule for one exploration: ``log`` records and explains the refusals (None: a refusal is a
    problem like any other), ``main`` lists the configurations (forms) where a refusal stays an error."""

    def __init__(self, log: SpaceLog | None = None, main: Iterable[JSONRecord] = ()) -> None:
        self.log = log
        self.main = [dict(m) for m in main]

    def reject(self, exc: BaseException, form: JSONRecord, *, seed: int, other_seed: int | None = None,
               action: str | None = None) -> None:
        """Called with what a plug-in call at ``form`` (with ``seed``) raised: returns when it is not a refusal
        to set aside (the caller judges it as before); re-raises it at a main configuration; raises
        :class:`Refused` after confirming the refusal (an :class:`InconsistentRefusal` when it does not repeat)."""
        ref = refusal_in(exc, action)
        if ref is None or self.log is None:
            return
        if dict(form) in self.main:  # the configuration the caller asked for: nothing could be judged there
            raise exc
        self.log.refuse(form, ref, seed=seed, other_seed=(seed + 1) % 2 ** 32 if other_seed is None else other_seed)
        raise Refused(ref, form) from None

    def accept(self, form: JSONRecord) -> None:
        if self.log is not None:
            self.log.accept(form)


def probe_corner(call: Callable[[int], object], *, name: str, where: str, seeds: tuple[int, int] = (0, 1),
                 action: str | None = None) -> Refusal | None:
    """Call the plug-in at a corner with two seeds (``call(seed)``) before judging it: the :class:`Refusal` when
    both refuse (the corner is set aside), None when both accept (it is judged); an
    :class:`InconsistentRefusal` when one refuses and the other accepts.  A non-refusal error counts as accepted:
    the check meets it again where it happens and reports it as before."""
    said: list[Refusal | None] = []
    for s in seeds:
        try:
            call(s)
        except (PluginError, UsageError) as exc:
            said.append(refusal_in(exc, action))
        else:
            said.append(None)
    first, second = said
    if first is not None and second is not None:
        return first
    if first is None and second is None:
        return None
    if first is not None:
        ref, refused_seed, accepted_seed = first, seeds[0], seeds[1]
    else:
        assert second is not None  # both None returned above
        ref, refused_seed, accepted_seed = second, seeds[1], seeds[0]
    raise InconsistentRefusal(name, f"at the corner {where} refused the call with seed {refused_seed} "
                              f"({ref.text()}, at {ref.action}) but accepted it with seed {accepted_seed}: a refusal "
                              "must not depend on the seed", "refuse a configuration always or never (validate the "
                              "arguments, not the draw)")


def refused_inside(exc: BaseException, *, name: str, where: str) -> None:
    """A check at a corner the probe found accepted met a refusal there: raise it as an
    :class:`InconsistentRefusal` (the same configuration accepted, then refused); return for any other error."""
    ref = refusal_in(exc)
    if ref is None:
        return
    raise InconsistentRefusal(name, f"accepted the corner {where} when probed, then refused it inside the check "
                              f"({ref.text()}, at {ref.action}): a refusal must not depend on the seed or on the "
                              "call's history", "refuse a configuration always or never (validate the arguments, "
                              "not the draw)") from exc


def corner_note(done: list[dict[str, JSONValue]]) -> str:
    """The corners set aside, for a pass message: ``; the corner d = 128 set aside (ValueError: …)``."""
    refused = [c for c in done if c.get("status") == "refused"]
    if not refused:
        return ""
    return "; " + "; ".join(f"the corner {c['where']} set aside (refused: {c['why']})" for c in refused)
