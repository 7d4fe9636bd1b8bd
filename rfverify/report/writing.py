"""Write reports: JSON and an HTML page per implementation, an index, and a Markdown summary.

The JSON layout is versioned (``schema_version``; documented in
``docs/reports.md``) and contains no timings, so the same seed and profile give
byte-identical files.  Files written into the output directory:

* ``<name>.json`` — :meth:`Report.to_dict` plus ``provenance``;
* ``<name>.html`` — the self-contained page (:mod:`rfverify.report.html`);
* ``index.json`` / ``index.html`` — every implementation's verdict and the published claims;
* ``SUMMARY.md`` — the verdict matrix for a pull-request comment.
"""

from __future__ import annotations

import contextlib
import json
import os
from pathlib import Path
from types import SimpleNamespace
from typing import TYPE_CHECKING, Iterable, Iterator, Mapping, Sequence

from rfverify.report.provenance import provenance
from rfverify.results import JSONRecord, JSONValue, Report
from rfverify.text import markdown_code, markdown_inline

if TYPE_CHECKING:
    from rfverify.report.claims_tables import ClaimLike

__all__ = ["write_reports", "markdown_summary", "provenance", "report_document", "index_document",
           "INDEX_SCHEMA_VERSION", "atomic_write"]


def atomic_write(path: Path | str, text: str) -> Path:
    """Write ``text`` (UTF-8, ``\\n`` line ends) to ``path`` through a temporary file in the same directory and
    :func:`os.replace`: a concurrent reader sees the old file or the new one, never half of one."""
    path = Path(path)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o666)
    try:
        with open(fd, "w", encoding="utf-8", newline="\n") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    return path


@contextlib.contextmanager
def _locked(out: Path) -> Iterator[None]:
    """Hold a lock on the report directory itself (``fcntl.flock`` on its descriptor: no lock file left
    behind; no lock where there is no fcntl): one run writes and merges the index at a time."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - Windows
        yield
        return
    fd = os.open(out, os.O_RDONLY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # releases the lock


def _report_from_document(doc: JSONRecord) -> Report:
    """A report written earlier into the directory, read back for the index (verdicts, messages, ids)."""
    from dataclasses import fields

    from rfverify.results import SCHEMA_VERSION, CheckResult

    names = {f.name for f in fields(CheckResult)} - {"check", "implementation", "effect", "details"}
    if doc.get("schema_version") != SCHEMA_VERSION:  # an older layout: not merged (its keys differ)
        raise ValueError(f"report schema {doc.get('schema_version')!r}, not {SCHEMA_VERSION}")
    results = tuple(CheckResult(check=c["check"], implementation=doc["implementation"],
                                **{k: c.get(k) for k in names if k in c}) for c in doc["checks"])
    return Report(implementation=doc["implementation"], kind=doc["kind"], target=doc.get("target") or {},
                  seed=doc["seed"], profile=doc["profile"], config=doc.get("config") or {}, results=results,
                  version=doc.get("rfverify_version", ""), metrics=doc.get("metrics"))


def _earlier(out: Path) -> tuple[list[tuple[str, Report]], dict[str, str], list[ClaimLike] | None]:
    """What an earlier run left in ``out``'s index: its reports in index order, their one-line descriptions
    and its claims (None if none).  Entries whose JSON is gone or unreadable are dropped."""
    try:
        index = json.loads((out / "index.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return [], {}, None
    if not isinstance(index, dict) or index.get("schema_version") != INDEX_SCHEMA_VERSION:
        return [], {}, None
    kept, docs = [], {}
    for entry in index.get("reports") or []:
        try:
            doc = json.loads((out / entry["json"]).read_text(encoding="utf-8"))
            kept.append((entry["name"], _report_from_document(doc)))
            if isinstance(entry.get("description"), str):
                docs[entry["name"]] = entry["description"]
        except (OSError, ValueError, KeyError, TypeError):
            continue
    claims = index.get("claims")
    return kept, docs, ([_Claim(**c) for c in claims] if isinstance(claims, list) else None)


def _merged(earlier: list[tuple[str, Report]], new: list[tuple[str, Report]]) -> list[tuple[str, Report]]:
    """The index after a run into a directory that held ``earlier``: an entry this run rewrote keeps its
    place, and entries new to the index follow in this run's order.

    >>> _merged([("a", 1), ("b", 2), ("c", 3)], [("b", 20), ("d", 40)])
    [('a', 1), ('b', 20), ('c', 3), ('d', 40)]
    """
    fresh = dict(new)
    seen = {name for name, _ in earlier}
    return [(name, fresh.get(name, r)) for name, r in earlier] + [(n, r) for n, r in new if n not in seen]


class _Claim(SimpleNamespace):
    """An evaluated claim read back from an earlier index (the renderers read attributes or ``to_dict()``)."""

    def to_dict(self) -> dict[str, object]:
        return dict(vars(self))

#: Version of the layout of ``index.json`` (the per-implementation files carry Report's ``schema_version``).
INDEX_SCHEMA_VERSION = 1


def markdown_summary(reports: Iterable[tuple[str, Report]]) -> str:
    """A verdict matrix (implementations x checks) fit for a pull-request comment."""
    reports = list(reports)
    checks: list[str] = []
    for _, r in reports:
        for res in r.results:
            if res.check not in checks:
                checks.append(res.check)
    icon = {"pass": "pass", "fail": "**FAIL**", "error": "**ERROR**", "skip": "skip", "xfail": "xfail"}
    lines = ["| implementation | held to | verdict | " + " | ".join(checks) + " |",
             "|---|---|---|" + "---|" * len(checks)]
    for name, r in reports:
        cells = []
        for c in checks:
            try:
                cells.append(icon[r[c].status])
            except KeyError:
                cells.append("")
        kernel = r.target.get("name", "")
        verdict = "passed" if r.passed else "**failed**"
        lines.append(f"| {_md(name)} | {_md(str(kernel))} | {verdict} | " + " | ".join(cells) + " |")
    lines.append("")
    for name, r in reports:
        for res in r.results:
            if res.status in ("fail", "error"):
                lines.append(f"- **{_md(name)} / {_md(res.check)}** ({markdown_code(res.implementation)}): "
                             f"{res.status.upper()} — {_md(res.message)}  \n  reproduce: "
                             f"{markdown_code(res.reproduce or '')}")
    coverage = [(name, line) for name, r in reports for line in r.coverage_lines()]
    if coverage:  # where the verdicts hold: the regions the plug-ins refused (rfverify.refusals)
        lines += ["", "Where the verdicts hold (configurations the plug-ins refused were set aside):"]
        lines += [f"- **{_md(name)}**: {_md(line)}" for name, line in coverage]
    return "\n".join(lines) + "\n"


def _md(text: str) -> str:
    """Untrusted text for a Markdown table cell or list item: no pipes, no line breaks, no raw HTML, and link or
    image syntax (``[click](javascript:...)``) shown as typed, never live (:func:`rfverify.text.markdown_inline`)."""
    return markdown_inline(text)


def report_document(report: Report, prov: Mapping[str, str] | None = None) -> dict[str, object]:
    """The per-implementation JSON document: :meth:`Report.to_dict` with ``provenance`` after the version."""
    doc: dict[str, JSONValue] = {}
    for key, value in report.to_dict().items():
        doc[key] = value
        if key == "rfverify_version":
            doc["provenance"] = dict(prov if prov is not None else provenance())
    return doc


def index_document(reports: Sequence[tuple[str, Report]], *, seed: int, profile: str,
                   claims: Sequence[ClaimLike] | None = None, prov: Mapping[str, str] | None = None,
                   calibration: JSONRecord | None = None, out: Path | None = None,
                   docs: Mapping[str, str] | None = None) -> dict[str, object]:
    """``index.json``: every implementation's verdict per check and one-line description (``docs``; kept for
    the next run into the same directory), the evaluated claims (or null), and the
    summary of a calibration found in ``calibration/`` (or null; see :func:`rfverify.report.calibration_pages.calibration_summary`)."""
    from rfverify.report.html import page_filename, verdict

    return {
        "schema_version": INDEX_SCHEMA_VERSION,
        "seed": seed,
        "profile": profile,
        "provenance": dict(prov if prov is not None else provenance()),
        "reports": [{
            "name": name,
            "implementation": r.implementation,
            "kind": r.kind,
            "verdict": verdict(r),
            "exit_code": r.exit_code,
            "json": page_filename(name) + ".json",
            "html": page_filename(name) + ".html",
            "checks": {res.check: res.status for res in r.results},
            "description": (docs or {}).get(name, ""),
        } for name, r in reports],
        "claims": None if claims is None else [c.to_dict() if hasattr(c, "to_dict") else dict(c) for c in claims],
        "calibration": None if calibration is None else dict(calibration),
        "ecosystem": load_ecosystem_summary(out) if out is not None else None,
    }


def ecosystem_line(e: JSONRecord) -> str:
    """The Markdown section that links the ecosystem table."""
    caught = ", ".join(f"{k} {v}" for k, v in e["caught"].items()) or "none"
    return (f"## The ecosystem\n\nThe field's libraries as published: [{e['markdown']}]({e['markdown']}) — "
            f"{e['false_alarms']} false alarms in {e['correct_runs']} runs of {e['correct_entries']} correct entries "
            f"({e['seeds']} seeds, profile {e['profile']}); defects caught: {caught}; {e['wrappers']} entries need "
            "a wrapper.")


def load_ecosystem_summary(out: Path | str | None) -> dict[str, object] | None:
    """The summary of ``ecosystem.json`` in ``out`` (written by ``rfverify ecosystem --out OUT``), or None."""
    if out is None:
        return None
    path = Path(out) / "ecosystem.json"
    try:
        table = json.loads(path.read_text(encoding="utf-8"))
        s = dict(table["summary"])
    except (OSError, ValueError, KeyError, TypeError):
        return None
    seeds = s.get("seeds") or []
    return {"markdown": "ecosystem.md", "json": "ecosystem.json", "profile": s.get("profile"),
            "seeds": len(seeds), "false_alarms": s.get("false_alarms"), "correct_runs": s.get("correct_runs"),
            "correct_entries": s.get("correct_entries"), "caught": s.get("caught", {}),
            "wrappers": len(s.get("wrappers", [])), "not_installed": s.get("not_installed", [])}


def _claims_section(claims: Sequence[ClaimLike]) -> str:
    from rfverify.report.claims_tables import counts_line

    head = f"## Published claims\n\n{counts_line(claims)}"
    return (head + "\n\n<details><summary>claims table</summary>\n\n" + claims_markdown(list(claims))
            + "\n</details>\n")


def write_reports(out: Path, reports: list[tuple[str, Report]], *, seed: int, profile: str,
                  claims: Sequence[ClaimLike] | None = None, docs: Mapping[str, str] | None = None,
                  html: bool = True, command: str = "", merge: bool = True) -> list[Path]:
    """Write every file of a report run into ``out`` (see the module docstring); returns the paths.

    ``claims``: the evaluated published claims (None: not evaluated in this run); ``docs``: a
    one-line description per implementation name for the index; ``command``: the command that
    regenerates the directory, shown on the index page.

    Every file is written atomically (:func:`atomic_write`) under the directory's lock; the index keeps the
    implementations an earlier run wrote into ``out`` (and its claims when this run evaluated none), so two
    runs into one directory both appear in it.  ``merge=False`` (``rfverify report --all``: the whole zoo)
    makes this run's implementations the whole index.
    """
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    with _locked(out):
        return _write_reports(out, reports, seed=seed, profile=profile, claims=claims, docs=docs, html=html,
                              command=command, merge=merge)


def _write_reports(out: Path, reports: list[tuple[str, Report]], *, seed: int, profile: str,
                   claims: Sequence[ClaimLike] | None, docs: Mapping[str, str] | None, html: bool,
                   command: str, merge: bool) -> list[Path]:
    written = []
    prov = provenance()

    def put(name: str, text: str) -> None:
        written.append(atomic_write(out / name, text))

    for name, report in reports:
        from rfverify.report.html import page_filename

        stem = page_filename(name)
        put(f"{stem}.json", json.dumps(report_document(report, prov), indent=2, allow_nan=False) + "\n")
        if html:
            from rfverify.report.html import render_report_page

            put(f"{stem}.html", render_report_page(name, report, provenance=prov, doc=(docs or {}).get(name, "")))
    from rfverify.report.calibration_pages import load_calibration_summary

    earlier, kept_docs, kept_claims = _earlier(out) if merge else ([], {}, None)
    reports = _merged(earlier, list(reports))
    docs = {**kept_docs, **(docs or {})}
    if claims is None:
        claims = kept_claims

    calibration = load_calibration_summary(out)  # written by `rfverify calibrate --out OUT/calibration`
    ecosystem = load_ecosystem_summary(out)  # written by `rfverify ecosystem --out OUT`
    mutation = mutation_summary(out)  # written by `python .ci/mutation.py report`
    put("index.json", json.dumps(index_document(reports, seed=seed, profile=profile, claims=claims, prov=prov,
                                                calibration=calibration, out=out, docs=docs),
                                 indent=2, allow_nan=False) + "\n")
    if html:
        from rfverify.report.html import render_index_page

        put("index.html", render_index_page(reports, seed=seed, profile=profile, provenance=prov, claims=claims,
                                            calibration=calibration, mutation=mutation, ecosystem=ecosystem,
                                            docs=docs, command=command))
    n_fail = sum(not r.passed for _, r in reports)
    head = (f"# rfverify correctness report\n\n**{len(reports) - n_fail} of {len(reports)} implementations "
            f"pass** — seed {seed}, profile {profile}; "
            + ", ".join(f"{k} {v}" for k, v in prov.items()) + "\n\n")
    tail = "\n" + _claims_section(claims) if claims is not None else ""
    if calibration is not None:
        tail += (f"\n## Calibration\n\nFalse-alarm rates and power: [{calibration['markdown']}]({calibration['markdown']}) "
                 f"({calibration['flags']} flags; {calibration['settings']}).\n")
    if ecosystem is not None:
        tail += "\n" + ecosystem_line(ecosystem) + "\n"
    if mutation is not None:
        tail += (f"\n## Mutation testing\n\nMutants of the verdict-deciding modules: [{mutation['markdown']}]"
                 f"({mutation['markdown']}) ({mutation['headline']}).\n")
    put("SUMMARY.md", head + markdown_summary(reports) + tail)
    return written


#: The mutation-testing report `python .ci/mutation.py report` writes next to the index.
MUTATION_REPORT = "mutation.md"


def mutation_summary(out: Path) -> dict[str, str] | None:
    """The link to ``OUT/mutation.md`` and its headline ("N mutants, K killed, ... score S%"), or None if absent."""
    path = Path(out) / MUTATION_REPORT
    if not path.exists():
        return None
    headline = ""
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("Total:"):
            headline = line[len("Total:"):].replace("*", "").strip().rstrip(".")  # the page adds its own stop
            break
    return {"markdown": MUTATION_REPORT, "headline": headline}



def claims_markdown(claims: Sequence[ClaimLike]) -> str:
    """The claims table as Markdown: id, claim, method, verdict, one-sentence evidence
    (:func:`rfverify.report.claims_tables.claims_markdown`)."""
    from rfverify.report.claims_tables import claims_markdown as _markdown

    return _markdown(claims)
