"""The verdict vocabulary of the published-claims table, and the rules that turn evidence into a verdict.

Seven verdicts, in the order a reader should worry about them least to most:

``holds``
    the statement as printed passes its test (exact arithmetic, high precision or a Monte Carlo interval).
``holds under a stated condition``
    the statement as printed fails somewhere, but it holds once a condition the paper omits is added
    (the condition is named, a counterexample outside it is given, and the statement is re-tested inside it).
``ambiguous notation``
    the paper's notation admits more than one reasonable reading (a covariance or a standard deviation; a formula
    the PDF extraction may have garbled), the paper's own text does not settle which, and the statement holds under
    one reading and fails under another; the row says ``holds under reading X (where), fails under reading Y``.
``false as printed; corrected form holds``
    the formula as printed is wrong (a counterexample is given); the named correction is itself tested
    and passes.
``false``
    the statement fails (a counterexample) and no tested correction is offered, or the offered one fails.
``not reproduced``
    an empirical claim (a figure, a saving factor, "in every comparison") that our experiment does not
    confirm; the evidence states the experiment's scale and power.
``not checkable here``
    the statement cannot be tested by computation in this package (the reason is given).

A provider never writes a verdict: it reports a :class:`Finding` (what was tested and with which
outcome) and :func:`judge` applies the rules R1–R6 below, in this order.  The rule that fired is kept
with the claim, so a reader sees *why* the verdict follows from the evidence.

* R6 — ``uncheckable`` is set: **not checkable here**.
* R7 — the statement's readings (:class:`Reading`) disagree and no reading is the paper's own definition:
  **ambiguous notation**.
* R5 — an empirical claim (``empirical=True``) whose printed test fails: **not reproduced** (``power``
  required: the scale of the experiment and what it could detect).
* R1 — the printed statement passes: **holds**.
* R2 — it fails, a ``condition`` is named and the statement passes under it: **holds under a stated
  condition**.
* R3 — it fails, a ``correction`` is named and the corrected statement passes: **false as printed;
  corrected form holds**.
* R4 — otherwise: **false** (``counterexample`` required).

Every non-``holds`` verdict must name what justifies it (the counterexample, the condition, the
correction, the power, the reason); a finding that does not is a harness error (``ValueError``), never
a verdict.

**No accusation on a misreading** (applied by :func:`judge` to every row).  A verdict that the statement is wrong
(R3 "false as printed", R4 "false") depends on how its symbols are read, so the finding must carry its
:class:`Reading` s: for every symbol (or group of symbols) the verdict depends on, the reading used and where the
paper defines it.  Where the notation admits more than one reasonable reading, each is a separate
:class:`Reading`, checked by the claim's own computation, and:

* a reading marked ``settled`` is the one the paper's own text fixes (the section is quoted in ``where``): the verdict
  follows it, whatever the other readings give (``printed_holds`` must agree with it, else ``ValueError``) — so a
  statement that holds under the paper's definition is **holds**, with the other reading kept as a notation note;
* otherwise, if one reading passes and another fails: **ambiguous notation** (R7);
* "false" / "false as printed" only when every reading fails.

A statement whose text may be an artefact of extracting the PDF (a radical whose extent is lost, a misplaced
exponent) carries ``extraction`` (what may be garbled and how), and its failing verdict needs at least two readings:
the text as extracted and the typeset formula it may come from.  Every failing or ambiguous verdict also carries
``audit``: the outcome of re-checking it against this rule (what was checked in the paper, and whether the verdict
stood or changed).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

__all__ = ["HOLDS", "HOLDS_UNDER_CONDITION", "AMBIGUOUS", "CORRECTED", "FALSE", "NOT_REPRODUCED", "NOT_CHECKABLE",
           "VERDICTS", "RULES", "NOTATION_RULE", "Reading", "Finding", "judge", "notation_note"]

HOLDS = "holds"
HOLDS_UNDER_CONDITION = "holds under a stated condition"
AMBIGUOUS = "ambiguous notation"
CORRECTED = "false as printed; corrected form holds"
FALSE = "false"
NOT_REPRODUCED = "not reproduced"
NOT_CHECKABLE = "not checkable here"

#: Every verdict, from "nothing to fix" to "cannot say".
VERDICTS = (HOLDS, HOLDS_UNDER_CONDITION, AMBIGUOUS, CORRECTED, FALSE, NOT_REPRODUCED, NOT_CHECKABLE)

#: The rule behind each verdict, one line each (shown with every claim and in the documentation).
RULES = {
    "R1": "the printed statement passes its test",
    "R2": "the printed statement fails, and passes under the named condition",
    "R3": "the printed statement fails (counterexample), and the named correction passes its test",
    "R4": "the printed statement fails (counterexample), and no tested correction passes",
    "R5": "empirical claim not confirmed by our experiment (scale and power stated)",
    "R6": "the statement cannot be tested by computation here (reason stated)",
    "R7": "the notation admits several readings, the paper does not settle which, and they disagree",
}

#: The rule against wrong accusations, one line (shown with every row that a reading decides).
NOTATION_RULE = ("'false' only when every reasonable reading of the notation fails; the reading the paper itself "
                 "defines decides; readings that disagree without it give 'ambiguous notation'")


@dataclass(frozen=True)
class Reading:
    """One reading of the notation a verdict depends on.

    ``symbols``: the symbols as printed (``"N(0, sigma^-1)"``); ``meaning``: how they are read (``"second argument
    a standard deviation"``); ``where``: where the paper defines this reading (section and quoted words), or why
    it is a reading the paper does not exclude (``"common convention; the paper does not say"``); ``holds``: does the
    statement pass under this reading (the claim's own computation decides); ``settled``: the paper's own text
    fixes this reading.
    """

    symbols: str
    meaning: str
    where: str
    holds: bool
    settled: bool = False

    def __post_init__(self) -> None:
        for name in ("holds", "settled"):
            object.__setattr__(self, name, bool(getattr(self, name)))
        if not (self.symbols and self.meaning and self.where):
            raise ValueError("a reading names the symbols, their meaning and where the paper defines it")

    def label(self) -> str:
        return f"{self.symbols} as {self.meaning} ({self.where})"


@dataclass(frozen=True)
class Finding:
    """What a claim's test found; :func:`judge` turns it into a verdict.

    ``printed_holds``: did the statement as printed pass its test (``None`` only with ``uncheckable``).
    ``counterexample``: where the printed statement fails (a short phrase with numbers).
    ``condition`` / ``holds_under_condition``: a condition the paper omits, and the re-test under it.
    ``correction`` / ``correction_holds``: a corrected statement, and its own test.
    ``empirical`` / ``power``: an empirical claim (figure, saving factor), and our experiment's scale and power.
    ``uncheckable``: why the statement cannot be tested here.
    """

    printed_holds: bool | None
    counterexample: str | None = None
    condition: str | None = None
    holds_under_condition: bool | None = None
    correction: str | None = None
    correction_holds: bool | None = None
    empirical: bool = False
    power: str | None = None
    uncheckable: str | None = None
    readings: tuple[Reading, ...] = ()
    extraction: str | None = None
    audit: str | None = None

    def __post_init__(self) -> None:
        # numpy comparisons give numpy.bool_: store plain bools so the finding serialises to JSON
        for name in ("printed_holds", "holds_under_condition", "correction_holds", "empirical"):
            v = getattr(self, name)
            if v is not None and not isinstance(v, bool):
                object.__setattr__(self, name, bool(v))
        # readings from JSON arrive as dicts
        object.__setattr__(self, "readings", tuple(r if isinstance(r, Reading) else Reading(**r)
                                                   for r in self.readings))

    def to_dict(self) -> dict[str, Any]:
        """Every field that says something (``printed_holds`` always; unset fields, no readings and
        ``empirical=False`` left out); ``Finding(**f.to_dict()) == f``."""
        return {k: v for k, v in asdict(self).items()
                if k == "printed_holds" or not (v is None or v == () or v == [] or (k == "empirical" and v is False))}


def _notation(f: Finding) -> str | None:
    """R7, or None: the readings decide only when no reading is settled and they disagree; a settled reading must
    agree with ``printed_holds`` (a verdict against the paper's own definition is a harness error)."""
    settled = [r for r in f.readings if r.settled]
    if any(r.holds != f.printed_holds for r in settled):
        raise ValueError("printed_holds contradicts the reading the paper itself defines (Reading.settled): "
                         + "; ".join(r.label() for r in settled if r.holds != f.printed_holds))
    if not settled and len({r.holds for r in f.readings}) == 2:
        if not f.audit:
            raise ValueError("an 'ambiguous notation' verdict records its re-audit (Finding.audit)")
        return "R7"
    if f.readings and not settled and f.readings[0].holds != f.printed_holds:
        raise ValueError("printed_holds contradicts every reading checked")
    return None


def judge(f: Finding) -> tuple[str, str]:
    """``(verdict, rule id)`` for a finding, by the rules R1–R7 and the notation rule of the module docstring."""
    if f.uncheckable:
        return NOT_CHECKABLE, "R6"
    if f.printed_holds is None:
        raise ValueError("a finding must say whether the printed statement passed (or why it is uncheckable)")
    if f.empirical and not f.printed_holds:
        if not f.power:
            raise ValueError("'not reproduced' needs the experiment's scale and power (Finding.power)")
        return NOT_REPRODUCED, "R5"
    if _notation(f) == "R7":
        return AMBIGUOUS, "R7"
    if f.printed_holds:
        return HOLDS, "R1"
    if not f.counterexample:
        raise ValueError("a printed statement that fails needs its counterexample (Finding.counterexample)")
    if f.condition and f.holds_under_condition:
        return HOLDS_UNDER_CONDITION, "R2"
    # "false" / "false as printed": never on one unexamined reading
    if not f.readings:
        raise ValueError("a 'false' or 'false as printed' verdict names the reading of every symbol it depends on "
                         "and where the paper defines it (Finding.readings)")
    if f.extraction and len(f.readings) < 2:
        raise ValueError("a statement that may be an extraction artefact is checked under the text as extracted "
                         "and the formula it may come from (two readings at least)")
    if not f.audit:
        raise ValueError("a 'false' or 'false as printed' verdict records its re-audit against the notation rule "
                         "(Finding.audit)")
    if f.correction and f.correction_holds:
        return CORRECTED, "R3"
    return FALSE, "R4"


def notation_note(f: Finding | dict[str, Any]) -> str:
    """The row's notation and extraction note: every reading with its outcome, the extraction caveat, the audit
    ('' when the finding has none)."""
    g = f if isinstance(f, Finding) else Finding(**f)
    parts = []
    if g.readings:
        parts.append("Readings: " + "; ".join(f"{r.label()}: {'holds' if r.holds else 'fails'}"
                                               + (" [the paper's definition]" if r.settled else "")
                                               for r in g.readings) + ".")
    if g.extraction:
        parts.append(f"Extraction caveat: {g.extraction}.")
    if g.audit:
        parts.append(f"Audit: {g.audit}.")
    return " ".join(parts)

