"""Calibration pages: a calibration document (from :func:`rfverify.studies.calibration.calibrate`) rendered as
JSON, Markdown and HTML, and the summary the report index shows (read back from ``OUT/calibration/``).

Rendering only: nothing here runs a plug-in or a study.
"""

from __future__ import annotations

from pathlib import Path

from rfverify.results import JSONRecord

__all__ = ["CALIBRATION_SCHEMA_VERSION", "CALIBRATION_FILES", "calibration_markdown", "calibration_summary",
           "load_calibration_summary", "write_calibration"]

#: Version of the calibration document's layout (``schema_version``).
CALIBRATION_SCHEMA_VERSION = 1

# ---------------------------------------------------------------------------------------------
# Output: JSON, Markdown, HTML; the summary the report index shows
# ---------------------------------------------------------------------------------------------
CALIBRATION_FILES = ("calibration.json", "calibration.md", "calibration.html")


def _g(x: float) -> str:
    return "0" if x == 0 else ("1" if x == 1 else f"{x:.3g}")


def _iv(iv: list[float]) -> str:
    return f"[{_g(iv[0])}, {_g(iv[1])}]"


def _flag(b: bool) -> str:
    return "**FLAG**" if b else ""


def _rows(doc: JSONRecord) -> dict[str, list[list[str]]]:
    """The tables of a calibration document as rows of text cells (shared by Markdown and HTML)."""
    pooled = [[p["kind"], p["check"], p["profile"], _g(p["design_alpha"]), f"{p['failures']}/{p['trials']}",
               _g(p["rate"]), _iv(p["interval95"]), _flag(p["flagged"])] for p in doc["by_kind"]]
    refs = []
    for e in doc["false_alarms"]:
        fw = e["family"]
        refs.append([e["name"], e["kind"], e["profile"], "(family-wise)", _g(fw["design_alpha"]),
                     f"{fw['failures']}/{fw['seeds']}", _iv(fw["interval95"]), _flag(fw["flagged"])])
        for check, c in e["checks"].items():
            cell = (f"{c['failures']}/{c['seeds']}" + (f", {c['errors']} errors" if c["errors"] else "")
                    if c["seeds"] else f"does not apply ({c['skipped']} skips)")
            refs.append(["", "", "", check, _g(c["design_alpha"]), cell, _iv(c["interval95"]), _flag(c["flagged"])])
    eq = []
    for e in doc["equivalent"]:
        fired = ", ".join(f"{c} {v['failures'] + v['errors']}" for c, v in e["checks"].items()
                          if v["failures"] or v["errors"]) or "none"
        eq.append([e["name"], e["kind"], e["category"], e["profile"], f"{e['family']['failures']}/{e['seeds']}",
                   _iv(e["family"]["interval95"]), fired, _flag(e["family"]["failures"] > 0)])
    power = []
    for p in doc["power"]:
        others = ", ".join(f"{c} {o['fired']}/{o['of']}" for c, o in p["other_checks"].items() if o["fired"]) or \
            ("none" if p["scan_seeds"] else "—")
        for i, (check, c) in enumerate(p["caught_by"].items()):
            power.append([p["name"] if i == 0 else "", p["kind"] if i == 0 else "", p["category"] if i == 0 else "",
                          p["profile"], check + (" (error)" if p["expect"] == "error" else ""),
                          f"{c['caught']}/{c['seeds']}", _g(c["power"]), _iv(c["interval95"]),
                          others if i == 0 else "", _flag(c["flagged"])])
    return {"pooled": pooled, "references": refs, "equivalent": eq, "power": power}


HEADERS = {
    "pooled": ["kind", "check", "profile", "design α", "failures / trials", "rate", "95% interval", "flag"],
    "references": ["reference", "kind", "profile", "check", "design α", "failing seeds", "95% interval", "flag"],
    "equivalent": ["mutant", "kind", "category", "profile", "failing seeds", "95% interval", "checks that fired",
                   "flag"],
    "power": ["mutant", "kind", "category", "profile", "check", "caught / seeds", "power", "95% interval",
              "other checks fired (whole suite, first seeds)", "flag"],
}


def _settings_line(doc: JSONRecord) -> str:
    s = doc["settings"]
    return (f"profiles {', '.join(s['profiles'])}; seeds {s['seed_base']}.. ({s['fa_seeds']} per reference, "
            f"{s['equivalent_seeds']} per equivalent mutant, {s['power_seeds']} per bug, the first "
            f"{s['scan_seeds']} with the whole suite); {len(s['references'])} references, "
            f"{len(s['mutants'])} mutants from {s['library'] or '(none)'}; 95% Clopper–Pearson intervals; "
            f"power target {s['power_target']:.0%}")


def _timing_lines(doc: JSONRecord) -> list[str]:
    t = doc.get("timing") or {}
    if not t:
        return []
    roles = ", ".join(f"{k} {v:.0f} s" for k, v in t.get("unit_seconds_by_role", {}).items())
    where = t.get("executor") or f"--jobs {t['jobs']}"
    return [f"wall time {t['wall_seconds']:.0f} s ({t['wall_seconds'] / 60:.1f} min) with {where} "
            f"on {t.get('cpus')} CPUs; {t['units']} units; unit time by role: {roles}"]


def calibration_markdown(doc: JSONRecord) -> str:
    """The calibration document as Markdown (tables of false alarms, equivalent mutants, power; flags; timing)."""
    rows = _rows(doc)

    def table(key: str) -> list[str]:
        head = HEADERS[key]
        out = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
        out += ["| " + " | ".join(c.replace("|", "\\|") for c in r) + " |" for r in rows[key]]
        return out + [""]

    lines = ["# rfverify calibration: false-alarm rates and power", "", _settings_line(doc) + ".", ""]
    if doc.get("command"):
        lines += ["```sh", doc["command"], "```", ""]
    lines += _timing_lines(doc) + [""]
    lines += [f"## Flags ({len(doc['flags'])})", ""]
    lines += [f"- {f}" for f in doc["flags"]] or ["none"]
    lines += ["", "A false-alarm rate is flagged when its interval lies above the design α (a check's share of "
              "the profile's family α, 0 for a deterministic check); a bug's power when under "
              f"{doc['settings']['power_target']:.0%}.", ""]
    lines += ["## False alarms, pooled over the references of each kind", ""] + table("pooled")
    lines += ["## False alarms per reference", ""] + table("references")
    if rows["equivalent"]:
        lines += ["## Equivalent mutants (must pass every check)", ""] + table("equivalent")
    if rows["power"]:
        lines += ["## Power per mutant", ""] + table("power")
    return "\n".join(lines)


def calibration_summary(doc: JSONRecord) -> dict[str, object]:
    """What the report index shows: per kind and profile, the family-wise false-alarm rate and the bugs caught.

    Holds no timings, so an index that embeds it stays byte-identical across runs.
    """
    rows = []
    kinds = sorted({p["kind"] for p in doc["by_kind"]} | {p["kind"] for p in doc["power"]})
    for kind in kinds:
        for profile in doc["settings"]["profiles"]:
            fw = next((p for p in doc["by_kind"] if p["kind"] == kind and p["profile"] == profile
                       and p["check"] == "(family-wise)"), None)
            bugs = [p for p in doc["power"] if p["kind"] == kind and p["profile"] == profile]
            strong = sum(all(not c["flagged"] for c in p["caught_by"].values()) for p in bugs)
            rows.append({"kind": kind, "profile": profile,
                         "family": None if fw is None else f"{fw['failures']}/{fw['trials']} {_iv(fw['interval95'])}",
                         "bugs": len(bugs), "strong": strong})
    return {"html": "calibration/calibration.html", "markdown": "calibration/calibration.md",
            "json": "calibration/calibration.json", "flags": len(doc["flags"]), "settings": _settings_line(doc),
            "rows": rows}


def load_calibration_summary(out: Path | str) -> dict[str, object] | None:
    """The summary of ``out/calibration/calibration.json`` if a calibration has been written there, else None."""
    import json
    from pathlib import Path

    path = Path(out) / "calibration" / "calibration.json"
    if not path.is_file():
        return None
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
        return calibration_summary(doc) if doc.get("schema_version") == CALIBRATION_SCHEMA_VERSION else None
    except (ValueError, KeyError, TypeError):
        return None


def write_calibration(doc: JSONRecord, out: Path | str) -> list[Path]:
    """Write ``calibration.json``, ``calibration.md`` and ``calibration.html`` into ``out``; returns the paths."""
    import json
    from pathlib import Path

    from rfverify.report.html import template_environment
    from rfverify.report.provenance import provenance

    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    prov = provenance()
    full = dict(doc)
    full["provenance"] = prov
    paths = []
    texts = {
        "calibration.json": json.dumps(full, indent=2, allow_nan=False) + "\n",
        "calibration.md": calibration_markdown(doc) + "\n",
        "calibration.html": template_environment().get_template("calibration.html.j2").render(
            title="rfverify calibration", doc=doc, rows=_rows(doc), headers=HEADERS, settings=_settings_line(doc),
            timing=_timing_lines(doc), provenance=prov, command=doc.get("command", "")),
    }
    for name, text in texts.items():
        path = out / name
        with open(path, "w", encoding="utf-8", newline="\n") as fh:
            fh.write(text)
        paths.append(path)
    return paths
