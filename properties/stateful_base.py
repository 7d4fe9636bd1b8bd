"""What every stateful check shares (feature maps, samplers, rules, transforms): the failure a rule raises, the log
of a run, the base state machine (returned arrays kept and compared after every later step), the seeded silent
Hypothesis run, the far seeds and input types, the fresh-interpreter confirmation of a finding and the result
(the shrunk sequence printed as a program with the command that replays it).
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field, replace
from typing import Any, Callable, NoReturn

import numpy as np
from hypothesis import HealthCheck, Phase, Verbosity, settings
from hypothesis.errors import Flaky
from hypothesis.reporting import with_reporter
from hypothesis.stateful import RuleBasedStateMachine, invariant, run_state_machine_as_test

from rfverify.errors import PluginError
from rfverify.containment.fresh import FreshUnavailable, run_fresh
from rfverify.hypothesis_compat import search_constants_hidden
from rfverify.refusals import refusal_of
from rfverify.registry import BaseContext, PluginArray
from rfverify.results import CheckResult, JSONValue

__all__ = ["FAR_SEEDS", "INPUT_TYPES", "far_seed", "typed_input", "diff", "row_text", "program_text", "Failure",
           "Log", "MachineBase", "run_machine", "machine_result", "fresh_verdict", "KEPT_OUTPUTS"]

#: Seeds far from a living seed s: s + 2^16, s + 2^31, 2^32 - 1, and 63-bit seeds (set aside, stated, where the
#: plug-in does not accept them: they are beyond the declared random_state range).
FAR_SEEDS = ("s + 2**16", "s + 2**31", "2**32 - 1", "2**62 + s", "2**63 - 1")
#: The input types a call is given besides float64; each must give the float64 result of the same values (or be
#: refused cleanly: set aside and stated).
INPUT_TYPES = ("int32", "int64", "uint8", "bool", "float16", "list", "tuple")
#: Python containers, taken "where the plug-in accepts them": any exception on one says it does not (set aside and
#: stated, like a refusal); an array of another dtype must give the float64 values or be refused cleanly.
CONTAINER_INPUTS = ("list", "tuple")


def not_accepted(exc: PluginError, how: str) -> bool:
    """The call of input type ``how`` raised ``exc``: a clean refusal, or a Python container the plug-in does not
    take (``fht_cpu.fht`` raises AttributeError on a list of rows): set aside, not a failure."""
    return refusal_of(exc) is not None or how in CONTAINER_INPUTS
#: Returned arrays kept (the last this many) and compared with their copies after every later step.
KEPT_OUTPUTS = 32


def far_seed(rel: str, s: int) -> int:
    """The seed ``rel`` of seed ``s`` (kept below 2^63: a 63-bit seed at most)."""
    return {"s + 2**16": s + 2 ** 16, "s + 2**31": s + 2 ** 31, "2**32 - 1": 2 ** 32 - 1, "2**62 + s": 2 ** 62 + s,
            "2**63 - 1": 2 ** 63 - 1}[rel] % 2 ** 63


def typed_input(X: np.ndarray, kind: str, scale: int) -> tuple[PluginArray, str, np.ndarray]:
    """(the input in ``kind``, the code that makes it from X, the same values in float64)."""
    Z = np.rint(scale * X)
    code = f"np.rint({scale} * X)" if scale != 1 else "np.rint(X)"
    if kind in ("int32", "int64"):
        A = Z.astype(kind)
        return A, f"{code}.astype(np.{kind})", A.astype(np.float64)
    if kind == "uint8":
        A = np.abs(Z).astype(np.uint8)
        return A, f"np.abs({code}).astype(np.uint8)", A.astype(np.float64)
    if kind == "bool":
        A = Z != 0
        return A, f"{code} != 0", A.astype(np.float64)
    if kind == "float16":
        A = X.astype(np.float16)
        return A, "X.astype(np.float16)", A.astype(np.float64)
    if kind == "list":
        return X.tolist(), "X.tolist()", np.array(X, dtype=np.float64)
    return tuple(map(tuple, X.tolist())), "tuple(map(tuple, X.tolist()))", np.array(X, dtype=np.float64)


def diff(A: np.ndarray, B: np.ndarray) -> float:
    """The largest absolute difference of two arrays (infinite for different shapes)."""
    A, B = np.asarray(A), np.asarray(B)
    if A.shape != B.shape:
        return float("inf")
    return float(np.max(np.abs(A - B))) if A.size else 0.0


def row_text(v: np.ndarray, k: int = 4) -> str:
    flat = np.asarray(v).ravel()
    shown = ", ".join(f"{x:.4g}" for x in flat[:k])
    return f"[{shown}{', …' if flat.size > k else ''}]"


def program_text(lines: tuple[str, ...] | list[str], preamble: str) -> str:
    """The shrunk sequence as a runnable Python program: the preamble (imports, ``make``, the data) and the steps."""
    return preamble + "\n" + "\n".join(lines)


@dataclass
class Failure(Exception):
    """A failing step: what was observed, the program so far, the likely cause; ``headline`` when it is not the
    check's own; ``fresh``: a picklable ``(function, args)`` that recomputes the finding's result in a fresh
    interpreter, and ``judge``: what that result means (the confirmation's text and, if it changes, the cause)."""

    problem: str
    program: tuple[str, ...]
    cause: str = ""
    headline: str = ""
    fresh: tuple[Callable[..., object], tuple[object, ...]] | None = None
    judge: Callable[[Any], tuple[str, str]] | None = None


@dataclass
class Log:
    """What every run of a machine shares: the failures seen, the refusals set aside, the calls made."""

    runs: int = 0
    steps: int = 0
    calls: int = 0
    max_calls_per_object: int = 0
    last: Failure | None = None
    first: Failure | None = None
    replayed: bool = True
    refused: dict[str, str] = field(default_factory=dict)
    #: Seeds beyond the declared random_state range that the plug-in accepted but folded onto another seed.
    beyond: dict[str, str] = field(default_factory=dict)
    judged: dict[str, int] = field(default_factory=dict)

    def refuse(self, what: str, exc: PluginError) -> None:
        ref = refusal_of(exc)
        self.refused.setdefault(what, ref.text() if ref is not None else str(exc))

    def judge(self, what: str) -> None:
        self.judged[what] = self.judged.get(what, 0) + 1


class MachineBase(RuleBasedStateMachine):
    """The rules' common ground: the program's lines, :meth:`fail`, and the returned arrays kept (:meth:`keep`) and
    compared with their copies after every step.  A subclass sets ``log``."""

    log: Log

    def __init__(self) -> None:
        super().__init__()
        self.log.runs += 1
        self.lines: list[str] = []
        self.outputs: list[tuple[str, np.ndarray, np.ndarray]] = []  # (line, returned array, its copy)

    def program_lines(self) -> tuple[str, ...]:
        """The program so far; a copy of the plug-in that no later line uses is left out."""
        out = []
        for k, line in enumerate(self.lines):
            name, _, rest = line.partition(" = ")
            if rest.startswith("copy.deepcopy(") and not any(
                    f"{name}." in later or f"{name}(" in later for later in self.lines[k + 1:]):
                continue
            out.append(line)
        return tuple(out)

    def fail(self, problem: str, cause: str = "", **kw: Any) -> NoReturn:
        f = Failure(problem, self.program_lines(), cause, **kw)
        self.log.last = f
        if self.log.first is None:
            self.log.first = f
        raise f

    def pristine_failed(self, line: str, exc: PluginError, what: str = "the same call") -> NoReturn:
        """A pristine copy (deep-copied before the sequence, never called since) failed where the object under test
        did not: a finding (a copy carries state, such as a memo keyed by an array's identity, whose address a new
        array can reuse), never an exception left to escape the machine."""
        self.fail(f"`{line}` succeeded, but a pristine copy of the plug-in failed on {what}: {exc}",
                  "state carried into copies of the object and keyed by something other than the call's values "
                  "(a memo keyed by id(X): a new array can reuse a freed array's address)",
                  headline="a pristine copy of the plug-in fails where the object under test does not")

    def keep(self, line: str, *arrays: object) -> None:
        """Keep the arrays a call returned (the objects themselves) with a copy, to compare after later calls."""
        kept = [(line, a, np.array(a, copy=True)) for a in arrays if isinstance(a, np.ndarray)]
        self.outputs = (self.outputs + kept)[-KEPT_OUTPUTS:]

    @invariant()
    def earlier_outputs_unchanged(self) -> None:
        self.log.steps += 1
        for line, returned, copy in self.outputs:
            if not np.array_equal(returned, copy, equal_nan=True):
                self.fail(f"the array returned by `{line}` was changed by a later call (max change "
                          f"{diff(returned, copy):.3g}; now {row_text(returned)}, was {row_text(copy)})",
                          "an internal buffer returned and overwritten by the next call — return a copy")


def run_machine(machine: type[MachineBase], log: Log, *, runs: int, steps: int, seed: int) -> Log:
    """Run ``machine`` ``runs`` times (at most ``steps`` steps each), seeded, silent, no example database; the log
    holds the shrunk failure (``last``; ``first`` when the replay did not fail again: ``replayed`` False)."""
    machine._hypothesis_internal_use_seed = int(seed)  # what hypothesis.seed() sets; stateful tests honour it
    conf = settings(max_examples=max(1, runs), stateful_step_count=max(1, steps), database=None, deadline=None,
                    derandomize=False, phases=(Phase.explicit, Phase.generate, Phase.shrink),
                    verbosity=Verbosity.quiet, suppress_health_check=list(HealthCheck), report_multiple_bugs=False,
                    print_blob=False)
    try:
        with with_reporter(lambda *a, **k: None), search_constants_hidden(), np.errstate(all="ignore"), \
                warnings.catch_warnings():
            warnings.simplefilter("ignore")  # a plug-in's warnings (n_components > rows) are not findings here
            run_state_machine_as_test(machine, settings=conf)
    except Failure:
        pass
    except Flaky:
        if log.first is None:  # no finding of ours was ever raised: what failed is an error, never a pass
            raise
        log.replayed = False
    except BaseException as exc:  # an exception group holding our failure
        if not _holds_failure(exc):
            raise
    return log


def _holds_failure(exc: BaseException) -> bool:
    if isinstance(exc, Failure):
        return True
    return any(_holds_failure(e) for e in getattr(exc, "exceptions", ()) or ())


def fresh_verdict(found: Failure) -> tuple[str, str, dict[str, JSONValue]]:
    """Recompute ``found``'s result in a fresh interpreter (:func:`rfverify.containment.fresh.run_fresh`): (the confirmation
    sentence, the cause it points to or "", the details)."""
    if found.fresh is None or found.judge is None:
        return "", "", {}
    fn, args = found.fresh
    try:
        value = run_fresh(fn, *args)
    except FreshUnavailable as exc:
        return (f"not replayed in a fresh Python process: {exc}", "",
                {"fresh_process": {"replayed": False, "why": str(exc)}})
    text, cause = found.judge(value)
    return text, cause, {"fresh_process": {"replayed": True, "finding": text}}


def machine_result(ctx: BaseContext, log: Log, details: dict[str, JSONValue], *, preamble: str, passed: str,
                   headline: str, expected: str, noun: str = "calls", alias: str = "make") -> CheckResult:
    """The check's result: a pass stating what ran and what was set aside, or the shrunk failure printed as a
    program (``details["program"]``) with the command that replays it, confirmed in a fresh interpreter where the
    finding says how."""
    refused = "; ".join(f"refuses {k} ({v})" for k, v in sorted(log.refused.items()))
    if log.beyond:  # a statement, never a failure: those seeds are outside the space the verdict covers
        refused = "; ".join(filter(None, [refused, "beyond the declared random_state range (not judged): " + "; ".join(
            sorted(log.beyond))]))
    details.update({"sequences": log.runs, "steps": log.steps, "plugin_calls": log.calls,
                    "judged": dict(sorted(log.judged.items())), "refused": dict(sorted(log.refused.items())),
                    "beyond_seed_range": dict(sorted(log.beyond.items()))})
    found = log.last if log.replayed else log.first
    if found is None:
        return ctx.result("pass", passed + (f"; set aside: {refused}" if refused else ""), statistic=float(log.runs),
                          details=details)
    program = program_text(found.program, preamble)
    replay = ctx.reproduce
    details.update(program=program, replay=replay, replayed=log.replayed)
    confirmed, fresh_cause, fresh_details = fresh_verdict(found)
    details.update(fresh_details)
    shown = ("the shortest failing sequence, shrunk by Hypothesis" if log.replayed else
             "as first found, not shrunk: the failure did not happen again when replayed")
    steps = sum(1 for line in found.program if not line.startswith(" "))
    note = (f"the program ({shown}; `{alias}` is the plug-in):\n{program}\nreplay: {replay}"
            + (f"\nset aside: {refused}" if refused else ""))
    observed = found.problem + (f"; {confirmed}" if confirmed else "")
    result = ctx.fail(found.headline or headline, observed, expected,
                      where=f"after a sequence of {steps} {noun}, printed below as a program",
                      cause=fresh_cause or found.cause, note=note, statistic=float(log.runs), details=details)
    return replace(result, reproduce=replay)
