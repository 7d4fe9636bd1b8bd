"""The mutation report's page, reports/mutation.md (``python .ci/mutation.py report``)."""

from __future__ import annotations

from typing import Any


def _md_escape(s: str) -> str:
    return s.replace("|", "\\|").replace("`", "'")


def _span(cls: dict[str, dict[str, Any]]) -> str:
    whens = sorted(c["when"] for c in cls.values() if c["when"] != "?")
    return f"{whens[0]} to {whens[-1]}" if whens else "?"


_CURRENT = {True: "yes", False: "**no**: changed since the run", None: "not checked (mutmut not installed)"}


def _currency(cls: dict[str, dict[str, Any]]) -> list[str]:
    """The sentence on which rows measure the code as it is now (a run's mutants against the module's current ones)."""
    changed = [p for p, c in cls.items() if c.get("current") is False]
    if not changed:
        return []
    return [f"Of the {len(cls)} modules run, {len(cls) - len(changed)} were run on their current source; "
            f"{len(changed)} changed after their run (marked **no** in the last column: their rows describe the code "
            f"as it was then, until `python .ci/mutation.py run --module M` re-runs them): "
            + ", ".join(f"`{p}`" for p in changed) + ".", ""]


def render(cfg: dict[str, Any], results: dict[str, Any], cls: dict[str, dict[str, Any]]) -> str:
    """The Markdown page: the headline against the target, one row per module run, every equivalent mutant with its
    reason, every survivor, and the configured modules not yet run."""
    tot = sum(c["total"] for c in cls.values())
    eq = sum(len(c["equivalent"]) for c in cls.values())
    kil = sum(c["killed"] for c in cls.values())
    sur = sum(len(c["survived"]) for c in cls.values())
    lines = ["# Mutation testing of the verdict-deciding modules", "",
             "Regenerate: `python .ci/mutation.py run && python .ci/mutation.py report` (needs the `mutation` extra; "
             "`run --fast` is the CI subset (exit_status.py and seeding.py, run by tests/test_mutation_ci.py); see "
             "docs/mutation-testing.md).  Mutants are mutmut 2.x's; a mutant is killed when the module's tests "
             "(the `tests` column; `[tool.rfverify.mutation]` in pyproject.toml) fail with it; a mutant over the time "
             "limit is run again in a fresh process with 3x the limit, and counts as a timeout kill only if it "
             "times out twice.  Score = killed / (mutants - equivalent).  Equivalent mutants are listed with the "
             "reason in `tests/mutation_equivalents.json`.", "",
             f"Total: **{tot} mutants, {kil} killed, {eq} equivalent, {sur} survived — score "
             f"{100 * kil / max(1, tot - eq):.1f}%** (target >= 95%) over "
             + (f"all {len(cls)} configured modules." if len(cls) == len(cfg["modules"]) else
                f"the {len(cls)} of {len(cfg['modules'])} configured modules run so far (the others are listed at "
                "the end)."), "",
             *_currency(cls),
             f"Runs: {_span(cls)}, mutmut {', '.join(sorted({str(r.get('mutmut', '?')) for r in results['modules'].values()}))}, "
             f"one run per module (its time and load average in the table) on {results.get('cpus', '?')} CPUs; the "
             f"per-mutant results are committed in `{cfg['results']}`.", "",
             "| module | tests | mutants | killed (timeouts) | equivalent | survived | score | run time | per mutant "
             f"| run at (load average 1/5/15 min, {results.get('cpus', '?')} CPUs) | current source |",
             "|---|---|---:|---:|---:|---:|---:|---:|---:|---|---|"]
    for path, c in cls.items():
        lines.append(f"| `{path}` | {_md_escape(' '.join(c['tests']))} | {c['total']} | {c['killed']} ({c['timeouts']}) | "
                     f"{len(c['equivalent'])} | {len(c['survived'])} | {100 * c['score']:.1f}% | {c['seconds']:.0f} s | "
                     f"{c['seconds'] / max(1, c['total']):.1f} s | {c['when']} ({c['load']}) | "
                     f"{_CURRENT[c.get('current')]} |")
    pending = [(p, c["pending"]) for p, c in cls.items() if c["pending"]]
    if pending:
        lines += ["", "Interrupted runs: " + "; ".join(
            f"`{p}`: {n} mutants not yet decided in a fresh process (counted as survivors until "
            f"`python .ci/mutation.py run --recheck --module {p}`)" for p, n in pending) + "."]
    lines += ["", "## Equivalent mutants", "", "| module:line | original | mutant | why it cannot change a verdict |",
              "|---|---|---|---|"]
    for path, c in cls.items():
        for m, reason in c["equivalent"]:
            lines.append(f"| `{path}:{m['line_number']}` | `{_md_escape(m['line'])}` | `{_md_escape(m['mutant'])}` | "
                         f"{_md_escape(reason)} |")
    lines += ["", "## Surviving mutants", ""]
    survivors = [(p, m) for p, c in cls.items() for m in c["survived"]]
    if not survivors:
        lines.append("None.")
    else:
        lines += ["| module:line | original | mutant |", "|---|---|---|"]
        lines += [f"| `{p}:{m['line_number']}` | `{_md_escape(m['line'])}` | `{_md_escape(m['mutant'])}` |"
                  for p, m in survivors]
    not_run = [p for p in cfg["modules"] if p not in cls]
    if not_run:
        lines += ["", "## Configured, not yet run", "",
                  "Their mutants are not in the total above; `python .ci/mutation.py run --module M` adds one.", ""]
        lines += [f"- `{p}`" for p in not_run]
    return "\n".join(lines) + "\n"
