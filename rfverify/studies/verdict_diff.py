"""Diff two runs of the main job: every verdict, statistic and p-value must be identical.

A refactor that "does not change behaviour" is held to this: run ``rfverify report --all --out A`` and
``rfverify claims --json A/claims.json`` before, the same into ``B`` after, then::

    python -m rfverify.studies.verdict_diff A B

It compares every per-implementation JSON report (status, statistic, p-value, threshold, alpha, effect,
details, metrics, target and configuration) and every claim (id, verdict, evidence), after mapping the
keys that schema changes renamed (:data:`RENAMED`).  Messages and reproduce commands are text, not
verdicts: their changes are counted and listed separately, never a failure.  Exit 0 when nothing that
decides a verdict changed, 1 otherwise.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from rfverify.results import JSONValue

__all__ = ["RENAMED", "normalise", "diff_reports", "diff_claims", "main"]

#: Keys renamed by schema changes (old -> new), applied to both sides before comparing.
RENAMED = {"p_value": "pvalue", "name": "check"}
#: Fields that never decide a verdict (versions, provenance, timing) — ignored.
IGNORED = {"provenance", "version", "schema_version", "timing", "seconds"}
#: Text fields: compared, but a change is reported as text, not as a changed verdict.
TEXT = {"message", "reproduce"}


def normalise(doc: JSONValue, *, _in_checks: bool = False) -> JSONValue:
    """``doc`` with renamed keys mapped to their new names and ignored fields dropped."""
    if isinstance(doc, dict):
        out = {}
        for k, v in doc.items():
            if k in IGNORED:
                continue
            key = RENAMED.get(k, k) if (k != "name" or _in_checks) else k
            out[key] = normalise(v, _in_checks=(k == "checks"))
        return out
    if isinstance(doc, list):
        return [normalise(v, _in_checks=_in_checks) for v in doc]
    return doc


def _walk(a: JSONValue, b: JSONValue, path: str, verdict: list[str], text: list[str]) -> None:
    if isinstance(a, dict) and isinstance(b, dict):
        for k in sorted(set(a) | set(b)):
            where = f"{path}.{k}"
            if k not in a or k not in b:
                (text if k in TEXT else verdict).append(f"{where}: only in {'new' if k in b else 'old'}")
                continue
            if k in TEXT:
                if a[k] != b[k]:
                    text.append(where)
                continue
            _walk(a[k], b[k], where, verdict, text)
    elif isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        for i, (x, y) in enumerate(zip(a, b)):
            label = x.get("check") if isinstance(x, dict) and "check" in x else i
            _walk(x, y, f"{path}[{label}]", verdict, text)
    elif a != b:
        verdict.append(f"{path}: {a!r} -> {b!r}"[:300])


def diff_reports(old: Path, new: Path) -> tuple[list[str], list[str]]:
    """(verdict differences, text differences) between the per-implementation JSON reports of two folders."""
    verdict: list[str] = []
    text: list[str] = []
    names_old = {p.name for p in old.glob("*.json") if p.name not in ("index.json", "claims.json")}
    names_new = {p.name for p in new.glob("*.json") if p.name not in ("index.json", "claims.json")}
    for name in sorted(names_old ^ names_new):
        verdict.append(f"{name}: only in {'new' if name in names_new else 'old'}")
    for name in sorted(names_old & names_new):
        a = normalise(json.loads((old / name).read_text(encoding="utf-8")))
        b = normalise(json.loads((new / name).read_text(encoding="utf-8")))
        _walk(a, b, name, verdict, text)
    return verdict, text


def diff_claims(old: Path, new: Path) -> list[str]:
    """Differences between two ``rfverify claims --json`` files, matched by claim id."""
    a = {c["id"]: c for c in json.loads(old.read_text(encoding="utf-8"))}
    b = {c["id"]: c for c in json.loads(new.read_text(encoding="utf-8"))}
    out = [f"claim {i}: only in {'new' if i in b else 'old'}" for i in sorted(set(a) ^ set(b))]
    for i in sorted(set(a) & set(b)):
        for k in sorted(set(a[i]) | set(b[i])):
            if a[i].get(k) != b[i].get(k):
                out.append(f"claim {i}.{k}: {str(a[i].get(k))[:120]!r} -> {str(b[i].get(k))[:120]!r}")
    return out


def main(argv: list[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if len(args) != 2:
        print("usage: python -m rfverify.studies.verdict_diff OLD_DIR NEW_DIR  (each: report --all output, "
              "optionally with claims.json)", file=sys.stderr)
        return 2
    old, new = Path(args[0]), Path(args[1])
    verdict, text = diff_reports(old, new)
    if (old / "claims.json").is_file() and (new / "claims.json").is_file():
        verdict += diff_claims(old / "claims.json", new / "claims.json")
    n = len([p for p in new.glob("*.json") if p.name not in ("index.json", "claims.json")])
    print(f"{n} reports compared; {len(verdict)} verdict-field differences; {len(text)} message/reproduce "
          "text differences")
    for line in verdict:
        print("  VERDICT", line)
    for line in text[:50]:
        print("  text   ", line)
    return 1 if verdict else 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
