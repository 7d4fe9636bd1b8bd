"""The search engine of the ``explore`` checks: Hypothesis over a configuration space, shrunk, derandomised.

A property is stated for a whole configuration space (:mod:`rfverify.strategies`); :func:`search` runs it on
``budget`` configurations drawn by Hypothesis and, on a failure, shrinks to the smallest configuration and
input that still break it — the configuration a failure message names and the ``reproduce`` command pins.

* **Budget** per profile (:data:`BUDGETS`): quick 25, default 150, thorough 600 generated configurations
  (shrinking a failure adds its own calls, counted in :attr:`Exploration.calls`).
* **Derandomised**: the search is seeded from the check's key (:meth:`rfverify.seeding.SeedSource.random_state`),
  so a verdict is the same in any order and under any number of pytest-xdist workers; no example database is
  read or written (``database=None``), and nothing is printed (quiet, with a silent reporter).
* **Explicit examples** (``explicit=``) are tried first: a pinned configuration (``--n-components``, ``--pin
  KEY=VALUE``) replays exactly.
* Hypothesis' phases ``explicit, generate, shrink`` only (no ``explain``: its output is not needed and it costs
  calls); deadlines and health checks are off (the plug-in's speed is not the property).

The property returns ``None`` (holds) or a one-line problem, or raises :class:`rfverify.refusals.Refused` when the
plug-in refused the configuration (it is then set aside, as Hypothesis' ``assume(False)``, and listed in
:attr:`Exploration.refused`); any other exception escaping it is not a counterexample but an error of the harness
(or the check's time limit), and propagates unchanged.

>>> from hypothesis import strategies as st
>>> r = search(st.integers(0, 1000), lambda n: "too big" if n * n > 2000 else None, seed=1, budget=50)
>>> r.counterexample, r.problem
(45, 'too big')
>>> search(st.integers(0, 10), lambda n: None, seed=1, budget=5).counterexample is None
True
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Callable, Hashable, Iterable, Mapping, Sequence, TypeVar

from hypothesis import HealthCheck, Phase, Verbosity, example, given, reject, settings
from hypothesis import seed as hypothesis_seed
from hypothesis.errors import Flaky, Unsatisfiable
from hypothesis.reporting import with_reporter
from hypothesis.strategies import SearchStrategy

from rfverify.hypothesis_compat import search_constants_hidden
from rfverify.profiles import budget
from rfverify.refusals import Refused
from rfverify.results import JSONValue
from rfverify.threads import one_blas_thread

__all__ = ["Exploration", "search", "refine", "budget_for", "coverage", "d_band", "one_blas_thread"]

#: An example of the space a check explores (its own dataclass: a feature map's, a kernel's, a rule's configuration).
E = TypeVar("E")


def budget_for(profile_name: str) -> int:
    """The number of configurations a profile explores (``explore`` in :data:`rfverify.profiles.BUDGETS`)."""
    return int(budget(profile_name, "explore"))


@dataclass(frozen=True)
class Exploration:
    """The outcome of one search.

    ``counterexample``: the minimal failing example (None: the property held on every example);
    ``problem``: what was wrong with it; ``calls``: property evaluations, generation and shrinking together;
    ``replayed``: False when the failure did not happen again when Hypothesis replayed it (the plug-in is
    not deterministic at that configuration; the first failing example is then reported, unshrunk);
    ``tried``: every evaluated example with whether it failed, in order (what :func:`coverage` tabulates);
    ``refused``: the examples the plug-in refused (a :class:`rfverify.refusals.Refused` raised by the property:
    rejected like ``assume(False)``, never judged).
    """

    counterexample: Any
    problem: str | None
    calls: int
    budget: int
    replayed: bool = True
    tried: tuple[tuple[Any, bool], ...] = ()
    #: The examples set aside because the plug-in refused them (:mod:`rfverify.refusals`), in order.
    refused: tuple[Any, ...] = ()

    @property
    def passed(self) -> bool:
        return self.counterexample is None

    def shown_as(self, minimal: str = "minimal configuration") -> str:
        """How the counterexample is presented after its description: shrunk, or as first found when the replay did
        not find the failure again (then it was not shrunk, and the plug-in is not deterministic there)."""
        if self.replayed:
            return f" ({minimal}, shrunk by Hypothesis)"
        return (" (as first found, not shrunk: the failure did not happen again when replayed, so the plug-in is not "
                "deterministic there)")


class _Falsified(AssertionError):
    """The property failed on an example (Hypothesis shrinks on it)."""


class _Escape(BaseException):
    """An exception from inside the property that is not a counterexample: carried out of Hypothesis."""

    def __init__(self, exc: BaseException) -> None:
        super().__init__(repr(exc))
        self.exc = exc


def search(strategy: SearchStrategy[E], prop: Callable[[E], str | None], *, seed: int, budget: int,
           explicit: Sequence[E] = ()) -> Exploration:
    """Search ``strategy`` for an example where ``prop`` returns a problem; the minimal one, shrunk.

    ``seed``: Hypothesis' seed (derive it from the check key); ``budget``: examples generated;
    ``explicit``: examples tried first, in order.
    """
    state: dict[str, Any] = {"calls": 0, "last": None, "first": None}
    tried: list[tuple[E, bool]] = []
    refused: list[E] = []

    def test(ex: E) -> None:
        state["calls"] += 1
        try:
            problem = prop(ex)
        except Refused:  # outside the plug-in's space: set aside, as assume(False)
            refused.append(ex)
            reject()
        except BaseException as exc:  # noqa: BLE001 - not a counterexample: leave Hypothesis at once
            raise _Escape(exc) from exc
        tried.append((ex, bool(problem)))
        if problem:
            state["last"] = (ex, problem)
            if state["first"] is None:
                state["first"] = (ex, problem)
            raise _Falsified(problem)

    wrapped: Any = given(strategy)(test)
    for ex in reversed(list(explicit)):
        wrapped = example(ex)(wrapped)
    wrapped = hypothesis_seed(int(seed))(wrapped)
    wrapped = settings(max_examples=max(1, int(budget)), database=None, deadline=None, derandomize=False,
                       phases=(Phase.explicit, Phase.generate, Phase.shrink), verbosity=Verbosity.quiet,
                       suppress_health_check=list(HealthCheck), report_multiple_bugs=False,
                       print_blob=False)(wrapped)
    replayed = True
    try:
        with with_reporter(lambda *a, **k: None), search_constants_hidden():
            wrapped()
    except _Escape as esc:
        raise esc.exc from None
    except _Falsified:
        pass
    except Flaky:
        replayed = False
    except Unsatisfiable:  # every configuration generated was refused: nothing was judged
        pass
    except BaseException as exc:  # an exception group holding our escape
        inner = _find_escape(exc)
        if inner is None:
            raise
        raise inner.exc from None
    found = state["last"] if replayed else state["first"]
    if found is None:
        return Exploration(None, None, state["calls"], budget, tried=tuple(tried), refused=tuple(refused))
    return Exploration(found[0], found[1], state["calls"], budget, replayed, tuple(tried), tuple(refused))


#: The input-dimension bands of a coverage table (lower ends): 1, 2 … 4, 5 … 16, 17 … 64, 65 … 256, 257 and up.
D_BANDS = (1, 2, 5, 17, 65, 257)


def d_band(d: int) -> str:
    """The band of :data:`D_BANDS` holding dimension ``d`` (``"1"``, ``"2 … 4"``, …, ``"257 …"``).

    >>> d_band(1), d_band(3), d_band(64), d_band(300)
    ('1', '2 … 4', '17 … 64', '257 …')
    """
    lo = max(b for b in D_BANDS if b <= max(1, int(d)))
    i = D_BANDS.index(lo)
    if i + 1 == len(D_BANDS):
        return f"{lo} …"
    hi = D_BANDS[i + 1] - 1
    return str(lo) if hi == lo else f"{lo} … {hi}"


def coverage(found: Exploration, axes: Mapping[str, Callable[[Any], Hashable]], *,
             size: Callable[[Any], tuple[int, ...]], describe: Callable[[Any], str]) -> list[dict[str, JSONValue]]:
    """Where in the space a property held and where it broke: one row per cell of ``axes`` that was reached.

    ``axes``: column name -> the cell of an example on that axis (e.g. ``{"d": lambda ex: d_band(ex.d),
    "dtype": ...}``); each row counts the configurations evaluated in the cell (generation and shrinking
    together), how many failed, and the smallest failing one there (``size`` orders them, ``describe`` writes
    it; the overall minimal counterexample is marked).  Rows are ordered by the cells' first appearance
    along each axis' smallest value, so the table reads from the simplest corner outwards.

    >>> from hypothesis import strategies as st
    >>> r = search(st.integers(1, 100), lambda d: "big" if d > 20 else None, seed=1, budget=30)
    >>> rows = coverage(r, {"d": d_band}, size=lambda d: d, describe=lambda d: f"d = {d}")
    >>> [row["smallest failing"] for row in rows if row["d"] == "17 … 64"]
    ['d = 21 (minimal)']
    >>> [row["failed"] for row in rows if row["d"] == "1"]
    [0]
    """
    cells: dict[tuple[Any, ...], dict[str, Any]] = {}
    firsts: dict[tuple[Any, ...], Any] = {}
    for ex, failed in found.tried:
        key = tuple(f(ex) for f in axes.values())
        cell = cells.setdefault(key, {"tried": 0, "failed": 0, "worst": None})
        cell["tried"] += 1
        firsts.setdefault(key, size(ex))
        firsts[key] = min(firsts[key], size(ex))
        if failed:
            cell["failed"] += 1
            if cell["worst"] is None or size(ex) < size(cell["worst"]):
                cell["worst"] = ex
    rows = []
    for key in sorted(cells, key=lambda k: (firsts[k], k)):
        cell = cells[key]
        row: dict[str, JSONValue] = dict(zip(axes, key))
        row["tried"], row["failed"] = cell["tried"], cell["failed"]
        worst = cell["worst"]
        mark = " (minimal)" if worst is not None and worst == found.counterexample else ""
        row["smallest failing"] = "" if worst is None else describe(worst) + mark
        rows.append(row)
    return rows


def refine(found: Exploration, smaller: Iterable[E], prop: Callable[[E], str | None]) -> Exploration:
    """The first of ``smaller`` (simpler examples, simplest first) on which ``prop`` fails, in place of
    ``found``'s counterexample; ``found`` unchanged when none fails.

    Hypothesis shrinks an integer drawn from a list of corner values (``d`` from 1, 2, 3, 4, 2^k ± 1, …) along
    that list, so it may stop at a corner (d = 31) above the smallest failing value (d = 21): a check whose
    axis is short scans it below the counterexample (at most its length in calls, counted in ``calls``).

    >>> from hypothesis import strategies as st
    >>> r = search(st.sampled_from([1, 8, 31, 64]), lambda d: "big" if d > 20 else None, seed=1, budget=10)
    >>> r.counterexample, refine(r, range(1, r.counterexample), lambda d: "big" if d > 20 else None).counterexample
    (31, 21)
    """
    if found.passed:
        return found
    calls = found.calls
    tried = list(found.tried)
    for ex in smaller:
        calls += 1
        try:
            problem = prop(ex)
        except Refused:  # outside the plug-in's space: not a smaller failing example
            continue
        tried.append((ex, bool(problem)))
        if problem:
            return replace(found, counterexample=ex, problem=problem, calls=calls, tried=tuple(tried))
    return replace(found, calls=calls, tried=tuple(tried))


def _find_escape(exc: BaseException) -> _Escape | None:
    if isinstance(exc, _Escape):
        return exc
    for sub in getattr(exc, "exceptions", ()) or ():
        found = _find_escape(sub)
        if found is not None:
            return found
    cause = exc.__cause__ or exc.__context__
    return _find_escape(cause) if cause is not None and cause is not exc else None
