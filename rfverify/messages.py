"""The one shape of a failure message, used by every check (through :meth:`rfverify.registry.BaseContext.fail`).

A failure message says, in this order and with these labels:

* the **headline** — which property broke, in a few words (``not orthogonal``, ``biased``);
* ``observed:`` what was measured, with its interval and the interval's level when the check has one
  (``0.4987 [0.4953, 0.5021] (99.95% interval)``);
* ``expected:`` what the property requires, with the tolerance, bound or alpha it was held to;
* ``where:`` the smallest inputs / configuration at which it broke (a pair, a draw, a width, a witness);
* ``likely cause:`` the diagnosis, when the check can tell (a scale error, a missing sign correction).

Several independent problems found by one check are numbered ``(1) observed: ...; expected: ... (2) ...``.
The implementation's name and the command that reproduces the failure are not part of the message:
every :class:`rfverify.results.CheckResult` carries them, and every rendering adds them the same way
(:meth:`~rfverify.results.CheckResult.explain`, the table, the JSON's ``reproduce``, the HTML page and
the Markdown summary), in the array-api-tests style ``X=…, but should be Y [f(args)]``.

>>> print(failure_message("not normalised", "k(x, x) = 2", "1 ± 1e-15", where="x = [0.5, 1]",
...                       cause="a scaled kernel (2 k)?"))
not normalised — observed: k(x, x) = 2; expected: 1 ± 1e-15; where: x = [0.5, 1]; likely cause: a scaled kernel (2 k)?
>>> print(failure_message("biased", "mean 0.5012", "0.6065", interval=(0.4987, 0.5037), level=0.9995))
biased — observed: mean 0.5012 [0.4987, 0.5037] (99.95% interval); expected: 0.6065
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Sequence

__all__ = ["Finding", "failure_message", "format_interval", "LABELS"]

#: The labels every failure message uses, in order (tests and readers may rely on them).
LABELS = ("observed:", "expected:", "where:", "likely cause:")


@dataclass(frozen=True)
class Finding:
    """One observed-vs-expected discrepancy.

    ``interval``: (low, high) of the observed value at confidence ``level`` (both or neither);
    ``evidence``: the test's numbers behind the observation (``p = 2e-40; 20 of 24 pairs reject``), shown
    in parentheses after it; ``where``: the smallest input or configuration that shows it; ``cause``: the
    likely cause, if known.
    """

    observed: str
    expected: str
    interval: tuple[float, float] | None = None
    level: float | None = None
    where: str = ""
    cause: str = ""
    evidence: str = ""

    def __post_init__(self) -> None:
        for label, text in (("observed", self.observed), ("expected", self.expected)):
            if not isinstance(text, str) or not text.strip():
                raise ValueError(f"a failure message needs a non-empty {label} text, got {text!r}")
        if (self.interval is None) != (self.level is None):
            raise ValueError("give an interval together with its level (confidence), or neither")
        if self.interval is not None:
            if len(self.interval) != 2:
                raise ValueError(f"interval must be (low, high), got {self.interval!r}")
            if not 0.0 < float(self.level) < 1.0:  # type: ignore[arg-type]
                raise ValueError(f"interval level must be a confidence in (0, 1), got {self.level!r}")

    def render(self) -> str:
        obs = self.observed.strip()
        if self.interval is not None:
            obs += " " + format_interval(self.interval, self.level)  # type: ignore[arg-type]
            if self.evidence.strip():
                obs = obs[:-1] + f"; {self.evidence.strip()})"
        elif self.evidence.strip():
            obs += f" ({self.evidence.strip()})"
        parts = [f"observed: {obs}", f"expected: {self.expected.strip()}"]
        if self.where.strip():
            parts.append(f"where: {self.where.strip()}")
        if self.cause.strip():
            parts.append(f"likely cause: {_strip_lead(self.cause)}")
        return "; ".join(parts)


def format_interval(interval: tuple[float, float], level: float) -> str:
    """``[low, high] (99.95% interval)``: four significant digits, the level as a percentage."""
    lo, hi = (float(v) for v in interval)
    return f"[{_num(lo)}, {_num(hi)}] ({_num(100.0 * float(level), 6)}% interval)"


def failure_message(headline: str, observed: str | None = None, expected: str | None = None, *,
                    interval: tuple[float, float] | None = None, level: float | None = None, evidence: str = "",
                    where: str = "", cause: str = "", findings: Sequence[Finding] = (), note: str = "") -> str:
    """The failure message of a check: ``headline — observed: …; expected: …; where: …; likely cause: …``.

    Give either ``observed`` and ``expected`` (with the optional ``interval``/``level``, ``evidence``,
    ``where`` and ``cause`` of that single finding) or a non-empty ``findings`` list (several problems;
    ``where`` and ``cause`` then apply to all of them and follow the list; with one finding they are
    merged into it).  ``note``: anything else worth saying (how many other cases broke, what was still
    exact), appended last.
    """
    if not isinstance(headline, str) or not headline.strip():
        raise ValueError(f"a failure message needs a headline, got {headline!r}")
    single = observed is not None or expected is not None
    if single and findings:
        raise ValueError("give observed/expected or findings, not both")
    if single:
        if observed is None or expected is None:
            raise ValueError("a failure message needs both observed and expected")
        findings = [Finding(observed, expected, interval, level, where, cause, evidence)]
        where = cause = ""
    elif interval is not None or level is not None or evidence:
        raise ValueError("interval/level/evidence belong to a single finding (pass them in each Finding)")
    if not findings:
        raise ValueError("a failure message needs observed and expected (or findings)")
    findings = list(findings)
    if len(findings) == 1 and (where.strip() or cause.strip()):
        f = findings[0]
        findings = [replace(f, where=_join(f.where, where), cause=_join(f.cause, cause))]
        where = cause = ""
    if len(findings) == 1:
        body = findings[0].render()
    else:
        body = f"{len(findings)} problems: " + " ".join(f"({i}) {f.render()}" for i, f in enumerate(findings, 1))
    tail = []
    if where.strip():
        tail.append(f"where: {where.strip()}")
    if cause.strip():
        tail.append(f"likely cause: {_strip_lead(cause)}")
    if note.strip():
        tail.append(_strip_lead(note))
    return f"{headline.strip()} — " + "; ".join([body, *tail])


def _join(a: str, b: str) -> str:
    return "; ".join(t.strip() for t in (a, b) if t.strip())


def _strip_lead(text: str) -> str:
    """Drop a leading separator a diagnosis helper may carry (``"; ..."``, ``" — ..."``)."""
    return text.strip().lstrip(";—:,").strip()


def _num(v: float, digits: int = 4) -> str:
    if math.isnan(v) or math.isinf(v):
        return str(v)
    return f"{v:.{digits}g}"
