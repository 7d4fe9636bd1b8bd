"""The published-claims table in three renderings: terminal (wrapped at 120 columns), Markdown and LaTeX.

Every rendering shows the same columns — id, claim (where it is printed and the statement), method,
verdict and evidence — and takes evaluated claims as objects with ``to_dict()`` or as plain dicts (the
JSON of ``rfverify claims --json``), so it needs nothing from the studies layer.  Markdown and LaTeX
carry the first sentence of the evidence (the full text is in the JSON and the HTML page); the terminal
rendering carries all of it, wrapped.
"""

from __future__ import annotations

import re
import textwrap
from typing import Any, Mapping, Sequence

__all__ = ["VERDICT_ORDER", "claim_dicts", "verdict_counts", "counts_line", "first_sentence", "claims_terminal",
           "claims_markdown", "claims_latex",
           "claim_qualifier"]

#: The verdicts in table order (mirrors ``rfverify.studies.claims.verdicts.VERDICTS``; a test keeps them equal).
VERDICT_ORDER = ("holds", "holds under a stated condition", "false as printed; corrected form holds", "false",
                 "not reproduced", "not checkable here")


def claim_dicts(claims: Sequence[Any]) -> list[dict[str, Any]]:
    return [c.to_dict() if hasattr(c, "to_dict") else dict(c) for c in claims]


def verdict_counts(claims: Sequence[Any]) -> dict[str, int]:
    """Claims per verdict, in :data:`VERDICT_ORDER` (verdicts with no claim omitted)."""
    rows = claim_dicts(claims)
    counts = {v: sum(r["verdict"] == v for r in rows) for v in VERDICT_ORDER}
    extra = sorted({r["verdict"] for r in rows} - set(VERDICT_ORDER))
    counts.update({v: sum(r["verdict"] == v for r in rows) for v in extra})
    return {v: n for v, n in counts.items() if n}


def counts_line(claims: Sequence[Any]) -> str:
    return f"{len(claims)} claims: " + ", ".join(f"{n} {v}" for v, n in verdict_counts(claims).items())


_SENTENCE_END = re.compile(r"(?<=[a-z0-9)%\]])\.\s+(?=[A-Z])")


def first_sentence(text: str) -> str:
    """The evidence's first sentence (a period followed by a capital; decimals and 'e.g.' survive)."""
    parts = _SENTENCE_END.split(text.strip(), maxsplit=1)
    head = parts[0]
    return head if head.endswith(".") else head + "."


def _claim_text(c: Mapping[str, Any]) -> str:
    return f"{c['location']}: \u201c{c['statement']}\u201d"


def claim_qualifier(c: Mapping[str, Any]) -> str:
    """' (condition: ...)', ' (correction: ...)', ' (counterexample: ...)' or ' (why not checkable)'."""
    f = c.get("finding") or {}
    if c.get("verdict") == "holds under a stated condition" and f.get("condition"):
        return f" (condition: {f['condition']})"
    if c["verdict"] == "false as printed; corrected form holds" and f.get("correction"):
        return f" (correction: {f['correction']})"
    if c["verdict"] == "false" and f.get("counterexample"):
        return f" (counterexample: {f['counterexample']})"
    if c["verdict"] == "not checkable here" and f.get("uncheckable"):
        return f" ({f['uncheckable']})"
    return ""


def claims_terminal(claims: Sequence[Any], width: int = 120) -> str:
    """One block per claim: ``id  VERDICT`` then claim, method, evidence and reproduce, wrapped to ``width``."""
    out = []
    label = 12
    for c in claim_dicts(claims):
        head = f"{c['id']}  [{c['verdict'].upper()}{claim_qualifier(c)}]"
        out.append(textwrap.fill(head, width, subsequent_indent=" " * label))
        for key, text in (("claim", _claim_text(c)), ("method", c["method"]), ("evidence", c["evidence"]),
                          ("rule", f"{c.get('rule', '')}: {c.get('rule_text', '')}"),
                          ("reproduce", c.get("reproduce", ""))):
            out.append(textwrap.fill(text, width, initial_indent=f"  {key:<{label - 2}}",
                                     subsequent_indent=" " * label, break_on_hyphens=False))
        out.append("")
    return "\n".join(out) + textwrap.fill(counts_line(claims), width, subsequent_indent="  ") + "\n"


def _md(t: str) -> str:
    """Text for a table cell: link syntax shown, never live (:func:`rfverify.text.markdown_inline`)."""
    from rfverify.text import markdown_inline

    return markdown_inline(t)


def claims_markdown(claims: Sequence[Any]) -> str:
    """The claims as a Markdown table: id, claim, method, verdict, one-sentence evidence."""
    lines = ["| id | claim | method | verdict | evidence |", "|---|---|---|---|---|"]
    for c in claim_dicts(claims):
        verdict = c["verdict"] if c["verdict"] == "holds" else f"**{c['verdict']}**"
        verdict += _md(claim_qualifier(c))
        lines.append(f"| `{c['id']}` | {_md(_claim_text(c))} | {_md(c['method'])} | {verdict} | "
                     f"{_md(first_sentence(c['evidence']))} |")
    return "\n".join(lines) + "\n"


_TEX = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_", "{": r"\{",
        "}": r"\}", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}", "\u201c": "``", "\u201d": "''"}


def _tex(t: str) -> str:
    return "".join(_TEX.get(ch, ch) for ch in t)


def claims_latex(claims: Sequence[Any]) -> str:
    """A ``longtable`` (packages: longtable, array) a reviewer can paste: id, claim, method, verdict, evidence."""
    lines = [
        "% Needs \\usepackage{longtable,array}.",
        "\\begin{longtable}{>{\\raggedright\\arraybackslash}p{0.14\\linewidth}"
        ">{\\raggedright\\arraybackslash}p{0.24\\linewidth}>{\\raggedright\\arraybackslash}p{0.17\\linewidth}"
        ">{\\raggedright\\arraybackslash}p{0.13\\linewidth}>{\\raggedright\\arraybackslash}p{0.24\\linewidth}}",
        "\\hline id & claim & method & verdict & evidence \\\\ \\hline \\endhead",
    ]
    for c in claim_dicts(claims):
        cells = [f"\\texttt{{{_tex(c['id'])}}}", _tex(_claim_text(c)), _tex(c["method"]),
                 f"\\textbf{{{_tex(c['verdict'])}}}{_tex(claim_qualifier(c))}", _tex(first_sentence(c["evidence"]))]
        lines.append(" & ".join(cells) + " \\\\ \\hline")
    lines += [f"\\caption{{{_tex(counts_line(claims))}}}", "\\end{longtable}"]
    return "\n".join(lines) + "\n"
