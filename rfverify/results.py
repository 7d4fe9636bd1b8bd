"""The one frozen result type of every check, and the report that collects them.

JSON, the CLI table, Markdown, HTML and the pytest layer only *render* these.
Nothing timing-dependent is serialised, so the same seed and profile give
byte-identical JSON.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from typing import Any, Iterable, Mapping, SupportsFloat

import numpy as np

from rfverify.exit_status import is_ok, report_exit_code
from rfverify.jsontypes import JSONRecord, JSONValue
from rfverify.messages import format_interval
from rfverify.text import plural

__all__ = ["Effect", "CheckResult", "Report", "STATUSES", "SCHEMA_VERSION", "format_number", "kernel_label",
           "JSONValue", "JSONRecord"]

STATUSES = ("pass", "fail", "error", "skip", "xfail")
#: Version of the JSON layout written by :meth:`Report.to_json` (``docs/reports.md``, "Schema changes":
#: 2 renamed ``checks[].name`` to ``check`` and ``p_value`` to ``pvalue``, the API's field names; 3 made each
#: check's ``details`` the fields of its measurement dataclass, documented per check in ``docs/details.md``).
SCHEMA_VERSION = 3


@dataclass(frozen=True)
class Effect:
    """An estimated effect with its confidence interval.

    ``detectable``: the smallest effect of this kind that the check detects
    with the stated power at its sample size (None where not meaningful).
    """

    name: str
    estimate: float
    low: float
    high: float
    confidence: float
    detectable: float | None = None
    power: float | None = None

    def to_dict(self) -> dict[str, object]:
        return {
            "name": self.name,
            "estimate": _num(self.estimate),
            "interval": [_num(self.low), _num(self.high)],
            "confidence": _num(self.confidence),
            "detectable": _num(self.detectable),
            "power": _num(self.power),
        }

    def __str__(self) -> str:
        return f"{self.name} {format_number(self.estimate)} [{format_number(self.low)}, {format_number(self.high)}]"


@dataclass(frozen=True)
class CheckResult:
    """The outcome of one check on one implementation."""

    check: str
    implementation: str
    status: str
    message: str
    statistic: float | None = None
    pvalue: float | None = None
    threshold: float | None = None
    effect: Effect | None = None
    alpha: float | None = None
    seed: int | None = None
    reproduce: str = ""
    details: JSONRecord = field(default_factory=dict)
    #: The plots the check declared for its ``details`` (:func:`rfverify.registry.register_check`).
    figures: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if self.status not in STATUSES:
            raise ValueError(f"status must be one of {STATUSES}, got {self.status!r}")
        from rfverify.text import NAME_LIMIT, clean  # plug-in text reaches every output: make it safe once

        object.__setattr__(self, "message", clean(self.message))
        object.__setattr__(self, "implementation", clean(self.implementation, NAME_LIMIT, one_line=True))
        object.__setattr__(self, "figures", tuple(str(f) for f in self.figures or ()))

    @property
    def ok(self) -> bool:
        return is_ok(self.status)

    def to_dict(self) -> dict[str, object]:
        return {
            "check": self.check,
            "status": self.status,
            "statistic": _num(self.statistic),
            "pvalue": _num(self.pvalue),
            "threshold": _num(self.threshold),
            "alpha": _num(self.alpha),
            "effect": self.effect.to_dict() if self.effect else None,
            "message": self.message,
            "seed": self.seed,
            "reproduce": self.reproduce,
            "details": _jsonable(self.details),
            "figures": list(self.figures),
        }

    def explain(self) -> str:
        """The failure message as every text rendering shows it: ``implementation [check]: STATUS — message``
        (the message in :func:`rfverify.messages.failure_message`'s shape), the effect with its interval
        and level, the p-value against its threshold, and ``reproduce: <command>``."""
        lines = [f"{self.implementation} [{self.check}]: {self.status.upper()} — {self.message}"]
        if self.effect is not None:
            e = self.effect
            lines.append(f"  effect: {e.name} {format_number(e.estimate)} {format_interval((e.low, e.high), e.confidence)}")
        if self.pvalue is not None and self.threshold is not None:
            lines.append(f"  p = {format_number(self.pvalue)} against alpha = {format_number(self.threshold)}")
        if self.reproduce:
            lines.append(f"  reproduce: {self.reproduce}")
        return "\n".join(lines)


#: What each kind's target is called in the header line (``| kernel rbf(gamma=0.5)``, ``| group Haar on O(8)``).
TARGET_WORD = {"feature-map": "kernel", "kernel": "kernel", "orthogonal": "group", "transform": "matrix",
               "quadrature": "integral"}


@dataclass(frozen=True)
class Report:
    """Every check's result for one implementation, with the configuration that produced them."""

    implementation: str
    kind: str
    #: What the implementation is held to, for every kind: a feature map's or a kernel's kernel, a sampler's group
    #: (``Haar on O(8)``), a transform's matrix, a quadrature rule's integral (JSON key ``target``).
    target: JSONRecord
    seed: int
    profile: str
    config: JSONRecord
    results: tuple[CheckResult, ...]
    version: str
    #: Held-out kernel-approximation metrics with intervals over seeds (feature maps; see
    #: :mod:`rfverify.metrics`), or None when not computed.  A measurement: never a verdict.
    metrics: JSONRecord | None = None

    def __post_init__(self) -> None:
        from rfverify.text import NAME_LIMIT, clean

        object.__setattr__(self, "implementation", clean(self.implementation, NAME_LIMIT, one_line=True))

    @property
    def kernel(self) -> JSONRecord:
        """The kernel a feature map or a kernel is held to: :attr:`target` under the name those kinds use."""
        return self.target

    @property
    def passed(self) -> bool:
        return all(r.ok for r in self.results)

    @property
    def exit_code(self) -> int:
        """0 all pass, 1 a check failed, 2 the plug-in could not be exercised (:mod:`rfverify.exit_status`)."""
        return report_exit_code(r.status for r in self.results)

    def __getitem__(self, check: str) -> CheckResult:
        for r in self.results:
            if r.check == check:
                return r
        raise KeyError(check)

    def to_dict(self) -> dict[str, object]:
        return {
            "schema_version": SCHEMA_VERSION,
            "rfverify_version": self.version,
            "implementation": self.implementation,
            "kind": self.kind,
            "target": _jsonable(self.target),
            "seed": self.seed,
            "profile": self.profile,
            "config": _jsonable(self.config),
            "passed": self.passed,
            **({"metrics": _jsonable(self.metrics)} if self.metrics is not None else {}),
            "checks": [r.to_dict() for r in self.results],
        }

    def to_json(self, **kw: Any) -> str:
        return json.dumps(self.to_dict(), indent=2, sort_keys=False, allow_nan=False, **kw) + "\n"

    def table(self) -> str:
        """A readable fixed-width table of the results."""
        head = (f"rfverify {self.version} — {self.kind} {self.implementation} | {TARGET_WORD.get(self.kind, 'target')} "
                f"{kernel_label(self.target)} | seed {self.seed} | profile {self.profile}")
        arrays = arrays_line(self.config.get("arrays") if isinstance(self.config, Mapping) else None)
        if arrays:
            head += f"\n{arrays}"
        rows = [("check", "status", "statistic", "adj. p", "alpha", "tolerance", "effect [interval] / why skipped")]
        for r in self.results:
            alpha, tolerance = split_threshold(r)
            note = str(r.effect) if r.effect else (_one_line(r.message) if r.status == "skip" else "")
            rows.append((r.check, r.status.upper(), format_number(r.statistic), format_number(r.pvalue), format_number(alpha), format_number(tolerance),
                         note))
        widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
        calls = self.config.get("calls") if isinstance(self.config, Mapping) else None
        notes = [f"declared: {n}" for n in (calls.get("notes") or [])] if isinstance(calls, Mapping) else []
        out = [head, *notes, ""]
        for i, row in enumerate(rows):
            out.append("  ".join(c.ljust(w) for c, w in zip(row, widths)).rstrip())
            if i == 0:
                out.append("  ".join("-" * w for w in widths))
        out.append(TABLE_LEGEND)
        out.append("")
        if self.metrics:
            out.append(_metrics_line(self.metrics))
        seen: dict[str, int] = {}
        for r in self.results:
            if r.status == "error" and r.message in seen:
                seen[r.message] += 1
                continue
            if r.status in ("fail", "error", "xfail"):  # an expected failure says what was found, too
                out.append(r.explain())
                if r.status == "error":
                    seen[r.message] = 0
        for msg, n in seen.items():
            if n:
                out.append(f"  (the same error stopped {n} more check{'s' if n > 1 else ''})")
        verdict = "PASSED" if self.passed else ("ERROR" if self.exit_code == 2 else "FAILED")
        n_fail = sum(r.status == "fail" for r in self.results)
        n_err = sum(r.status == "error" for r in self.results)
        out.append(f"{verdict}: {plural(len(self.results), 'check')}, {n_fail} failed, {plural(n_err, 'error')}")
        out.extend(f"  {line}" for line in self.coverage_lines())
        return "\n".join(out)

    def coverage_lines(self) -> list[str]:
        """Where the verdicts hold, for each check whose space was narrowed by the plug-in's refusals
        (:mod:`rfverify.refusals`): ``explore PASSED over <space>; refuses n_components < 2 (ValueError: …)``,
        and the statistical checks' corners set aside."""
        from rfverify.refusals import coverage_statement

        lines = []
        for r in self.results:
            space = r.details.get("space") if isinstance(r.details, Mapping) else None
            if isinstance(space, Mapping) and space.get("refused"):
                word = {"pass": "PASSED", "fail": "FAILED", "xfail": "XFAILED"}.get(r.status, r.status.upper())
                lines.append(f"{r.check} {word} {coverage_statement(space)}")
            corners = r.details.get("corners") if isinstance(r.details, Mapping) else None
            for c in corners if isinstance(corners, list) else ():
                if isinstance(c, Mapping) and c.get("status") == "xfail":
                    word = {"pass": "PASSED", "fail": "FAILED", "xfail": "XFAILED"}.get(r.status, r.status.upper())
                    lines.append(f"{r.check} {word} at the main configuration; expected failure at the corner "
                                 f"{c.get('where', '?')} ({c.get('reason', '')}): {str(c.get('message', ''))[:160]}")
                elif isinstance(c, Mapping) and c.get("status") == "refused":
                    lines.append(f"{r.check}: the corner {c.get('where', '?')} was set aside: {c.get('why', '')}")
                elif isinstance(c, Mapping) and c.get("status") == "moved":
                    lines.append(f"{r.check}: the corner {c.get('where', '?')} was judged at {c.get('to', '?')}: "
                                 f"the plug-in refuses it ({c.get('why', '')})")
        return lines


def arrays_line(arrays: object) -> str:
    """The header line of a plug-in that takes or returns other libraries' arrays (``config["arrays"]``,
    :class:`rfverify.arrays.ArrayRecord`): ``arrays: in torch float32 on cpu; out torch float32 on cpu (judged
    with float32 round-off)``; empty for numpy in and out."""
    if not isinstance(arrays, Mapping):
        return ""
    def one(seen: Iterable[object] | None) -> str:
        return ", ".join(f"{a.get('library')} {a.get('dtype')} on {a.get('device')}" for a in seen or ()
                         if isinstance(a, Mapping))
    ins, outs = one(arrays.get("inputs")), one(arrays.get("outputs"))
    if arrays.get("input", "numpy") == "numpy" and all(
            isinstance(a, Mapping) and a.get("library") == "numpy" for a in arrays.get("outputs") or ()):
        return ""
    dtypes = sorted({str(a.get("dtype")) for a in arrays.get("outputs") or () if isinstance(a, Mapping)})
    return (f"arrays: in {ins or arrays.get('input')}; out {outs or '-'}"
            + (f" (judged with {'/'.join(dtypes)} round-off)" if dtypes else ""))


#: Under the table: what its two less obvious columns hold.
TABLE_LEGEND = ("adj. p: the p-value adjusted for the check's sub-tests (Bonferroni, capped at 1), compared with alpha; "
                "tolerance: a deterministic check's round-off bound")


def split_threshold(r: CheckResult) -> tuple[float | None, float | None]:
    """``(alpha, tolerance)`` of a result: a statistical check's significance level, or a deterministic check's
    round-off tolerance (``threshold`` holds either; ``alpha`` is set only for statistical checks)."""
    if r.alpha is not None:
        return r.alpha, (r.threshold if r.threshold is not None and r.threshold != r.alpha else None)
    return None, r.threshold


def _one_line(text: str, limit: int = 100) -> str:
    """``text`` on one line, at most ``limit`` characters: cut at the last clause (``: `` or ``; ``) that fits."""
    text = " ".join(text.split())
    if len(text) <= limit:
        return text
    cut = max(text.rfind(": ", 0, limit), text.rfind("; ", 0, limit))
    return text[:cut] + " …" if cut > limit // 3 else text[: limit - 1] + "…"


def _metrics_line(metrics: JSONRecord) -> str:
    """One line of the held-out metrics for the table (mean [interval] each)."""
    if "error" in metrics:
        return f"metrics: not computed ({metrics['error']})"
    parts = []
    for key, label in (("rel_frobenius", "rel. Frobenius error"), ("max_abs", "max |K-K^|"),
                       ("mean_abs", "mean |K-K^|"), ("alignment", "alignment"),
                       ("target_alignment", "target alignment")):
        v = metrics.get(key)
        if isinstance(v, Mapping):
            lo, hi = (v.get("interval") or [None, None])[:2]
            parts.append(f"{label} {format_number(v.get('mean'))} [{format_number(lo)}, {format_number(hi)}]")
    return (f"metrics (held-out, m = {metrics.get('n_components')}, {metrics.get('seeds')} seeds, 95% t): "
            + "; ".join(parts) + "\n")


def kernel_label(k: JSONRecord) -> str:
    """A report's kernel as one label: ``rbf(gamma=0.5)``, or the bare name without parameters."""
    params = k.get("params") or {}
    if not params:
        return str(k.get("name"))
    return f"{k.get('name')}(" + ", ".join(f"{a}={b!r}" for a, b in params.items()) + ")"


def _num(v: SupportsFloat | None) -> float | str | None:
    if v is None:
        return None
    v = float(v)
    if math.isnan(v):
        return None
    if math.isinf(v):
        return "inf" if v > 0 else "-inf"
    return v


def format_number(v: SupportsFloat | str | None) -> str:
    """A number as every table and page shows it: 4 significant digits in [1e-3, 1e4), 3 outside, "" for None."""
    if v is None:
        return ""
    if isinstance(v, str):
        return v
    v = float(v)
    if v == 0:
        return "0"
    if math.isinf(v) or math.isnan(v):
        return str(v)
    if 1e-3 <= abs(v) < 1e4:
        return f"{v:.4g}"
    return f"{v:.3g}"


def _jsonable(obj: object) -> object:
    if isinstance(obj, Mapping):
        return {str(k): _jsonable(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_jsonable(v) for v in obj]
    if isinstance(obj, np.ndarray):
        return [_jsonable(v) for v in obj.tolist()]
    if isinstance(obj, (np.bool_, bool)):
        return bool(obj)
    if isinstance(obj, (np.integer,)):
        return int(obj)
    if isinstance(obj, (float, np.floating)):
        return _num(obj)
    return obj
