"""Calibration studies: measured false-alarm rates and power, each with an exact interval.

A correct implementation run under N seeds estimates the false-alarm rate of
every check and of the whole suite (family-wise); a broken one estimates the
power of the check meant to catch it.  Seeds are 0..N-1 offsets of a study
seed, so a study is reproducible and its seeds differ from the default one.

:func:`calibrate` (``rfverify calibrate``) does both at scale: references from
the zoo (one or more per kind) and a *mutant library* (a list of
:class:`Mutant`, e.g. the package ``tests.mutants``), over several profiles.
The work is split into independent units (implementation x seed x profile),
each a pure function of its key — so the results do not depend on the number
of worker processes (``jobs``) or on the order the units run in — and
aggregated into per-check false-alarm rates (and the family-wise rate of the
suite) and per-mutant power, each with a 95% Clopper–Pearson interval.
:func:`write_calibration` renders them as JSON, Markdown and HTML.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Iterable, Mapping

from rfverify.report.calibration_pages import CALIBRATION_SCHEMA_VERSION
from rfverify.registry import PluginObject
from rfverify.results import JSONValue, Report

if TYPE_CHECKING:
    from rfverify.executors import Executor, Task

__all__ = ["Mutant", "load_mutants", "calibrate", "Unit", "aggregate", "strip_timing", "CALIBRATION_REFERENCES"]

#: Study seeds are STUDY_BASE + i, away from the default seed.
STUDY_BASE = 1_000_000


@dataclass(frozen=True)
class Mutant:
    """One entry of a mutant library: a deliberately changed implementation and what must happen to it.

    ``kind`` selects the verifier (the kind table, :data:`rfverify.kinds.KINDS`), called as
    ``verify(implementation, seed=..., profile=..., checks=..., **options)``.  A bug names the
    check(s) that must end with status ``expect`` (``"fail"``, or ``"error"`` for a plug-in the
    harness must refuse) in ``caught_by``; an *equivalent* mutant (``equivalent=True``, empty
    ``caught_by``) is provably harmless and must pass every check.  ``doc`` says what the bug is,
    where it occurs and why the check catches it (or, for an equivalent mutant, the proof).
    """

    name: str
    kind: str
    #: The mutated plug-in (an object of its kind's contract, or its ``MODULE:ATTR`` name).
    implementation: PluginObject
    options: Mapping[str, object] = field(default_factory=dict)
    caught_by: tuple[str, ...] = ()
    category: str = ""
    doc: str = ""
    equivalent: bool = False
    expect: str = "fail"
    #: Profiles whose budgets are claimed to catch the bug (the library's tests check these).
    profiles: tuple[str, ...] = ("quick", "default")

    def verify(self, *, seed: int, profile: str, checks: Iterable[str] | None = None) -> Report:
        """Run the kind's verifier on this mutant; returns its :class:`~rfverify.results.Report`."""
        from rfverify.kinds import get_kind

        verify = get_kind(self.kind).verify_function()
        return verify(self.implementation, seed=seed, profile=profile,
                      checks=None if checks is None else list(checks), **dict(self.options))


# ---------------------------------------------------------------------------------------------
# Mutant libraries
# ---------------------------------------------------------------------------------------------
_LIBRARIES: dict[str, dict[str, Mutant]] = {}


def _module_of_path(path: Path) -> tuple[str, str]:
    """(the sys.path entry, the dotted module name) that import the file or package directory ``path``.

    Inside a package (folders with ``__init__.py``) the name is the full dotted name from the
    outermost package, so the library's relative imports work and its classes get the same
    ``__module__`` as when imported by that name; a lone file is imported under its stem.
    """
    path = path.resolve()
    if path.is_dir():
        parts, folder = [path.name], path.parent
    elif path.name == "__init__.py":
        parts, folder = [path.parent.name], path.parent.parent
    else:
        parts, folder = [path.stem], path.parent
    while (folder / "__init__.py").is_file():
        parts.insert(0, folder.name)
        folder = folder.parent
    return str(folder), ".".join(parts)


def load_mutants(spec: str) -> list[Mutant]:
    """The mutants of a library: a path (``lib.py`` or a package directory, optionally ``:ATTR``) or
    ``MODULE[:ATTR]``; ATTR defaults to LIBRARY.

    A path is imported under its full dotted name (see :func:`_module_of_path`), with the folder
    above its outermost package put at the front of ``sys.path``, as pytest's ``rootdir``-relative
    import would.  Raises :class:`~rfverify.errors.UsageError` for a bad spec or a malformed library.
    """
    import sys
    from pathlib import Path

    from rfverify.adapters import load_object
    from rfverify.errors import UsageError
    from rfverify.kinds import checks_for

    if not isinstance(spec, str) or not spec.strip():
        raise UsageError(f"--mutants takes a path lib.py[:ATTR], a package directory or MODULE[:ATTR], got {spec!r}")
    head, _, attr = spec.partition(":") if not spec.endswith(".py") else (spec, "", "")
    if head.endswith(".py") or "/" in head or "\\" in head:
        path = Path(head)
        is_package = path.is_dir() and (path / "__init__.py").is_file()
        if not is_package and (path.suffix != ".py" or not path.is_file()):
            raise UsageError(f"mutant library {head!r} is not a .py file or a package directory")
        folder, module = _module_of_path(path)
        if folder not in sys.path:
            sys.path.insert(0, folder)
        obj = load_object(f"{module}:{attr or 'LIBRARY'}")
    else:
        obj = load_object(spec if attr else f"{head}:LIBRARY")
    try:
        entries = list(obj)
    except TypeError:
        raise UsageError(f"mutant library {spec!r} is {type(obj).__name__}, not a list of Mutant") from None
    seen: set[str] = set()
    from rfverify.kinds import KINDS

    for m in entries:
        if not isinstance(m, Mutant):
            raise UsageError(f"mutant library {spec!r} holds {type(m).__name__}, not rfverify.studies.calibration.Mutant")
        if m.name in seen:
            raise UsageError(f"mutant library {spec!r}: duplicate name {m.name!r}")
        seen.add(m.name)
        if m.kind not in KINDS:
            raise UsageError(f"mutant {m.name!r}: unknown kind {m.kind!r}; kinds: {', '.join(KINDS)}")
        known = {c.name for c in checks_for(m.kind)}
        unknown = [c for c in m.caught_by if c not in known]
        if unknown:
            raise UsageError(f"mutant {m.name!r}: {', '.join(unknown)} is not a {m.kind} check")
        if m.equivalent == bool(m.caught_by):
            raise UsageError(f"mutant {m.name!r}: a bug names the checks that catch it (caught_by); an equivalent "
                             "mutant names none")
        if m.expect not in ("fail", "error"):
            raise UsageError(f"mutant {m.name!r}: expect must be 'fail' or 'error', got {m.expect!r}")
    _LIBRARIES[spec] = {m.name: m for m in entries}
    return entries


def _mutant(spec: str | None, name: str) -> Mutant:
    if spec is None:
        raise ValueError("mutant units need the library spec")
    if spec not in _LIBRARIES:
        load_mutants(spec)
    return _LIBRARIES[spec][name]


# ---------------------------------------------------------------------------------------------
# rfverify calibrate: plan, execute, aggregate
# ---------------------------------------------------------------------------------------------
#: Representative correct implementations per kind (zoo entries) when none are named: phase-form,
#: orthogonal and heavy-tailed Fourier features and an unbounded arc-cosine map; two Haar samplers;
#: the FWHT; SR^{3,3} with per-vertex radii (the cheaper of the two SR^{3,3} entries at the default
#: profile, same checks); the rbf kernel and a composite whose feature map is checked too.
CALIBRATION_REFERENCES: tuple[str, ...] = ("rff-phase", "orf", "laplacian-cauchy", "arccos-1", "haar-qr",
                                           "haar-householder", "fwht", "rule-sr33-per-vertex-haar", "kernel-rbf",
                                           "kernel-rbf_laplacian_mix")
#: A bug whose caught_by check fails under fewer than this fraction of seeds is flagged.
POWER_TARGET = 0.99
CONFIDENCE = 0.95
ROLES = ("reference", "equivalent", "mutant")


@dataclass(frozen=True, order=True)
class Unit:
    """One independent piece of work: verify ``name`` (a zoo entry or a library mutant) under one seed and profile.

    ``checks`` None runs the whole suite; a tuple runs only those checks (a bug's power runs).
    """

    role: str
    name: str
    profile: str
    seed: int
    checks: tuple[str, ...] | None = None


def plan_units(references: Iterable[str], mutants: Iterable[Mutant], profiles: Iterable[str], *,
               fa_seeds: int, power_seeds: int, scan_seeds: int = 0, equivalent_seeds: int | None = None,
               seed_base: int = STUDY_BASE) -> list[Unit]:
    """Every unit of a calibration run, in a canonical order.

    References and equivalent mutants run the whole suite under ``fa_seeds`` (``equivalent_seeds``)
    seeds; a bug runs its ``caught_by`` checks under ``power_seeds`` seeds, the first
    ``scan_seeds`` of them with the whole suite (to see which other checks fire).
    """
    eq_seeds = fa_seeds if equivalent_seeds is None else equivalent_seeds
    units: list[Unit] = []
    for profile in profiles:
        for ref in references:
            units += [Unit("reference", ref, profile, seed_base + i) for i in range(fa_seeds)]
        for m in mutants:
            if m.equivalent:
                units += [Unit("equivalent", m.name, profile, seed_base + i) for i in range(eq_seeds)]
            else:
                units += [Unit("mutant", m.name, profile, seed_base + i, None if i < scan_seeds else m.caught_by)
                          for i in range(power_seeds)]
    return units


def run_unit(unit: Unit, library: str | None = None) -> dict[str, object]:
    """Verify one unit; a pure function of ``unit`` (and the library's code).  Never raises.

    Numerical libraries run single-threaded here, in-process or in a worker alike, so a result
    cannot depend on how many BLAS threads happened to be available.
    """
    from rfverify.threads import single_threaded

    t0 = time.perf_counter()
    try:
        with single_threaded():
            if unit.role == "reference":
                from rfverify.studies.zoo import verify_entry, zoo_entries

                report = verify_entry(zoo_entries([unit.name])[0], seed=unit.seed, profile=unit.profile)
            else:
                if library is None:
                    raise ValueError("mutant units need the library spec")
                report = _mutant(library, unit.name).verify(seed=unit.seed, profile=unit.profile, checks=unit.checks)
        statuses = {r.check: r.status for r in report.results}
        messages = {r.check: r.message[:400] for r in report.results if r.status in ("fail", "error")}
    except Exception as exc:  # a broken unit is recorded, never a crash of the whole study
        statuses = {"*": "error"}
        messages = {"*": f"{type(exc).__name__}: {exc}"[:400]}
    return {"unit": unit, "statuses": statuses, "messages": messages, "seconds": time.perf_counter() - t0}


def unit_key(unit: Unit) -> str:
    """The unit's work-unit key (readable: it names the Dask task)."""
    checks = "" if unit.checks is None else "-" + "+".join(unit.checks)
    return f"calibrate-{unit.role}-{unit.name}-{unit.profile}-{unit.seed}{checks}"


def unit_tasks(units: list[Unit], library: str | None = None) -> list[Task]:
    """The units as :class:`rfverify.executors.Task`: ``run_unit`` by name, the library shipped by its spec.

    A library given as a path is shipped as an absolute path (it must exist there on every worker).
    """
    import os

    from rfverify.executors import Task

    lib = library
    requires: list[str] = []
    if lib is not None and (lib.endswith(".py") or ".py:" in lib):
        head, _, attr = lib.partition(".py")
        lib = os.path.abspath(head + ".py") + attr
        requires.append(os.path.abspath(head + ".py"))
    elif lib is not None:
        requires.append(lib)
    impls: dict[str, str] = {}
    from rfverify.studies.zoo import zoo_entries

    for name in sorted({u.name for u in units if u.role == "reference"}):
        e = zoo_entries([name])[0]
        if ":" in e.implementation:
            impls[name] = e.implementation
    return [Task(unit_key(u), "rfverify.studies.calibration:run_unit", (u, lib),
                 tuple(requires + ([impls[u.name]] if u.name in impls and u.role == "reference" else [])))
            for u in units]


def execute(units: list[Unit], library: str | None = None, *, jobs: int = 1,
            progress: Callable[[int, int, float], None] | None = None, executor: Executor | None = None) -> list[dict[str, JSONValue]]:
    """Run ``units`` with ``executor`` (an :class:`rfverify.executors.Executor`; None: in-process for
    ``jobs == 1``, else a pool of ``jobs`` worker processes).

    Results come back sorted by unit, whatever order they finished in.  A unit that produced no
    result (its worker died twice) is recorded with status ``error`` for ``*``.
    """
    from rfverify.executors import InProcess, ProcessPool

    own = executor is None
    ex = executor if executor is not None else (ProcessPool(jobs) if jobs > 1 else InProcess())
    try:
        outcomes = ex.map(unit_tasks(units, library), progress=progress)
    finally:
        if own:
            ex.close()
    out = []
    for u, o in zip(units, outcomes):
        if o.ok:
            out.append(o.value)
        else:
            out.append({"unit": u, "statuses": {"*": "error"}, "messages": {"*": (o.error or "")[:400]}, "seconds": 0.0})
    return sorted(out, key=lambda r: r["unit"])


def _interval(k: int, n: int) -> list[float]:
    from rfverify.stats import clopper_pearson  # scipy.stats: imported when an interval is computed, not for --help

    lo, hi = clopper_pearson(k, n, CONFIDENCE)
    return [lo, hi]


def _design_alphas(kind: str, profile: str) -> tuple[float, dict[str, float]]:
    """Family-wise alpha of ``profile`` and the alpha each check tests at (0 for a check not decided by a test:
    deterministic, a measurement or a note).  A statistical check without a share of its own tests at the share of
    the checks it replaces, the same value."""
    from rfverify.profiles import get_profile
    from rfverify.kinds import checks_for, statistical_count

    fam = get_profile(profile).family_alpha
    share = fam / max(1, statistical_count(kind))
    return fam, {s.name: (share if s.statistical else 0.0) for s in checks_for(kind)}


def _kind_of(role: str, name: str, library: str | None) -> str:
    if role == "reference":
        from rfverify.studies.zoo import zoo_entries

        return zoo_entries([name])[0].kind
    return _mutant(library, name).kind if library else "?"


def _false_alarm_entry(role: str, name: str, profile: str, kind: str, rs: list[dict[str, JSONValue]],
                       flags: list[str]) -> dict[str, object]:
    """A correct implementation's (or an equivalent mutant's) failures per check and family-wise, over its seeds;
    a rate whose interval lies above the design alpha is flagged (``flags``)."""
    n = len(rs)
    fam, alphas = _design_alphas(kind, profile)
    checks: dict[str, JSONValue] = {}
    for check, alpha in alphas.items():
        st = [r["statuses"].get(check, r["statuses"].get("*", "missing")) for r in rs]
        k = sum(s == "fail" for s in st)
        errors = sum(s == "error" for s in st)
        skipped = sum(s == "skip" for s in st)
        ran = n - skipped  # a check that does not apply is no trial
        iv = _interval(k, ran) if ran else [0.0, 1.0]
        flagged = iv[0] > alpha or errors > 0
        checks[check] = {"failures": k, "errors": errors, "skipped": skipped, "seeds": ran,
                         "rate": k / ran if ran else 0.0, "interval95": iv, "design_alpha": alpha,
                         "flagged": flagged}
        if flagged:
            what = "correct implementation" if role == "reference" else "equivalent mutant"
            flags.append(f"false alarm: {what} {name} ({profile}) — {check} failed {k}/{n}"
                         + (f", errored {errors}/{n}" if errors else "")
                         + f", 95% interval [{iv[0]:.3g}, {iv[1]:.3g}] vs design alpha {alpha:.3g}")
    bad_seeds = [r["unit"].seed for r in rs if any(s in ("fail", "error") for s in r["statuses"].values())]
    k = len(bad_seeds)
    iv = _interval(k, n)
    fw = {"failures": k, "seeds": n, "rate": k / n, "interval95": iv, "design_alpha": fam,
          "flagged": iv[0] > fam, "failing_seeds": bad_seeds[:20]}
    if fw["flagged"]:
        flags.append(f"family-wise false alarm: {name} ({profile}) failed under {k}/{n} seeds, 95% interval "
                     f"[{iv[0]:.3g}, {iv[1]:.3g}] vs design alpha {fam:.3g}")
    examples: dict[str, str] = {}
    for r in rs:
        for c, msg in r["messages"].items():
            examples.setdefault(c, f"seed {r['unit'].seed}: {msg}")
    return {"name": name, "kind": kind, "profile": profile, "seeds": n, "family": fw, "checks": checks,
            "examples": examples, "seconds": round(sum(r["seconds"] for r in rs), 2)}


def _power_entry(m: Mutant, name: str, profile: str, kind: str, rs: list[dict[str, JSONValue]],
                 flags: list[str]) -> dict[str, object]:
    """A mutant's catch rate by each check meant to catch it, by any of them, and what the other checks did; a
    power below POWER_TARGET is flagged (``flags``)."""
    n = len(rs)
    caught = {}
    for check in m.caught_by:
        k = sum(r["statuses"].get(check, r["statuses"].get("*")) == m.expect for r in rs)
        iv = _interval(k, n)
        flagged = k / n < POWER_TARGET
        caught[check] = {"caught": k, "seeds": n, "power": k / n, "interval95": iv, "flagged": flagged,
                         "missed_seeds": [r["unit"].seed for r in rs
                                          if r["statuses"].get(check, r["statuses"].get("*")) != m.expect][:20]}
        if flagged:
            claim = "" if profile in m.profiles else f" (the library claims it only at {', '.join(m.profiles)})"
            flags.append(f"power: {check} caught {name} ({profile}) under {k}/{n} seeds = {k / n:.0%} < "
                         f"{POWER_TARGET:.0%}, 95% interval [{iv[0]:.3g}, {iv[1]:.3g}]{claim}")
    any_k = sum(any(r["statuses"].get(c, r["statuses"].get("*")) == m.expect for c in m.caught_by) for r in rs)
    scans = [r for r in rs if r["unit"].checks is None]
    others: dict[str, dict[str, int]] = {}
    for r in scans:
        for c, s in r["statuses"].items():
            if c in m.caught_by or c == "*":
                continue
            o = others.setdefault(c, {"fired": 0, "of": 0})
            o["of"] += 1
            o["fired"] += s in ("fail", "error")
    return {"name": name, "kind": kind, "category": m.category, "profile": profile, "seeds": n,
            "expect": m.expect, "claimed_profiles": list(m.profiles), "caught_by": caught,
            "caught_any": {"caught": any_k, "power": any_k / n, "interval95": _interval(any_k, n)},
            "other_checks": others, "scan_seeds": len(scans), "seconds": round(sum(r["seconds"] for r in rs), 2)}


def aggregate(results: list[dict[str, JSONValue]], library: str | None = None) -> dict[str, object]:
    """False-alarm rates, power and timings from unit results (deterministic in everything but ``seconds``)."""
    groups: dict[tuple[str, str, str], list[dict[str, JSONValue]]] = {}
    for r in results:
        u = r["unit"]
        groups.setdefault((u.role, u.name, u.profile), []).append(r)
    false_alarms: list[dict[str, JSONValue]] = []
    equivalents: list[dict[str, JSONValue]] = []
    powers: list[dict[str, JSONValue]] = []
    flags: list[str] = []
    for (role, name, profile), rs in sorted(groups.items(), key=lambda kv: (ROLES.index(kv[0][0]), kv[0][1:])):
        kind = _kind_of(role, name, library)
        if role in ("reference", "equivalent"):
            entry = _false_alarm_entry(role, name, profile, kind, rs, flags)
            if role == "equivalent":
                m = _mutant(library, name)
                entry.update(category=m.category, doc=m.doc)
                equivalents.append(entry)
            else:
                false_alarms.append(entry)
        else:
            powers.append(_power_entry(_mutant(library, name), name, profile, kind, rs, flags))
    pooled = _pool_by_kind(false_alarms)
    return {"false_alarms": false_alarms, "by_kind": pooled, "equivalent": equivalents, "power": powers,
            "flags": flags}


def _pool_by_kind(false_alarms: list[dict[str, JSONValue]]) -> list[dict[str, JSONValue]]:
    """Failures pooled over the references of each kind (seed-trials, common random numbers across references)."""
    pooled: dict[tuple[str, str, str], dict[str, JSONValue]] = {}
    for e in false_alarms:
        items = list(e["checks"].items()) + [("(family-wise)", e["family"])]
        for check, c in items:
            p = pooled.setdefault((e["kind"], e["profile"], check), {
                "kind": e["kind"], "profile": e["profile"], "check": check, "failures": 0, "trials": 0,
                "references": [], "design_alpha": c["design_alpha"]})
            p["failures"] += c["failures"]
            p["trials"] += c["seeds"]
            if c["seeds"]:
                p["references"].append(e["name"])
    out = []
    for key in sorted(pooled, key=lambda k: (k[0], k[1], k[2] == "(family-wise)", k[2])):
        p = pooled[key]
        if not p["trials"]:
            continue  # the check applies to none of the references (e.g. adapted-approximation: no reference is data-dependent)
        p["rate"] = p["failures"] / p["trials"]
        p["interval95"] = _interval(p["failures"], p["trials"])
        p["flagged"] = p["interval95"][0] > p["design_alpha"]
        out.append(p)
    return out


def _chosen_mutants(library: str | None, mutants: Iterable[str] | None) -> list[Mutant]:
    """The mutants of ``library`` named in ``mutants`` (None: all of them); an unknown name is a UsageError."""
    from rfverify.errors import UsageError

    if library is None:
        if mutants:
            raise UsageError("--mutant NAME needs --mutants LIBRARY")
        return []
    lib = load_mutants(library)
    if mutants is None:
        return lib
    by = {m.name: m for m in lib}
    names = list(dict.fromkeys(mutants))
    unknown = [n for n in names if n not in by]
    if unknown:
        raise UsageError(f"unknown mutant(s) {', '.join(unknown)} in {library}")
    return [by[n] for n in names]


def calibrate(*, references: Iterable[str] = CALIBRATION_REFERENCES, library: str | None = None,
              mutants: Iterable[str] | None = None, profiles: Iterable[str] = ("quick", "default"),
              fa_seeds: int = 100, power_seeds: int = 100, scan_seeds: int = 2,
              equivalent_seeds: int | None = 20, seed_base: int = STUDY_BASE, jobs: int = 1,
              progress: Callable[[int, int, float], None] | None = None, executor: Executor | None = None,
              order: Callable[[list[Unit]], list[Unit]] | None = None) -> dict[str, object]:
    """Run a calibration study; returns the JSON-ready document (see :func:`write_calibration`).

    ``references``: zoo entry names; ``library``: a mutant library spec (:func:`load_mutants`) and
    ``mutants`` the names to use from it (None: all); ``equivalent_seeds`` None means ``fa_seeds``;
    ``order`` permutes the execution order (for testing that it does not matter); ``executor`` (an
    :class:`rfverify.executors.Executor`, e.g. a Dask cluster) replaces ``jobs``.  The defaults are
    the documented full run (docs/statistics.md, "Calibration").
    """
    import os

    from rfverify.errors import UsageError
    from rfverify.profiles import get_profile
    from rfverify.studies.zoo import zoo_entries

    profiles = list(dict.fromkeys(profiles))
    for p in profiles:
        get_profile(p)
    refs = list(dict.fromkeys(references))
    zoo_entries(refs)  # unknown names are a UsageError
    for name, value in (("fa_seeds", fa_seeds), ("power_seeds", power_seeds), ("scan_seeds", scan_seeds),
                        ("equivalent_seeds", 0 if equivalent_seeds is None else equivalent_seeds),
                        ("jobs", jobs - 1)):
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise UsageError(f"{name.replace('_', '-')} must be a non-negative integer, got {value!r}")
    chosen = _chosen_mutants(library, mutants)
    units = plan_units(refs, chosen, profiles, fa_seeds=fa_seeds, power_seeds=power_seeds,
                       scan_seeds=min(scan_seeds, power_seeds), equivalent_seeds=equivalent_seeds,
                       seed_base=seed_base)
    run_order = order(list(units)) if order is not None else units
    t0 = time.perf_counter()
    results = execute(run_order, library, jobs=jobs, progress=progress, executor=executor)
    wall = time.perf_counter() - t0
    doc: dict[str, JSONValue] = {
        "schema_version": CALIBRATION_SCHEMA_VERSION,
        "settings": {"references": refs, "library": library, "mutants": [m.name for m in chosen],
                     "profiles": profiles, "fa_seeds": fa_seeds, "power_seeds": power_seeds,
                     "scan_seeds": min(scan_seeds, power_seeds),
                     "equivalent_seeds": fa_seeds if equivalent_seeds is None else equivalent_seeds,
                     "seed_base": seed_base, "confidence": CONFIDENCE, "power_target": POWER_TARGET,
                     "design": {p: {"family_alpha": get_profile(p).family_alpha, "power": get_profile(p).power}
                                for p in profiles}},
    }
    doc.update(aggregate(results, library))
    by_role: dict[str, float] = {}
    for r in results:
        by_role[r["unit"].role] = by_role.get(r["unit"].role, 0.0) + r["seconds"]
    where = executor.description if executor is not None else (f"--jobs {jobs}" if jobs > 1 else "in-process")
    doc["timing"] = {"wall_seconds": round(wall, 1), "jobs": jobs, "executor": where, "units": len(units),
                     "unit_seconds_by_role": {k: round(v, 1) for k, v in sorted(by_role.items())},
                     "cpus": os.cpu_count()}
    return doc


def strip_timing(doc: JSONValue) -> JSONValue:
    """``doc`` without its timing fields (what must be identical for any ``jobs`` and order)."""
    if isinstance(doc, dict):
        return {k: strip_timing(v) for k, v in doc.items() if k not in ("timing", "seconds")}
    if isinstance(doc, list):
        return [strip_timing(v) for v in doc]
    return doc
