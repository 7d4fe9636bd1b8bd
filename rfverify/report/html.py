"""Self-contained HTML pages for reports: one per implementation, and an index.

Only a *renderer* of :class:`~rfverify.results.Report`: it is generic over
``Report.kind`` and the checks' ``details`` (plots come from
:mod:`rfverify.report.plots`, other details become tables).  Jinja2 with autoescape
on — implementation names, docstrings and messages are untrusted text — and a
Content-Security-Policy that allows no script at all.  Pages embed their plots
as inline SVG and their stylesheet, so one file is the whole page; the output
holds no timestamps, so the same reports render to the same bytes.
"""

from __future__ import annotations

import json
import math
import re
from typing import TYPE_CHECKING, Iterable, Mapping, Sequence, TypeGuard

from jinja2 import Environment, PackageLoader, StrictUndefined
from markupsafe import Markup

from rfverify.report.mathtext import math_html
from rfverify.report.plots import plots_for
from rfverify.results import CheckResult, JSONRecord, JSONValue, Report, format_number, kernel_label, split_threshold

if TYPE_CHECKING:
    from rfverify.report.claims_tables import ClaimLike

__all__ = ["render_report_page", "render_index_page", "page_filename", "verdict", "template_environment"]

STATUS_LABEL = {"pass": "PASS", "fail": "FAIL", "error": "ERROR", "skip": "SKIP", "xfail": "XFAIL"}
#: Lists longer than this are summarised in the details tables.
MAX_INLINE_LIST = 8


def template_environment() -> Environment:
    env = Environment(loader=PackageLoader("rfverify.report", "templates"), autoescape=True,
                      undefined=StrictUndefined, trim_blocks=True, lstrip_blocks=True,
                      keep_trailing_newline=True)
    env.filters["num"] = format_number
    env.filters["math"] = math_html  # $...$ spans as inline SVG formulas (rfverify.report.mathtext)
    return env


def page_filename(name: str) -> str:
    """A safe file stem for an implementation name (``module:Attr`` -> ``module.Attr``)."""
    stem = re.sub(r"[^A-Za-z0-9._-]+", "_", name.replace(":", ".")).strip("._") or "report"
    return stem


def verdict(report: Report) -> str:
    """``passed`` | ``failed`` | ``error`` for a report."""
    return {0: "passed", 1: "failed"}.get(report.exit_code, "error")


def _target_str(target: object) -> str:
    if isinstance(target, Mapping) and "name" in target:
        return kernel_label(target)
    return json.dumps(target, sort_keys=True, default=str)


def _value(v: object) -> str:
    """A detail value as short readable text."""
    if v is None:
        return "—"
    if isinstance(v, bool):
        return "yes" if v else "no"
    if isinstance(v, (int,)) and not isinstance(v, bool):
        return str(v)
    if isinstance(v, float):
        return format_number(v)
    if isinstance(v, str):
        return v
    if isinstance(v, Mapping):
        return "; ".join(f"{k} = {_value(x)}" for k, x in v.items())
    if isinstance(v, Sequence):
        items = list(v)
        nums = [x for x in items if isinstance(x, (int, float)) and not isinstance(x, bool)]
        if len(items) > MAX_INLINE_LIST:
            if len(nums) == len(items):
                finite = [float(x) for x in nums if math.isfinite(float(x))]
                if finite:
                    return f"{len(items)} values, {format_number(min(finite))} … {format_number(max(finite))}"
            return f"{len(items)} values"
        return "[" + ", ".join(_value(x) for x in items) + "]"
    return str(v)


def _is_record_list(v: object) -> TypeGuard[Sequence[JSONRecord]]:
    return (isinstance(v, Sequence) and not isinstance(v, str) and len(v) > 0
            and all(isinstance(x, Mapping) for x in v))


def _is_plain_list(v: object) -> TypeGuard[Sequence[JSONValue]]:
    return (isinstance(v, Sequence) and not isinstance(v, str) and len(v) >= 2
            and all(not isinstance(x, (Mapping, list, tuple)) for x in v))


def _detail_tables(details: JSONRecord) -> tuple[list[tuple[str, str]], list[dict[str, JSONValue]]]:
    """Scalars (key, text) and tables ({title, headers, rows}) from a details mapping.

    A list of records becomes a table; plain lists of the same length (per-pair or per-sub-test
    values: labels, exact, mean, half_width, p-values) become the columns of one table, labels first.
    """
    scalars: list[tuple[str, str]] = []
    tables: list[dict[str, JSONValue]] = []
    by_len: dict[int, list[str]] = {}
    for key, v in details.items():
        if _is_plain_list(v):
            by_len.setdefault(len(v), []).append(key)
    columns = {n: keys for n, keys in by_len.items() if len(keys) >= 2}
    in_table = {k for keys in columns.values() for k in keys}
    for n, keys in columns.items():
        keys = sorted(keys, key=lambda k: not all(isinstance(x, str) for x in details[k]))  # labels first
        rows = [[_value(details[k][i]) for k in keys] for i in range(n)]
        tables.append({"title": f"per item ({n})", "headers": [k.replace("_", " ") for k in keys], "rows": rows})
    for key, v in details.items():
        if key in in_table:
            continue
        if _is_record_list(v):
            headers: list[str] = []
            for rec in v:
                for h in rec:
                    if h not in headers:
                        headers.append(str(h))
            rows = [[_value(rec.get(h)) for h in headers] for rec in v]
            tables.append({"title": key.replace("_", " "), "headers": headers, "rows": rows})
        else:
            scalars.append((key.replace("_", " "), _value(v)))
    return scalars, tables


def _check_view(name: str, r: CheckResult) -> dict[str, object]:
    eff = r.effect
    effect = None
    if eff is not None:
        effect = {
            "name": eff.name,
            "estimate": format_number(eff.estimate),
            "interval": f"[{format_number(eff.low)}, {format_number(eff.high)}]",
            "confidence": f"{eff.confidence:.6g}",
            "detectable": format_number(eff.detectable) if eff.detectable is not None else "",
            "power": format_number(eff.power) if eff.power is not None else "",
        }
    details = dict(r.details) if isinstance(r.details, Mapping) else {}
    coverage = _coverage_view(details.pop("coverage", None), details.get("space_searched"))
    held = _held_view(details)
    scalars, tables = _detail_tables(details)
    plots = plots_for(details, r.figures, salt=f"{page_filename(name)}-{r.check}")
    return {
        "check": r.check,
        "anchor": "check-" + re.sub(r"[^A-Za-z0-9_-]+", "-", r.check),
        "status": r.status,
        "status_label": STATUS_LABEL.get(r.status, r.status.upper()),
        "message": r.message,
        "statistic": format_number(r.statistic),
        "pvalue": format_number(r.pvalue),
        "threshold": format_number(r.threshold),
        "alpha": format_number(split_threshold(r)[0]),
        "tolerance": format_number(split_threshold(r)[1]),
        "effect": effect,
        "reproduce": r.reproduce,
        "plots": [{"title": p.title, "caption": p.caption, "svg": Markup(p.svg)} for p in plots],
        "scalars": scalars,
        "tables": tables,
        "coverage": coverage,
        "held": held,
    }


def _held_view(details: JSONRecord) -> dict[str, object] | None:
    """Where the verdict holds when the plug-in refused part of the space (:mod:`rfverify.refusals`): the space
    searched, each refused rule with the plug-in's own words, the warning when most of it was refused, and the
    statistical corners moved or set aside."""
    space = details.get("space")
    rules = space.get("refused") if isinstance(space, Mapping) else None
    corners = [c for c in details.get("corners") or [] if isinstance(c, Mapping)
               and c.get("status") in ("refused", "moved")] if isinstance(details.get("corners"), list) else []
    if not rules and not corners:
        return None
    out: dict[str, JSONValue] = {"rules": [], "corners": [], "warning": "", "searched": ""}
    if isinstance(space, Mapping) and rules:
        out["searched"] = str(space.get("searched", ""))
        out["rules"] = [{"rule": str(r.get("rule")), "said": f"{r.get('exception')}: {r.get('message')}",
                         "action": str(r.get("action")), "count": r.get("configurations")} for r in rules
                        if isinstance(r, Mapping)]
        share = float(space.get("refused_share") or 0.0)
        if share > 0.5:
            out["warning"] = (f"{space.get('configurations_refused')} of {space.get('configurations_tried')} explored "
                              "configurations were refused: the verdict covers little of the space")
    out["corners"] = [{"where": str(c.get("where")), "to": str(c.get("to", "")), "why": str(c.get("why", ""))}
                      for c in corners]
    return out


def _coverage_view(rows: object, space: object) -> dict[str, object] | None:
    """An ``explore`` check's coverage (:func:`rfverify.explore.coverage`): where in the searched space the
    property held and where it broke — one row per cell (d band x dtype, norm, …), shown above the details."""
    if not _is_record_list(rows):
        return None
    headers: list[str] = []
    for rec in rows:
        for h in rec:
            if h not in headers:
                headers.append(str(h))
    body = [{"cells": [_value(rec.get(h)) for h in headers], "broken": bool(rec.get("failed"))} for rec in rows]
    return {"headers": headers, "rows": body, "space": "" if space is None else str(space),
            "broken": sum(1 for b in body if b["broken"]), "cells": len(body)}


def _flatten(prefix: str, obj: object, out: list[tuple[str, str]]) -> None:
    if isinstance(obj, Mapping) and obj:
        for k, v in obj.items():
            _flatten(f"{prefix}.{k}" if prefix else str(k), v, out)
    else:
        out.append((prefix, _value(obj)))


def render_report_page(name: str, report: Report, *, provenance: Mapping[str, str],
                       doc: str = "", index_href: str | None = "index.html") -> str:
    """The HTML page of one implementation's report (untrusted text is escaped)."""
    counts = {s: sum(r.status == s for r in report.results) for s in STATUS_LABEL}
    from rfverify.metrics import metrics_rows

    metrics = report.metrics if isinstance(report.metrics, Mapping) else None
    config: list[tuple[str, str]] = []
    _flatten("", report.config, config)
    return template_environment().get_template("report.html.j2").render(
        title=f"{name} — rfverify report",
        name=name,
        doc=doc,
        report=report,
        verdict=verdict(report),
        counts=counts,
        target=_target_str(report.target),
        config=config,
        checks=[_check_view(name, r) for r in report.results],
        metrics=metrics,
        metrics_rows=metrics_rows(metrics) if metrics else [],
        provenance=provenance,
        index_href=index_href,
    )


def _claim_rows(claims: Sequence[ClaimLike] | None) -> tuple[list[dict[str, JSONValue]], dict[str, str]]:
    """The claims table's rows (every key the template reads, a short evidence, the qualifier) and the rules cited."""
    from rfverify.report.claims_tables import claim_dicts, claim_qualifier, first_sentence

    claim_rows = claim_dicts(claims or [])
    claim_rules: dict[str, str] = {}
    for c in claim_rows:
        for key in ("rule", "rule_text", "reproduce", "method"):
            c.setdefault(key, "")
        c.setdefault("finding", {})
        c["short"] = first_sentence(str(c.get("evidence", "")))
        c["qualifier"] = claim_qualifier(c).strip(" ()")
        if c.get("rule"):
            claim_rules[c["rule"]] = c.get("rule_text", "")
    return claim_rows, claim_rules


def render_index_page(entries: Iterable[tuple[str, Report]], *, seed: int, profile: str,
                      provenance: Mapping[str, str], claims: Sequence[ClaimLike] | None = None,
                      docs: Mapping[str, str] | None = None, command: str = "",
                      calibration: JSONRecord | None = None,
                      mutation: JSONRecord | None = None,
                      ecosystem: JSONRecord | None = None) -> str:
    """The index: verdict matrix (implementations x checks), the calibration summary (if any), the ecosystem
    table's summary and the link to the mutation-testing report (if any), and the claims table."""
    entries = list(entries)
    groups: dict[str, dict[str, JSONValue]] = {}  # one matrix per kind: kinds have different checks
    rows = []
    for name, rep in entries:
        group = groups.setdefault(rep.kind, {"kind": rep.kind, "checks": [], "rows": []})
        for r in rep.results:
            if r.check not in group["checks"]:
                group["checks"].append(r.check)
    for name, rep in entries:
        group = groups[rep.kind]
        by = {r.check: r for r in rep.results}
        cells = []
        for c in group["checks"]:
            res = by.get(c)
            cells.append(None if res is None else {"status": res.status,
                                                   "label": STATUS_LABEL.get(res.status, res.status),
                                                   "message": res.message, "anchor": "check-" + re.sub(r"[^A-Za-z0-9_-]+", "-", c)})
        row = {"name": name, "href": page_filename(name) + ".html", "kind": rep.kind,
               "implementation": rep.implementation, "target": _target_str(rep.target),
               "verdict": verdict(rep), "cells": cells, "doc": (docs or {}).get(name, "")}
        group["rows"].append(row)
        rows.append(row)
    totals = {v: sum(r["verdict"] == v for r in rows) for v in ("passed", "failed", "error")}
    from rfverify.report.claims_tables import verdict_counts

    claim_rows, claim_rules = _claim_rows(claims)
    claim_counts = verdict_counts(claim_rows)
    return template_environment().get_template("index.html.j2").render(
        title="rfverify correctness reports",
        seed=seed,
        profile=profile,
        provenance=provenance,
        groups=list(groups.values()),
        rows=rows,
        totals=totals,
        claims=claim_rows,
        claims_evaluated=claims is not None,
        claim_counts=claim_counts,
        claim_rules=dict(sorted(claim_rules.items())),
        command=command,
        calibration=calibration,
        mutation=mutation,
        ecosystem=ecosystem,
    )
