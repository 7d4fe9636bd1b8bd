"""The ecosystem table: the field's own random-feature libraries verified as they are published.

``rfverify ecosystem`` runs every entry of :data:`ENTRIES` that is installed -- each a published class or
function named ``MODULE:ATTR`` with the declarations it needs (kernel, bound, a parameter map, constructor
arguments, a global-generator opt-in, data dependence, expected failures) -- under the default seed and, with
``--seeds N``, N - 1 more, and writes ``ecosystem.md`` and ``ecosystem.json``.  For every entry the table
says what the package on the index is, how it installed, the verdict, whether a wrapper module was still
needed and why, and for every real defect the brute-force evidence and an upstream-ready note.

Verdicts per seed: a *correct* entry passes (any failure is a **false alarm**); a *defect* entry is caught
when each expected failure fails (an expected failure that passes is a **miss**).  ``--light`` runs the
entries that need no optional build and finish in seconds at the quick profile (the CI part).
"""

from __future__ import annotations

import importlib
import json
import time
import argparse
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Iterable, Mapping, Sequence, TypeVar

import numpy as np

from rfverify.errors import UsageError
from rfverify.seeding import DEFAULT_SEED
from rfverify.studies.ecosystem_entries import (COST_HINT, ENTRIES, NOT_RUN, TORCH_NOTE, Entry, brute_force_ffht,
                                                brute_force_marginal, brute_force_rfflearn)
from rfverify.results import JSONRecord, JSONValue, Report

if TYPE_CHECKING:
    from rfverify.executors import Executor, Outcome, Task

#: The parser class of the CLI's sub-commands.
P = TypeVar("P", bound=argparse.ArgumentParser)

__all__ = ["Entry", "ENTRIES", "NOT_RUN", "COST_HINT", "TORCH_NOTE", "run_entry", "run_unit", "run_ecosystem",
           "write_ecosystem", "brute_force_rfflearn", "brute_force_marginal", "brute_force_ffht", "entries",
           "fingerprint", "source_fingerprint", "fingerprint_files"]


def entries(only: Iterable[str] | None = None, light: bool = False) -> list[Entry]:
    """The selected entries (an unknown name is a UsageError listing the names)."""
    names = {e.name for e in ENTRIES}
    wanted = list(only or [])
    unknown = sorted(set(wanted) - names)
    if unknown:
        raise UsageError(f"unknown ecosystem entry {', '.join(unknown)}; entries: {', '.join(e.name for e in ENTRIES)}")
    chosen = [e for e in ENTRIES if (not wanted or e.name in wanted) and (not light or e.light)]
    return chosen


def missing(entry: Entry) -> str | None:
    """The first module the entry needs that does not import, or None."""
    for mod in entry.needs:
        try:
            importlib.import_module(mod)
        except Exception as exc:  # noqa: BLE001 - a broken third-party install is "not installed" here
            return f"{mod} ({type(exc).__name__}: {str(exc)[:120]})"
    return None


def run_entry(entry: Entry, seed: int = DEFAULT_SEED, profile: str = "default") -> Report:
    """Verify one entry under ``seed`` with its declarations; the :class:`~rfverify.results.Report`."""
    from rfverify.kinds import get_kind

    verify = get_kind(entry.kind).verify_function()
    return verify(entry.target, seed=seed, profile=profile, xfail=dict(entry.xfail) or None,
                  time_limit=TIME_LIMIT, **dict(entry.options))


#: Seconds per check.  The default 600 s guards against a hung plug-in; on a loaded shared machine (load 20 on
#: 2 cores, a nice-10 worker gets ~5% of a core) rfflearn QRF's adaptive unbiasedness (about 1500 seeds of
#: m = 1024) took longer than that and was recorded as an error.  The libraries here do not hang.
TIME_LIMIT = 7200.0


def _verdict(entry: Entry, report: Report) -> str:
    statuses = {r.check: r.status for r in report.results}
    if any(s == "error" for s in statuses.values()):
        return "error"
    if entry.expected == "correct":
        return "false alarm" if any(s == "fail" for s in statuses.values()) else "pass"
    caught = all(statuses.get(c) == "xfail" for c in entry.xfail)
    return "caught" if caught else "missed"


def run_unit(name: str, seed: int, profile: str) -> dict[str, object]:
    """One work unit: entry ``name`` under ``seed``; its verdict, statuses and failure messages (picklable)."""
    import resource

    def cpu() -> float:
        me, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
        return me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime

    e = next(x for x in ENTRIES if x.name == name)
    start = cpu()
    rep = run_entry(e, seed, profile)
    return {"cpu_seconds": round(cpu() - start, 1), "verdict": _verdict(e, rep), "statuses": {r.check: r.status for r in rep.results},
            "messages": {r.check: r.message for r in rep.results if r.status in ("fail", "xfail", "error")},
            "reproduce": next((r.reproduce.rsplit(" --check", 1)[0] for r in rep.results if r.reproduce), ""),
            "headline": next((r.message for r in rep.results if r.status in ("xfail", "fail", "error")), ""),
            "refused": sorted({f"{rule['rule']} ({rule['exception']})" for r in rep.results
                               for rule in _refused_rules(r)})}


def _refused_rules(result: object) -> list[JSONRecord]:
    """The regions a check's exploration found the plug-in refusing (:mod:`rfverify.refusals`)."""
    details = getattr(result, "details", None)
    space = details.get("space") if isinstance(details, Mapping) else None
    rules = space.get("refused") if isinstance(space, Mapping) else None
    return [r for r in rules or [] if isinstance(r, Mapping)]


def source_fingerprint() -> str:
    """A hash of the source a verdict can depend on: the layers below studies (ARCHITECTURE.md) -- the core
    (``rfverify/*.py`` and its sub-packages but report/ and studies/), ``rfverify/kinds``, ``properties/`` and
    ``implementations/``, data files included.  The layer rules (tests/test_architecture.py) guarantee that no
    check imports studies/, report/, the CLI or the pytest plugin, so editing those cannot change a verdict."""
    import hashlib

    h = hashlib.sha256()
    for f, rel in fingerprint_files():
        h.update(rel.encode() + b"\0" + f.read_bytes() + b"\0")
    return h.hexdigest()[:16]


def fingerprint_files() -> list[tuple[Path, str]]:
    """The files :func:`source_fingerprint` hashes, as (path, path relative to the repository), sorted."""
    from pathlib import Path

    pkg = Path(__file__).resolve().parent.parent
    root = pkg.parent
    above = {"studies", "report"}
    facade = {"cli.py", "pytest_plugin.py", "__init__.py"}
    files = [f for f in pkg.rglob("*") if f.is_file() and "__pycache__" not in f.parts
             and not (len(f.relative_to(pkg).parts) > 1 and f.relative_to(pkg).parts[0] in above)
             and not (len(f.relative_to(pkg).parts) == 1 and f.name in facade)]
    for sub in ("properties", "implementations"):
        files += [f for f in (root / sub).rglob("*") if f.is_file() and "__pycache__" not in f.parts]
    return [(f, f.relative_to(root).as_posix()) for f in sorted(files)]


def _module_hash(target: str) -> str:
    """The hash of the target's module when it lives in rfverify's studies (a wrapper), else ""."""
    import hashlib
    from pathlib import Path

    mod = target.split(":")[0]
    if not mod.startswith("rfverify.studies."):
        return ""
    path = Path(__file__).resolve().parent.joinpath(*mod.split(".")[2:]).with_suffix(".py")
    return hashlib.sha256(path.read_bytes()).hexdigest()[:16] if path.exists() else ""


def fingerprint(entry: Entry, profile: str, source: str | None = None) -> str:
    """What an entry's verdict under a seed depends on: the source below studies (:func:`source_fingerprint`),
    a wrapper module's own source, the entry's target and
    declarations, the profile and the versions of numpy, scipy and the modules the entry needs.  A previous
    table's result is reused (``--resume``) only under an equal fingerprint."""
    import hashlib
    from importlib import metadata

    import scipy

    import platform

    versions = [platform.python_version(), np.__version__, scipy.__version__]
    for mod in dict.fromkeys([*entry.needs, entry.target.split(":")[0].split(".")[0]]):
        if mod == "rfverify":
            continue
        try:
            versions.append(metadata.version(_DIST.get(mod, mod)))
        except Exception:  # noqa: BLE001 - a module without distribution metadata: its import path instead
            versions.append(mod)
    # a declaration that is rfverify's own code (the additive chi-squared kernel a MODULE:ATTR callable) is hashed too
    own = sorted({_module_hash(f"{v.__module__}:x") for v in entry.options.values() if callable(v)} - {""})
    payload = json.dumps([source or source_fingerprint(), _module_hash(entry.target), own, entry.kind, entry.target,
                          _jsonable(entry.options),
                          dict(entry.xfail), entry.expected, profile, versions], sort_keys=True, default=str)
    return hashlib.sha256(payload.encode()).hexdigest()[:16]


#: Distribution names of modules whose import name differs.
_DIST = {"sklearn": "scikit-learn", "sklearn_extra": "scikit-learn-extra", "fht_cpu": "fht-cpu", "ffht": "ffht-unofficial",
         "hadamard_transform": "hadamard-transform", "rff": "random-fourier-features-pytorch"}


def _loadavg() -> list[float]:
    import os

    try:
        return [round(x, 2) for x in os.getloadavg()]
    except OSError:  # pragma: no cover - no load average on this platform
        return []


def _plan_entry(e: Entry, seeds: Sequence[int], profile: str, source: str, prev: JSONRecord | None,
                tasks: list[Task]) -> tuple[dict[str, JSONValue], int]:
    """An entry's row of the table, with the seeds reused from ``prev`` (its row in a table written before, when
    the fingerprint is the same) and a task appended to ``tasks`` for each seed still to run; the count reused."""
    from rfverify.executors import Task

    reused = 0
    fp = fingerprint(e, profile, source)
    row: dict[str, JSONValue] = {"name": e.name, "library": e.library, "kind": e.kind, "target": e.target,
                           "package": e.package, "install": e.install, "expected": e.expected,
                           "declarations": _jsonable(e.options), "xfail": dict(e.xfail), "wrapper": e.wrapper,
                           "upstream": e.upstream, "note": e.note, "command": e.cli(), "light": e.light,
                           "declared": e.declared(), "arrays": e.arrays(),
                           "fingerprint": fp, "seeds": {}, "seconds": 0.0}
    absent = missing(e)
    if absent:
        row.update(verdict="not installed", missing=absent)
        return row, 0
    if e.evidence is not None:
        row["evidence"] = e.evidence()
    per_seed = COST_HINT.get(e.name, 1.0)
    if prev and prev.get("seeds"):
        per_seed = max(0.1, float(prev.get("seconds", 0.0)) / len(prev["seeds"]))
    for s in seeds:
        done = prev.get("seeds", {}).get(str(s)) if prev and prev.get("fingerprint") == fp else None
        if done is not None and done.get("verdict") == "error":
            done = None  # an error (a time limit on a loaded machine, a crash) is run again, never reused
        if done is not None:
            row["seeds"][str(s)] = done
            row["seconds"] = round(row["seconds"] + float(done.get("seconds", 0.0)), 1)
            if s == seeds[0] and prev:
                row["reproduce"], row["headline"] = prev.get("reproduce", ""), prev.get("headline", "")
            reused += 1
        else:
            # seed-major: every entry under a seed before any under the next (a run cut short leaves whole
            # seeds behind), the costliest entries first within a seed
            tasks.append(Task(f"eco-{e.name}-{s}", "rfverify.studies.ecosystem:run_unit", (e.name, s, profile),
                              e.needs, cost=(len(seeds) - seeds.index(s)) * 1e6 + per_seed))
    return row, reused


def _finish(rows: list[dict[str, JSONValue]], seeds: Sequence[int], profile: str, run_info: dict[str, JSONValue],
            started: float, earlier: list[JSONValue]) -> dict[str, object]:
    """The table so far: every row's seeds in the order asked for, the summary and this run's record."""
    for r in rows:  # seeds in the order asked for, whatever order the units finished in
        r["seeds"] = {str(s): r["seeds"][str(s)] for s in seeds if str(s) in r["seeds"]}
    run_info.update(wall_seconds=round(time.time() - started, 1), loadavg_end=_loadavg())
    table = _table(rows, list(seeds), profile)
    table["summary"]["seeds_requested"] = len(seeds)
    table["run"] = dict(run_info)
    # every run that produced a result in this table, oldest first (a resumed run adds itself)
    table["runs"] = earlier + [dict(run_info)]
    return table


def _with_kept(chosen: JSONRecord, old: JSONRecord, seeds: Sequence[int], profile: str,
               source: str) -> list[dict[str, JSONValue]]:
    """The rows planned (``chosen``: name -> row) and, for every entry not selected (``--only``), its results from the previous table that are still
    valid (same fingerprint; nothing run): a run of some entries never drops the others from the table."""
    table = entries()
    kept = {e.name: _plan_entry(e, seeds, profile, source, old[e.name], [])
            for e in table if e.name not in chosen and e.name in old}
    out = {**{name: row for name, (row, n) in kept.items() if n}, **chosen}
    order = [e.name for e in table]
    return sorted(out.values(), key=lambda r: order.index(r["name"]) if r["name"] in order else len(order))


def run_ecosystem(selected: Sequence[Entry], *, seeds: Sequence[int], profile: str,
                  progress: Callable[[str], None] | None = None,
                  checkpoint: Callable[[dict[str, JSONValue]], object] | None = None,
                  executor: Executor | None = None, previous: JSONRecord | None = None,
                  run_missing: bool = True) -> dict[str, JSONValue]:
    """Run every installed entry under every seed; the table as a JSON-ready dict.

    Each (entry, seed) is a work unit on ``executor`` (default: in this process; ``--jobs N``: a local pool);
    results do not depend on it.  ``previous``: a table written before (``--resume``): a unit whose entry has
    the same :func:`fingerprint` there is reused, not run again.  ``checkpoint(table)`` is called after each
    unit with the table so far (a long run leaves a usable table behind whenever it stops).
    """
    from rfverify.executors import InProcess, usable_cores

    started, load_start = time.time(), _loadavg()
    source = source_fingerprint()
    old = {r["name"]: r for r in (previous or {}).get("entries", [])}
    rows: list[dict[str, JSONValue]] = []
    tasks: list[Task] = []
    reused = 0
    for e in selected:
        row, n_reused = _plan_entry(e, seeds, profile, source, old.get(e.name), tasks)
        rows.append(row)
        reused += n_reused
    by_name = {r["name"]: r for r in rows}
    rows = _with_kept(by_name, old, seeds, profile, source)
    prior: JSONRecord = previous or {}
    earlier = list(prior.get("runs") or ([prior["run"]] if prior.get("run") else []))
    run_info: dict[str, JSONValue] = {"units_planned": len(tasks), "units_run": 0, "units_reused": reused, "executor": getattr(executor, "description", "in process"),
                "loadavg_start": load_start, "cores": usable_cores()}

    def finish() -> dict[str, object]:
        return _finish(rows, seeds, profile, run_info, started, earlier)

    def on_outcome(i: int, out: Outcome) -> None:
        name, s = tasks[i].args[0], tasks[i].args[1]
        row = by_name[name]
        value = out.value if out.ok else {"verdict": "error", "statuses": {}, "messages": {"unit": out.error},
                                          "reproduce": "", "headline": out.error}
        row["seeds"][str(s)] = {"verdict": value["verdict"], "statuses": value["statuses"],
                                "messages": value["messages"], "seconds": round(out.seconds, 1),
                                "cpu_seconds": value.get("cpu_seconds"), "refused": value.get("refused", [])}
        row["seconds"] = round(row["seconds"] + out.seconds, 1)
        run_info["units_run"] += 1
        if s == seeds[0]:
            row["reproduce"], row["headline"] = value["reproduce"], value["headline"]
        if progress:
            progress(f"{name} seed {s}: {value['verdict']} ({out.seconds:.0f} s)")
        if checkpoint:
            checkpoint(finish())

    if not run_missing:  # --render: the table from the reused results only; what is missing stays missing
        run_info.update(units_planned=0, units_not_run=len(tasks), executor="render only (--render)")
        return finish()
    ex = executor or InProcess()
    if tasks:
        ex.map(tasks, on_outcome=on_outcome)
    return finish()


def _table(rows: list[dict[str, JSONValue]], seeds: list[int], profile: str) -> dict[str, JSONValue]:
    from rfverify.report.provenance import provenance

    for r in rows:
        if r.get("verdict") == "not installed":
            continue
        verdicts = [v["verdict"] for v in r["seeds"].values()]
        r["verdict"] = (verdicts[0] if len(set(verdicts)) == 1 else "mixed") if verdicts else "not run"
        r["counts"] = {v: verdicts.count(v) for v in sorted(set(verdicts))}
    ran = [r for r in rows if r.get("verdict") not in ("not installed", "not run")]
    correct = [r for r in ran if r["expected"] == "correct"]
    defects = [r for r in ran if r["expected"] == "defect"]
    complete = [x for x in seeds if ran and all(str(x) in r["seeds"] for r in ran)]
    summary = {
        "seeds": complete, "profile": profile,
        "correct_entries": len(correct),
        "false_alarms": sum(r["counts"].get("false alarm", 0) for r in correct),
        "correct_runs": sum(len(r["seeds"]) for r in correct),
        "errors": sum(r["counts"].get("error", 0) for r in ran),
        "defect_entries": len(defects),
        "caught": {r["name"]: f"{r['counts'].get('caught', 0)}/{len(r['seeds'])}" for r in defects},
        "caught_at_default_seed": {r["name"]: r["seeds"].get(str(DEFAULT_SEED), {}).get("verdict") == "caught"
                                   for r in defects if str(DEFAULT_SEED) in r["seeds"]},
        "wrappers": [r["name"] for r in rows if r["wrapper"]],
        "not_installed": [r["name"] for r in rows if r.get("verdict") == "not installed"],
    }
    return {"summary": summary, "entries": json.loads(json.dumps(rows, default=str)),
            "not_run": [{"library": a, "package": b, "why": c} for a, b, c in NOT_RUN],
            "provenance": provenance()}


def _jsonable(options: Mapping[str, object]) -> dict[str, object]:
    return json.loads(json.dumps(dict(options), default=str))


def markdown(table: JSONRecord) -> str:
    """The table as Markdown (committed as reports/ecosystem.md)."""
    s = table["summary"]
    lines = ["# The ecosystem table", "",
             "The field's random-feature libraries verified as they are published, each with the declarations it "
             f"needs (`rfverify ecosystem`; profile {s['profile']}, seeds {_seeds(s['seeds'])}"
             + (f"; stopped after {len(s['seeds'])} of the {s['seeds_requested']} seeds asked for"
                if s.get("seeds_requested", len(s["seeds"])) > len(s["seeds"]) else "") + ").", "",
             *[f"* Run {i + 1}: {_run_line(run)}." for i, run in enumerate(table.get("runs") or
                                                                      ([table["run"]] if table.get("run") else []))],
             f"* Correct implementations: **{s['false_alarms']} false alarms** in {s['correct_runs']} runs "
             f"({s['correct_entries']} entries; each entry's seeds in its row); {s['errors']} errors.",
             "* Real defects: " + (", ".join(f"{k} caught under {v} seeds" for k, v in s["caught"].items()) or "none run")
             + ".",
             f"* Entries that still need a wrapper module: {len(s['wrappers'])} ({', '.join(s['wrappers']) or 'none'})"
             "; why, per entry, below.", "",
             "| entry | library | package on the index / install | declared | torch/JAX/GPU | verdict (seeds) | "
             "seconds per seed (wall, CPU) | wrapper |",
             "|---|---|---|---|---|---|---|---|"]
    for r in table["entries"]:
        decl = r.get("declared") or ", ".join(f"{k}={v}" for k, v in r["declarations"].items())
        counts = ", ".join(f"{v} {k}" for k, v in r.get("counts", {}).items())
        verdict = r["verdict"] + (f" ({counts})" if counts else "") + (f": {r['missing']}" if r.get("missing") else "")
        also = _other_failures(r)
        if also:
            verdict += f"; also failing: {also}"
        refused = sorted({x for v in r.get("seeds", {}).values() for x in v.get("refused", [])})
        if refused:
            verdict += "; refuses " + ", ".join(refused)
        lines.append(f"| `{r['name']}` | {r['library']} (`{r['target']}`) | {r['package']}: {r['install']} | {decl} | "
                     f"{r.get('arrays', 'numpy')} | {verdict} | {_per_seed(r)} | {r['wrapper'] or 'none'} |")
    notes = [f"* `{r['name']}`: {r['note']}" for r in table["entries"] if r.get("note")]
    if notes:
        lines += ["", "## Notes per entry", "", *notes]
    lines += ["", "## Defects found (upstream-ready)", ""]
    for r in table["entries"]:
        if r["expected"] != "defect":
            continue
        lines += [f"### {r['library']} (`{r['name']}`)", "",
                  f"* **Expected failure**: {'; '.join(f'{k}: {v}' for k, v in r['xfail'].items())}",
                  f"* **Caught**: {r.get('counts', {})} over seeds {_seeds([int(x) for x in r.get('seeds', {})])}",
                  f"* **Headline at the default seed**: {r.get('headline', '')}",
                  f"* **Brute-force evidence**: {r.get('evidence', 'not run')}",
                  f"* **Upstream note**: {r['upstream']}",
                  f"* **Reproduce**: `{r.get('reproduce', r['command'])}`", ""]
    lines += ["## Not run here", "", "| library | package | why |", "|---|---|---|"]
    lines += [f"| {n['library']} | {n['package']} | {n['why']} |" for n in table["not_run"]]
    lines += ["", "## torch", "", TORCH_NOTE, "",
              "## Commands", "",
              "* the whole table (every installed entry, default profile, the default seed and 20 others, resumable): "
              "`nice -n 10 rfverify ecosystem --seeds 21 --jobs 4 --resume --out reports/`; run it in an environment "
              "with torch to fill the torch entries (the other entries' results are reused when their fingerprint -- "
              "rfverify's check code, declarations, profile, library versions -- is unchanged);",
              "* one entry: `rfverify ecosystem --only NAME` (`--list` shows the entries and their declarations);",
              "* the table from the results still valid, running nothing: add `--render` to the first command;",
              "* the CI part: `rfverify ecosystem --light --profile quick`.", ""]
    return "\n".join(lines)


def _other_failures(row: JSONRecord) -> str:
    """A defect entry's failures besides its expected ones (e.g. error-rate failing because of the bias
    unbiasedness found), with how many seeds: shown, never hidden by the verdict."""
    if row.get("expected") != "defect":
        return ""
    seen: dict[str, int] = {}
    for v in row.get("seeds", {}).values():
        for check, status in v.get("statuses", {}).items():
            if status == "fail" and check not in row.get("xfail", {}):
                seen[check] = seen.get(check, 0) + 1
    return ", ".join(f"{c} ({k} of {len(row['seeds'])})" for c, k in sorted(seen.items()))


def _per_seed(row: JSONRecord) -> str:
    runs = list(row.get("seeds", {}).values())
    if not runs:
        return ""
    wall = sum(float(v.get("seconds") or 0.0) for v in runs) / len(runs)
    cpu = [float(v["cpu_seconds"]) for v in runs if v.get("cpu_seconds") is not None]
    return f"{wall:.0f}, {sum(cpu) / len(cpu):.0f}" if cpu else f"{wall:.0f}"


def _run_line(run: JSONRecord) -> str:
    load = lambda xs: "/".join(f"{x:g}" for x in xs) or "n/a"  # noqa: E731
    not_run = f", {run['units_not_run']} not run" if run.get("units_not_run") else ""
    if run.get("units_planned", run["units_run"]) > run["units_run"]:
        not_run += f", {run['units_planned'] - run['units_run']} of those planned not run (stopped)"
    return (f"{run['units_run']} (entry, seed) units run, {run['units_reused']} reused from the previous table (same "
            f"fingerprint){not_run}, {run['executor']}; wall {run['wall_seconds']:.0f} s; load average (1/5/15 min) "
            f"{load(run.get('loadavg_start', []))} at the start, {load(run.get('loadavg_end', []))} at the end on "
            f"{run.get('cores', '?')} cores")


def _seeds(seeds: Sequence[int]) -> str:
    if not seeds:
        return "none complete"
    return f"{seeds[0]} and {len(seeds) - 1} others" if len(seeds) > 1 else str(seeds[0])


def write_ecosystem(table: JSONRecord, out: str) -> list[str]:
    """Write ecosystem.json and ecosystem.md into ``out``; the paths."""
    from pathlib import Path

    from rfverify.report.writing import atomic_write

    d = Path(out)
    d.mkdir(parents=True, exist_ok=True)
    paths = [str(d / "ecosystem.json"), str(d / "ecosystem.md")]
    atomic_write(paths[0], json.dumps(table, indent=2, allow_nan=False, default=str) + "\n")
    atomic_write(paths[1], markdown(table))
    return paths


def seed_list(n: int) -> list[int]:
    """The default seed and n - 1 others (1, 2, ...), as the feature-map tests use."""
    if n < 1:
        raise UsageError(f"--seeds must be at least 1, got {n}")
    return [DEFAULT_SEED] + list(range(1, n))


def add_cli(sub: argparse._SubParsersAction[P]) -> None:
    """The ``rfverify ecosystem`` sub-command (the CLI only registers it)."""
    eco = sub.add_parser(
        "ecosystem", help="verify the field's random-feature libraries as published; write the ecosystem table",
        description="Verify every installed library of the ecosystem table (scikit-learn, scikit-learn-extra, "
        "rfflearn, fht-cpu, scipy.stats) with the declarations each needs, under the default seed and --seeds - 1 "
        "others; write ecosystem.md and ecosystem.json into --out. Exit 1 on a false alarm, a missed defect or an "
        "error.")
    eco.add_argument("--only", action="append", metavar="NAME", help="only this entry (repeatable)")
    eco.add_argument("--light", action="store_true", help="only the CI-light entries (no optional build)")
    eco.add_argument("--seeds", default="1", help="the default seed and N - 1 others (default 1)")
    eco.add_argument("--seed", default=str(DEFAULT_SEED), help=f"the first seed (default {DEFAULT_SEED})")
    eco.add_argument("--profile", default="default", help="quick | default | thorough (default: default)")
    eco.add_argument("--out", metavar="DIR", help="write ecosystem.md and ecosystem.json into DIR")
    eco.add_argument("--jobs", default="1", help="local worker processes, one (entry, seed) unit each; results do "
                     "not depend on it (default 1)")
    eco.add_argument("--resume", action="store_true", help="reuse the results in --out/ecosystem.json whose entry has "
                     "the same fingerprint (rfverify source, declarations, profile, library versions); run the rest")
    eco.add_argument("--render", action="store_true", help="with --resume: write the table from the results of "
                     "--out/ecosystem.json that are still valid (same fingerprint); run nothing")
    eco.add_argument("--list", action="store_true", help="list the entries and their declarations; run nothing")
    eco.add_argument("--quiet", action="store_true", help="no progress on stderr")
    eco.add_argument("--debug", action="store_true", help="show tracebacks")


def main(args: argparse.Namespace) -> int:
    """``rfverify ecosystem``: run, print the summary, write the table; exit 1 on a false alarm or a miss."""
    import sys
    from pathlib import Path

    from rfverify.kinds.base import parse_int
    from rfverify.options import parse_seed
    from rfverify.profiles import get_profile

    selected = entries(args.only, args.light)
    if args.list:
        for e in selected:
            print(f"{e.name:34} {e.kind:12} {e.target}  declared: {e.declared()}  [{e.arrays()}]")
        return 0
    first = parse_seed(args.seed)
    seeds = [first] + [s for s in seed_list(parse_int(args.seeds, "--seeds"))[1:] if s != first]
    profile = get_profile(args.profile).name
    progress = None if args.quiet else (lambda text: print(f"ecosystem: {text}", file=sys.stderr, flush=True))
    checkpoint = (lambda t: write_ecosystem(t, args.out)) if args.out else None
    previous = None
    if args.render and not args.resume:
        raise UsageError("--render writes the table from a previous run's results: give --resume --out DIR")
    if args.resume:
        if not args.out:
            raise UsageError("--resume reads the previous table from --out DIR: give --out")
        path = Path(args.out) / "ecosystem.json"
        previous = json.loads(path.read_text()) if path.exists() else None
    from rfverify.executors import make_executor

    with make_executor(parse_int(args.jobs, "--jobs")) as executor:
        table = run_ecosystem(selected, seeds=seeds, profile=profile, progress=progress, checkpoint=checkpoint,
                              executor=executor, previous=previous, run_missing=not args.render)
    s = table["summary"]
    for r in table["entries"]:
        print(f"{r['name']:34} {r['verdict']:14} {r.get('counts', '')}")
    print(f"false alarms {s['false_alarms']}/{s['correct_runs']} runs; defects caught {s['caught']}; "
          f"wrappers {len(s['wrappers'])}; not installed {s['not_installed']}")
    if args.out:
        for written in write_ecosystem(table, args.out):
            print(f"wrote {written}", file=sys.stderr)
    bad = s["false_alarms"] or s["errors"] or any(not ok for ok in s["caught_at_default_seed"].values())
    return 1 if bad else 0
