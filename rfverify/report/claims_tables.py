"""The published-claims table in three renderings: terminal (wrapped at 120 columns), Markdown and LaTeX.

Every rendering shows the same columns — id, claim (the paper's bibliographic key, where it is printed and the
statement), method, verdict with its rule, evidence with the notation note, and the command that re-runs the row —
and takes evaluated claims as objects with ``to_dict()`` or as plain dicts (the JSON of ``rfverify claims --json``),
so it needs nothing from the studies layer.  Markdown and LaTeX carry the first sentence of the evidence (the full
text is in the JSON and the HTML page); the terminal rendering carries all of it, wrapped.

Text from the rows is escaped in both: Markdown escapes its table, emphasis, code, link and HTML syntax
(``| * _ ` [ ] < > &``), so no statement becomes a link; LaTeX escapes its specials, ``<``, ``>``, ``|`` and
straight quotes (which typeset as ¡, ¿, — and ” under the default font encoding) and writes the few non-ASCII
characters of the rows as math; :data:`LATEX_PREAMBLE` is what the table needs.
"""

from __future__ import annotations

import re
import textwrap
import unicodedata
from typing import Protocol, Sequence, TypeAlias, Union

from rfverify.results import JSONRecord, JSONValue

__all__ = ["VERDICT_ORDER", "LATEX_PREAMBLE", "claim_dicts", "verdict_counts", "counts_line", "first_sentence",
           "claims_terminal", "claims_markdown", "claims_latex", "claims_latex_document", "claim_qualifier", "tex_escape",
           "md_escape"]

#: The verdicts in table order (mirrors ``rfverify.studies.claims.verdicts.VERDICTS``; a test keeps them equal).
VERDICT_ORDER = ("holds", "holds under a stated condition", "ambiguous notation",
                 "false as printed; corrected form holds", "false", "not reproduced", "not checkable here")

#: The packages the LaTeX table needs (T1 so that the escaped quotes and bars are the glyphs of the text).
LATEX_PREAMBLE = ("\\usepackage[T1]{fontenc}\n\\usepackage{lmodern}\n\\usepackage{textcomp}\n"
                  "\\usepackage{longtable}\n\\usepackage{array}\n")


class Claim(Protocol):
    """An evaluated claim as the tables read it (:class:`rfverify.studies.claims.Claim`, or one read
    back from an earlier index): its JSON record."""

    def to_dict(self) -> dict[str, object]:
        """The claim's record (the keys of ``docs/claims.md``)."""


#: A claim as every table takes it: an evaluated claim, or its record.
ClaimLike: TypeAlias = Union[Claim, JSONRecord]


def claim_dicts(claims: Sequence[ClaimLike]) -> list[dict[str, JSONValue]]:
    return [c.to_dict() if hasattr(c, "to_dict") else dict(c) for c in claims]


def verdict_counts(claims: Sequence[ClaimLike]) -> dict[str, int]:
    """Claims per verdict, in :data:`VERDICT_ORDER` (verdicts with no claim omitted)."""
    rows = claim_dicts(claims)
    counts = {v: sum(r["verdict"] == v for r in rows) for v in VERDICT_ORDER}
    extra = sorted({r["verdict"] for r in rows} - set(VERDICT_ORDER))
    counts.update({v: sum(r["verdict"] == v for r in rows) for v in extra})
    return {v: n for v, n in counts.items() if n}


def counts_line(claims: Sequence[ClaimLike]) -> str:
    return f"{len(claims)} claims: " + ", ".join(f"{n} {v}" for v, n in verdict_counts(claims).items())


_SENTENCE_END = re.compile(r"(?<=[a-z0-9)%\]])\.\s+(?=[A-Z])")


def first_sentence(text: str) -> str:
    """The evidence's first sentence (a period followed by a capital; decimals and 'e.g.' survive)."""
    parts = _SENTENCE_END.split(text.strip(), maxsplit=1)
    head = parts[0]
    return head if head.endswith(".") else head + "."


def _claim_text(c: JSONRecord) -> str:
    return f"{c['location']}: \u201c{c['statement']}\u201d"


def claim_qualifier(c: JSONRecord) -> str:
    """' (condition: ...)', ' (correction: ...)', ' (counterexample: ...)', ': holds under reading X ..., fails under
    reading Y ...' or ' (why not checkable)'."""
    f = c.get("finding") or {}
    if c.get("verdict") == "ambiguous notation" and f.get("readings"):
        held = "; ".join(_reading(r) for r in f["readings"] if r["holds"])
        failed = "; ".join(_reading(r) for r in f["readings"] if not r["holds"])
        return f": holds under reading {held}, fails under reading {failed}"
    if c.get("verdict") == "holds under a stated condition" and f.get("condition"):
        return f" (condition: {f['condition']})"
    if c["verdict"] == "false as printed; corrected form holds" and f.get("correction"):
        return f" (correction: {f['correction']})"
    if c["verdict"] == "false" and f.get("counterexample"):
        return f" (counterexample: {f['counterexample']})"
    if c["verdict"] == "not checkable here" and f.get("uncheckable"):
        return f" ({f['uncheckable']})"
    return ""


def _reading(r: JSONRecord) -> str:
    return f"{r['symbols']} as {r['meaning']} ({r['where']})"


def _notes(c: JSONRecord) -> str:
    """The row's notation note (readings, extraction caveat, audit), '' when it has none."""
    return str(c.get("notes") or "")


def _rule(c: JSONRecord) -> str:
    return f"{c.get('rule', '')}: {c.get('rule_text', '')}"


def claims_terminal(claims: Sequence[ClaimLike], width: int = 120) -> str:
    """One block per claim: ``id  VERDICT`` then claim, method, evidence, notes, rule and reproduce, wrapped to
    ``width``."""
    out = []
    label = 12
    for c in claim_dicts(claims):
        head = f"{c['id']}  [{c['verdict'].upper()}{claim_qualifier(c)}]"
        out.append(textwrap.fill(head, width, subsequent_indent=" " * label))
        rows = [("claim", f"{c.get('paper') or c.get('source', '')}, " + _claim_text(c)), ("method", c["method"]),
                ("evidence", c["evidence"])]
        if _notes(c):
            rows.append(("notation", _notes(c)))
        rows += [("rule", _rule(c)), ("reproduce", c.get("reproduce", ""))]
        for key, text in rows:
            out.append(textwrap.fill(text, width, initial_indent=f"  {key:<{label - 2}}",
                                     subsequent_indent=" " * label, break_on_hyphens=False))
        out.append("")
    return "\n".join(out) + textwrap.fill(counts_line(claims), width, subsequent_indent="  ") + "\n"


_MD_SPECIAL = "\\`*_[]<>|"


def md_escape(t: str) -> str:
    """Text made inert in a Markdown table cell: backslash escapes for table, emphasis, code, link and HTML syntax,
    ``&`` as an entity, one line."""
    t = str(t).replace("&", "&amp;").replace("\n", " ")
    return "".join("\\" + ch if ch in _MD_SPECIAL else ch for ch in t)


MARKDOWN_HEADER = ("| id | claim | method | verdict (rule) | evidence | reproduce |", "|---|---|---|---|---|---|")


def claims_markdown(claims: Sequence[ClaimLike]) -> str:
    """The claims as a Markdown table: id, claim (paper key, where, statement), method, verdict with its rule,
    one-sentence evidence with the notation note, and the command that re-runs the row."""
    lines = list(MARKDOWN_HEADER)
    for c in claim_dicts(claims):
        verdict = md_escape(c["verdict"]) if c["verdict"] == "holds" else f"**{md_escape(c['verdict'])}**"
        verdict += md_escape(claim_qualifier(c)) + f" ({md_escape(_rule(c))})"
        evidence = md_escape(first_sentence(c["evidence"]))
        if _notes(c):
            evidence += " *Notation:* " + md_escape(_notes(c))
        paper = md_escape(c.get("paper") or c.get("source", ""))
        lines.append(f"| `{c['id']}` | {paper}, {md_escape(_claim_text(c))} | {md_escape(c['method'])} | {verdict} | "
                     f"{evidence} | `{c.get('reproduce', '')}` |")
    return "\n".join(lines) + "\n"


_TEX = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_", "{": r"\{",
        "}": r"\}", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}", "\u201c": "``", "\u201d": "''",
        "<": r"\textless{}", ">": r"\textgreater{}", "|": r"\textbar{}", '"': r"\textquotedbl{}",
        "'": r"\textquotesingle{}", "\u2014": "---", "\u2013": "--", "\u2019": "'", "\u2018": "`",
        "\u2026": r"\ldots{}", "\u00d7": r"\texttimes{}", "\u00b1": r"\textpm{}", "\u00b0": r"\textdegree{}",
        "\u2212": "-", "\u2016": r"\textbardbl{}", "\u00a7": r"\S{}", "\u00b2": r"\texttwosuperior{}",
        "\u00b3": r"\textthreesuperior{}", "\u00b9": r"\textonesuperior{}", "\u00bd": r"\textonehalf{}"}
#: Non-ASCII letters and symbols of the rows, written as math (Greek letters, relations, operators).
_TEX_MATH = {"\u03b1": r"\alpha", "\u03b2": r"\beta", "\u03b3": r"\gamma", "\u03b4": r"\delta", "\u03b5": r"\varepsilon",
             "\u03b8": r"\theta", "\u03ba": r"\kappa", "\u03bb": r"\lambda", "\u03bc": r"\mu", "\u03bd": r"\nu",
             "\u03c0": r"\pi", "\u03c1": r"\rho", "\u03c3": r"\sigma", "\u03c4": r"\tau", "\u03c6": r"\varphi",
             "\u03c7": r"\chi", "\u03c8": r"\psi", "\u03c9": r"\omega", "\u0393": r"\Gamma", "\u0394": r"\Delta",
             "\u03a3": r"\Sigma", "\u03a6": r"\Phi", "\u03a9": r"\Omega", "\u2264": r"\le", "\u2265": r"\ge",
             "\u2260": r"\ne", "\u2248": r"\approx", "\u221a": r"\surd", "\u221e": r"\infty", "\u2211": r"\sum",
             "\u222b": r"\int", "\u2208": r"\in", "\u27e8": r"\langle", "\u27e9": r"\rangle", "\u2192": r"\to",
             "\u00b7": r"\cdot", "\u2202": r"\partial", "\u2207": r"\nabla", "\u22a5": r"\perp", "\u27c2": r"\perp",
             "\u2081": "_1", "\u2082": "_2", "\u2080": "_0", "\u207b": "^{-}", "\u2070": "^0", "\u2074": "^4",
             "\u2099": "_n", "\u2093": "_x", "\u1d62": "_i", "\u2c7c": "_j"}


def tex_escape(t: str) -> str:
    """Text for LaTeX's text mode (T1 font encoding, :data:`LATEX_PREAMBLE`): every special character escaped,
    ``< > |`` and straight quotes as their text glyphs, Greek letters and relations as inline math; any other
    non-ASCII character as ``?`` (a row's text is ASCII by convention; this keeps a stray one from breaking the
    build)."""
    out = []
    for ch in str(t):
        if ch in _TEX:
            out.append(_TEX[ch])
        elif ch in _TEX_MATH:
            out.append(f"${_TEX_MATH[ch]}$")
        elif ch == "\n":
            out.append(" ")
        elif ord(ch) < 128:
            out.append(ch)
        elif ch.isalpha() and unicodedata.normalize("NFD", ch)[0].isascii():
            out.append(_accented(ch))
        else:
            out.append("?")
    return "".join(out)


_ACCENTS = {"\u0301": "'", "\u0300": "`", "\u0308": '"', "\u0302": "^", "\u0303": "~", "\u0327": "c", "\u030c": "v"}


def _accented(ch: str) -> str:
    decomposed = unicodedata.normalize("NFD", ch)
    base, marks = decomposed[0], decomposed[1:]
    for m in marks:
        if m not in _ACCENTS:
            return base
        base = f"\\{_ACCENTS[m]}{{{base}}}" if _ACCENTS[m].isalpha() else f"\\{_ACCENTS[m]}{base}"
    return base


_tex = tex_escape


def claims_latex(claims: Sequence[ClaimLike]) -> str:
    """A ``longtable`` a reviewer can paste (preamble: :data:`LATEX_PREAMBLE`, stated in the first lines): id, claim
    (paper key, where, statement), method, verdict with its rule, evidence with the notation note, reproduce."""
    lines = ["% Needs, in the preamble:"] + [f"%   {line}" for line in LATEX_PREAMBLE.splitlines()] + [
        "\\begin{longtable}{>{\\raggedright\\arraybackslash}p{0.13\\linewidth}"
        ">{\\raggedright\\arraybackslash}p{0.23\\linewidth}>{\\raggedright\\arraybackslash}p{0.15\\linewidth}"
        ">{\\raggedright\\arraybackslash}p{0.15\\linewidth}>{\\raggedright\\arraybackslash}p{0.25\\linewidth}}",
        "\\hline id & claim & method & verdict (rule) & evidence \\\\ \\hline \\endhead",
    ]
    for c in claim_dicts(claims):
        evidence = _tex(first_sentence(c["evidence"]))
        if _notes(c):
            evidence += " \\emph{Notation:} " + _tex(_notes(c))
        cells = [f"\\texttt{{{_tex(c['id'])}}}\\newline {_tex(c.get('reproduce', ''))}",
                 f"{_tex(c.get('paper') or c.get('source', ''))}, " + _tex(_claim_text(c)), _tex(c["method"]),
                 f"\\textbf{{{_tex(c['verdict'])}}}{_tex(claim_qualifier(c))} ({_tex(_rule(c))})", evidence]
        lines.append(" & ".join(cells) + " \\\\ \\hline")
    lines += [f"\\caption{{{_tex(counts_line(claims))}}}", "\\end{longtable}"]
    return "\n".join(lines) + "\n"


def claims_latex_document(claims: Sequence[ClaimLike], header: str = "") -> str:
    """The table as a standalone document (article, landscape-width margins, :data:`LATEX_PREAMBLE`): what the
    test compiles, and a reviewer's starting point."""
    return ("\\documentclass[10pt]{article}\n\\usepackage[margin=1.5cm]{geometry}\n" + LATEX_PREAMBLE
            + "\\begin{document}\n\\footnotesize\n" + header + claims_latex(claims) + "\\end{document}\n")
