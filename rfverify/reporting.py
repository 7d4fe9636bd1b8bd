"""Write reports: one JSON per implementation and a Markdown summary.

The JSON layout is versioned (``schema_version``) and contains no timings, so
the same seed and profile give byte-identical files.
"""

from __future__ import annotations

import platform
import sys
from pathlib import Path
from typing import Iterable

from .results import Report, _fmt

__all__ = ["write_reports", "markdown_summary", "provenance"]


def provenance() -> dict[str, str]:
    import numpy
    import scipy

    from . import __version__

    return {
        "rfverify": __version__,
        "numpy": numpy.__version__,
        "scipy": scipy.__version__,
        "python": platform.python_version(),
        "platform": f"{sys.platform}-{platform.machine()}",
    }


def markdown_summary(reports: Iterable[tuple[str, Report]]) -> str:
    """A verdict matrix (implementations x checks) fit for a pull-request comment."""
    reports = list(reports)
    checks: list[str] = []
    for _, r in reports:
        for res in r.results:
            if res.check not in checks:
                checks.append(res.check)
    icon = {"pass": "pass", "fail": "**FAIL**", "error": "**ERROR**", "skip": "skip", "xfail": "xfail"}
    lines = ["| implementation | kernel | verdict | " + " | ".join(checks) + " |",
             "|---|---|---|" + "---|" * len(checks)]
    for name, r in reports:
        cells = []
        for c in checks:
            try:
                cells.append(icon[r[c].status])
            except KeyError:
                cells.append("")
        kernel = r.kernel.get("name", "")
        verdict = "passed" if r.passed else "**failed**"
        lines.append(f"| {name} | {kernel} | {verdict} | " + " | ".join(cells) + " |")
    lines.append("")
    for name, r in reports:
        for res in r.results:
            if res.status in ("fail", "error"):
                lines.append(f"- **{name} / {res.check}**: {res.message}  \n  `{res.reproduce}`")
    return "\n".join(lines) + "\n"


def write_reports(out: Path, reports: list[tuple[str, Report]], *, seed: int, profile: str) -> list[Path]:
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for name, report in reports:
        path = out / f"{name}.json"
        path.write_text(report.to_json(), encoding="utf-8")
        written.append(path)
    prov = provenance()
    head = (f"# rfverify correctness report\n\nseed {seed}, profile {profile}; "
            + ", ".join(f"{k} {v}" for k, v in prov.items()) + "\n\n")
    md = out / "SUMMARY.md"
    md.write_text(head + markdown_summary(reports), encoding="utf-8")
    written.append(md)
    return written


_fmt  # re-exported for renderers
