"""The verdict vocabulary of the published-claims table, and the one rule that turns evidence into a verdict.

Six verdicts, in the order a reader should worry about them least to most:

``holds``
    the statement as printed passes its test (exact arithmetic, high precision or a Monte Carlo interval).
``holds under a stated condition``
    the statement as printed fails somewhere, but it holds once a condition the paper omits is added
    (the condition is named, a counterexample outside it is given, and the statement is re-tested inside it).
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
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

__all__ = ["HOLDS", "HOLDS_UNDER_CONDITION", "CORRECTED", "FALSE", "NOT_REPRODUCED", "NOT_CHECKABLE",
           "VERDICTS", "RULES", "Finding", "judge"]

HOLDS = "holds"
HOLDS_UNDER_CONDITION = "holds under a stated condition"
CORRECTED = "false as printed; corrected form holds"
FALSE = "false"
NOT_REPRODUCED = "not reproduced"
NOT_CHECKABLE = "not checkable here"

#: Every verdict, from "nothing to fix" to "cannot say".
VERDICTS = (HOLDS, HOLDS_UNDER_CONDITION, CORRECTED, FALSE, NOT_REPRODUCED, NOT_CHECKABLE)

#: The rule behind each verdict, one line each (shown with every claim and in the documentation).
RULES = {
    "R1": "the printed statement passes its test",
    "R2": "the printed statement fails, and passes under the named condition",
    "R3": "the printed statement fails (counterexample), and the named correction passes its test",
    "R4": "the printed statement fails (counterexample), and no tested correction passes",
    "R5": "empirical claim not confirmed by our experiment (scale and power stated)",
    "R6": "the statement cannot be tested by computation here (reason stated)",
}


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

    def __post_init__(self) -> None:
        # numpy comparisons give numpy.bool_: store plain bools so the finding serialises to JSON
        for name in ("printed_holds", "holds_under_condition", "correction_holds", "empirical"):
            v = getattr(self, name)
            if v is not None and not isinstance(v, bool):
                object.__setattr__(self, name, bool(v))

    def to_dict(self) -> dict[str, Any]:
        """Every field that says something (``printed_holds`` always; unset fields and ``empirical=False`` left out);
        ``Finding(**f.to_dict()) == f``."""
        return {k: v for k, v in asdict(self).items()
                if k == "printed_holds" or not (v is None or (k == "empirical" and v is False))}


def judge(f: Finding) -> tuple[str, str]:
    """``(verdict, rule id)`` for a finding, by the rules R1–R6 of the module docstring."""
    if f.uncheckable:
        return NOT_CHECKABLE, "R6"
    if f.printed_holds is None:
        raise ValueError("a finding must say whether the printed statement passed (or why it is uncheckable)")
    if f.empirical and not f.printed_holds:
        if not f.power:
            raise ValueError("'not reproduced' needs the experiment's scale and power (Finding.power)")
        return NOT_REPRODUCED, "R5"
    if f.printed_holds:
        return HOLDS, "R1"
    if not f.counterexample:
        raise ValueError("a printed statement that fails needs its counterexample (Finding.counterexample)")
    if f.condition and f.holds_under_condition:
        return HOLDS_UNDER_CONDITION, "R2"
    if f.correction and f.correction_holds:
        return CORRECTED, "R3"
    return FALSE, "R4"
