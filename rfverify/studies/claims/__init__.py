"""The published-claims registry: every statement from the papers that rfverify checks.

Each paper has one module (``SOURCES`` maps the paper to it) holding a list ``CLAIMS`` of
:class:`ClaimSpec`: the claim id (``paper-section-eq``), where it is printed, the statement quoted as
printed, the method in one phrase, and a function computing, in the run, the evidence (one or two plain
sentences with numbers, interval levels and precision) and a :class:`~.verdicts.Finding`.  The verdict is
never written by hand: :func:`~.verdicts.judge` derives it from the finding (rules R1–R6, documented in
:mod:`rfverify.studies.claims.verdicts`).

Selection (``sources``, ``ids``) happens before anything is computed, and an unknown source or id is
rejected at once.  ``rfverify claims`` prints the table; ``rfverify claims --id ID`` re-runs one claim.
Every claim draws its randomness from fixed seeds, so results are byte-identical run to run.
"""

from __future__ import annotations

import importlib
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable

from rfverify.errors import UsageError
from rfverify.studies.claims.verdicts import NOTATION_RULE, RULES, VERDICTS, Finding, judge, notation_note
from rfverify.containment.threads import one_blas_thread

__all__ = ["Claim", "ClaimSpec", "SOURCES", "BIBKEYS", "VERDICTS", "RULES", "Finding", "claim_specs", "select_specs",
           "evaluate_claims", "evaluate_spec", "reproduce_command"]

#: Paper -> the module holding its ``CLAIMS``, in the order the table lists them.
SOURCES: dict[str, str] = {
    "mroueh": "rfverify.studies.claims.mroueh",
    "daniely2017": "rfverify.studies.claims.daniely2017",
    "alber2017": "rfverify.studies.claims.alber2017",
    "munkhoeva2018": "rfverify.studies.claims.munkhoeva2018",
    "cs4787": "rfverify.studies.claims.cs4787",
}

#: Paper -> its bibliographic key and reference (every row carries the key; docs/claims.md lists the references).
BIBKEYS: dict[str, tuple[str, str]] = {
    "mroueh": ("mroueh2015maxout", "Y. Mroueh, S. Rennie, V. Goel. Random Maxout Features. 2015"),
    "daniely2017": ("daniely2017compositional", "A. Daniely, R. Frostig, V. Gupta, Y. Singer. Random Features for "
                    "Compositional Kernels. 2017"),
    "alber2017": ("alber2017random", "M. Alber, P.-J. Kindermans, K. T. Schuett, K.-R. Mueller et al. An Empirical "
                  "Study on The Properties of Random Bases for Kernel Methods. NIPS 2017"),
    "munkhoeva2018": ("munkhoeva2018quadrature", "M. Munkhoeva, Y. Kapushev, E. Burnaev, I. Oseledets. "
                      "Quadrature-based features for kernel approximation. NeurIPS 2018"),
    "cs4787": ("cs4787lecture16", "C. De Sa. CS4787/5777 Principles of Large-Scale Machine Learning Systems, "
               "Lecture 16: Kernels and Feature Extraction. Cornell University"),
}


@dataclass(frozen=True)
class ClaimSpec:
    """A claim before it is evaluated: everything but the evidence, the finding and the verdict."""

    id: str
    source: str
    location: str
    statement: str
    method: str
    evaluate: Callable[[], tuple[str, Finding]] = field(repr=False, compare=False)
    #: (symbols, meaning, where the paper defines it) for every symbol the verdict depends on (see ``claim_list``)
    notation: tuple[tuple[str, str, str], ...] = ()
    #: the outcome of re-checking the row against the notation rule
    audit: str | None = None
    #: a claim of more than a few seconds: left out of the default table (``rfverify claims --heavy`` adds it)
    heavy: bool = False


@dataclass(frozen=True)
class Claim:
    """One evaluated claim: a row a reviewer can paste, with the command that re-runs it."""

    id: str
    source: str
    location: str
    statement: str
    method: str
    evidence: str
    verdict: str
    rule: str
    finding: dict[str, Any]
    reproduce: str
    seconds: float = field(default=0.0, compare=False)
    paper: str = ""
    notes: str = ""

    def __post_init__(self) -> None:
        if self.verdict not in VERDICTS:
            raise ValueError(f"claim {self.id}: verdict must be one of {VERDICTS}, got {self.verdict!r}")

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.id, "source": self.source, "location": self.location, "statement": self.statement,
                "method": self.method, "evidence": self.evidence, "verdict": self.verdict, "rule": self.rule,
                "rule_text": RULES[self.rule] + (f"; {NOTATION_RULE}" if self.notes else ""),
                "finding": dict(self.finding), "reproduce": self.reproduce, "paper": self.paper, "notes": self.notes}


def reproduce_command(claim_id: str) -> str:
    return f"rfverify claims --id {claim_id}"


def claim_specs(sources: Iterable[str] | None = None, heavy: bool = False) -> list[ClaimSpec]:
    """Every registered claim (of the given papers), in table order, the heavy ones only with ``heavy``; imports the
    modules, computes nothing."""
    wanted = list(SOURCES) if sources is None else list(dict.fromkeys(sources))
    unknown = [s for s in wanted if s not in SOURCES]
    if unknown:
        raise UsageError(f"unknown claim source {', '.join(unknown)}; sources are {', '.join(SOURCES)}")
    specs: list[ClaimSpec] = []
    for source in wanted:
        specs.extend(importlib.import_module(SOURCES[source]).CLAIMS)
    return [s for s in specs if heavy or not s.heavy]


def select_specs(sources: Iterable[str] | None = None, ids: Iterable[str] | None = None,
                 heavy: bool = False) -> list[ClaimSpec]:
    """The claims selected by paper and/or id, checked before anything is computed; a heavy claim is selected by
    ``heavy`` or by its id."""
    specs = claim_specs(sources or None, heavy=heavy or bool(ids))
    if ids:
        ids = list(dict.fromkeys(ids))
        by_id = {s.id: s for s in specs}
        unknown = [i for i in ids if i not in by_id]
        if unknown:
            scope = f" of {', '.join(sources)}" if sources else ""
            raise UsageError(f"unknown claim id {', '.join(unknown)}{scope}; list the ids with 'rfverify claims --list'")
        specs = [by_id[i] for i in ids]
    return specs


def _with_notation(spec: ClaimSpec, finding: Finding) -> Finding:
    """The finding with the spec's declared notation (one reading per symbol, the paper's own, settled; it holds
    or fails as the printed statement does) and audit, where the claim's function computed none."""
    from dataclasses import replace

    from rfverify.studies.claims.verdicts import Reading

    if spec.notation and not finding.readings and finding.printed_holds is not None:
        finding = replace(finding, readings=tuple(Reading(s, m, w, holds=finding.printed_holds, settled=True)
                                                  for s, m, w in spec.notation))
    if spec.audit and not finding.audit and finding.readings:
        finding = replace(finding, audit=spec.audit)
    return finding


def evaluate_spec(spec: ClaimSpec) -> Claim:
    """Evaluate one claim with BLAS on one thread: the claims multiply small matrices, where a threaded BLAS only
    spins (slower on a shared machine), and one thread makes every sum's order, hence every digit, machine-independent
    of the thread count."""
    t0 = time.perf_counter()
    with one_blas_thread():
        evidence, finding = spec.evaluate()
    finding = _with_notation(spec, finding)
    verdict, rule = judge(finding)
    if finding.extraction and "extract" not in evidence:
        raise ValueError(f"claim {spec.id}: its statement may be an extraction artefact; the evidence must say so")
    return Claim(id=spec.id, source=spec.source, location=spec.location, statement=spec.statement,
                 method=spec.method, evidence=evidence, verdict=verdict, rule=rule, finding=finding.to_dict(),
                 reproduce=reproduce_command(spec.id), seconds=time.perf_counter() - t0,
                 paper=BIBKEYS.get(spec.source, (spec.source, ""))[0], notes=notation_note(finding))


def evaluate_claims(sources: Iterable[str] | None = None, ids: Iterable[str] | None = None,
                    progress: Callable[[int, int, ClaimSpec, float], None] | None = None,
                    jobs: int = 1, heavy: bool = False) -> list[Claim]:
    """Evaluate the selected claims (default: all), in table order.  ``progress(i, n, spec, seconds)`` is called
    after each (with ``jobs`` > 1: in the order they finish).

    ``jobs`` > 1 evaluates them in a pool of that many worker processes (at most one per claim).  Every claim draws
    from its own fixed seeds with BLAS on one thread, so the claims are the same for every ``jobs``
    (``tests/test_claims.py``); only ``seconds`` differs."""
    specs = select_specs(sources, ids, heavy=heavy)
    if isinstance(jobs, bool) or not isinstance(jobs, int) or jobs < 1:
        raise UsageError(f"jobs must be a positive integer, got {jobs!r}")
    if jobs > 1 and len(specs) > 1:
        return _evaluate_pool(specs, min(jobs, len(specs)), progress)
    claims = []
    for i, spec in enumerate(specs, 1):
        claim = evaluate_spec(spec)
        claims.append(claim)
        if progress is not None:
            progress(i, len(specs), spec, claim.seconds)
    return claims


def evaluate_id(claim_id: str, recompute: bool = False) -> Claim:
    """One claim by its id, as a work unit (:class:`rfverify.containment.executors.Task`): the high-precision values read from
    the committed table, or recomputed with mpmath (``recompute``) as in the process that asked."""
    from rfverify.highprec.tables import set_recompute

    set_recompute(recompute)
    return evaluate_spec(select_specs(ids=[claim_id])[0])


def _evaluate_pool(specs: list[ClaimSpec], jobs: int,
                   progress: Callable[[int, int, ClaimSpec, float], None] | None) -> list[Claim]:
    """The claims as work units on a local process pool (:class:`rfverify.containment.executors.ProcessPool`, the pool of
    ``--jobs`` everywhere in rfverify): each unit names its claim and whether to recompute, so a worker computes what
    this process would, however it was started; a claim that raises is an error here, as it is in-process."""
    from rfverify.containment.executors import ProcessPool, Task
    from rfverify.highprec.tables import recompute_enabled

    recompute = recompute_enabled()
    tasks = [Task(key=f"claim-{s.id}", fn="rfverify.studies.claims:evaluate_id", args=(s.id, recompute))
             for s in specs]
    done = 0

    def on_outcome(i: int, out: Any) -> None:
        nonlocal done
        done += 1
        if out.error is not None:
            raise RuntimeError(f"claim {specs[i].id} could not be evaluated: {out.error}")
        if progress is not None:
            progress(done, len(specs), specs[i], out.value.seconds)

    with ProcessPool(jobs) as pool:
        return [out.value for out in pool.map(tasks, on_outcome=on_outcome)]
