"""The corner study: the planted corner bugs of
:mod:`tests.mutants.corner_mutants` under the default seed and 20 others, and their correct twins' false alarms at
the corner configurations over 200 seeds, at the default profile.

* **Bugs** — each bug's catching check (main configuration, then the corners, as ``rfverify check`` runs it) under
  seeds ``DEFAULT_SEED`` and 1 … 20: caught = status ``fail`` with the corner named in the message.
* **Twins** — each twin's unbiasedness, concentration and error-rate at every corner of the default design (each
  corner replayed alone through its pins, as its reproduce command would: the corner's alpha share, budget and
  streams), under the study seeds 1,000,000 … 1,000,199; the main configuration's false alarms are calibrated
  elsewhere (``reports/calibration/``).  A seed is a false alarm when any corner test fails (family-wise over
  the 3 checks x 4 corners: at most ``3 x 1e-3/3 x 1/2 = 5e-4`` by design; concentration's corners keep gamma, as
  in the full run).

Run (about 20 min of CPU; ``--jobs 2`` halves the wall time)::

    nice -n 10 python -m tests.corner_study --out reports/calibration/corners.json --jobs 2
    nice -n 10 python -m tests.corner_study --orthogonal --out reports/calibration/corners-orthogonal.json --jobs 2

The second is the Haar battery's: ``sign_fix_up_to_64`` (haar-trace-moments) under the 21 seeds, and ``haar_qr``'s
five Haar checks at the corner dimensions d = 1 and 128 over the 200 study seeds (family-wise at most
``1e-3 x 1/2 = 5e-4`` by design).

``tests/test_corners.py`` replays a subset (``slow``) and checks it against the committed results.
"""

from __future__ import annotations

import argparse
import json
import os
import time
import warnings
from dataclasses import replace
from typing import Any

from rfverify.corners import design
from rfverify.seeding import DEFAULT_SEED
from rfverify.stats import clopper_pearson

RBF = {"kernel": "rbf", "kernel_params": {"gamma": 0.5}, "dim": 16, "bound": 2 ** 0.5}
STAT_CHECKS = ("unbiasedness", "concentration", "error-rate")
BUG_SEEDS = (DEFAULT_SEED, *range(1, 21))
TWIN_SEEDS = tuple(1_000_000 + i for i in range(200))


def _classes() -> tuple[dict[str, Any], dict[str, Any]]:
    from tests.mutants import corner_mutants as cm
    from tests.mutants.explore_mutants import CeilCosSin

    bugs = {cls.__name__: cls for cls in cm.CORNER_STAT_BUGS}
    twins = {cls.__name__: cls for cls in (*cm.CORNER_STAT_TWINS, CeilCosSin)}
    return bugs, twins


def run_bug(name: str, seed: int) -> dict[str, Any]:
    """The bug's catching check under ``seed`` (main configuration and corners)."""
    import rfverify
    from tests.mutants import corner_mutants as cm

    bugs, _ = _classes()
    cls = bugs[name]
    check, corner = cm.CORNER_STAT_BUGS[cls]
    t0 = time.process_time()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = rfverify.verify(cls, seed=seed, profile="default", checks=[check], metrics=False, **RBF).results[0]
    return {"bug": name, "seed": seed, "check": check, "status": res.status, "corner_named": corner in res.message,
            "caught": res.status == "fail" and corner in res.message, "pvalue": res.pvalue,
            "corner": res.details.get("corner"), "reproduce": res.reproduce, "message": res.message[:600],
            "cpu": round(time.process_time() - t0, 2)}


def twin_corners() -> list[Any]:
    """The default design's corners for the twins' configuration (rbf, gamma 0.5, d = 16, the default space)."""
    from rfverify.kinds.feature_map import FeatureMapConfig
    from rfverify.implementations.rff import RandomFourierFeatures

    config = FeatureMapConfig(RandomFourierFeatures, **RBF)
    return design(config.space, 16, {"gamma": 0.5}, "default")


def run_twin(name: str, seed: int) -> dict[str, Any]:
    """Every statistical check at every corner, each corner replayed alone through its pins (in-process)."""
    from rfverify.kinds import checks_for
    from rfverify.kinds.feature_map import FeatureMapConfig
    from rfverify.runner import run_check

    _, twins = _classes()
    specs = {s.name: s for s in checks_for("feature-map")}
    out: dict[str, Any] = {"twin": name, "seed": seed, "results": []}
    t0 = time.process_time()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for check in STAT_CHECKS:
            corners = twin_corners()
            if check == "concentration":  # its corners keep the declared kernel parameters (C is declared for them)
                corners = list({replace(c, params=()).key(): replace(c, params=()) for c in corners}.values())
            for corner in corners:
                config = FeatureMapConfig(twins[name], seed=seed, profile="default", pins=corner.pins(), **RBF)
                r = run_check(config, specs[check])
                out["results"].append({"corner": corner.describe(), "check": check, "status": r.status,
                                       "pvalue": r.pvalue, **({"message": r.message[:400]} if r.status != "pass"
                                                              else {})})
    out["false_alarm"] = any(x["status"] in ("fail", "error") for x in out["results"])
    out["cpu"] = round(time.process_time() - t0, 2)
    return out


HAAR_CHECKS = ("haar-determinant", "haar-entries", "haar-trace-moments", "haar-eigenangles", "haar-invariance")
ORTH_CORNERS = (1, 128)


def run_orth_bug(seed: int) -> dict[str, Any]:
    """sign_fix_up_to_64 under ``seed``: haar-trace-moments (declared d = 16, then the corners)."""
    from rfverify.kinds import get_kind
    from tests.mutants import corner_mutants as cm

    res = get_kind("orthogonal").verify_function()(cm.sign_fix_up_to_64, dim=16, group="O", seed=seed,
                                                    profile="default", checks=["haar-trace-moments"]).results[0]
    caught = res.status == "fail" and "corner dimension d = 128" in res.message
    return {"bug": "sign_fix_up_to_64", "seed": seed, "check": "haar-trace-moments", "status": res.status,
            "corner_named": "d = 128" in res.message, "caught": caught, "pvalue": res.pvalue,
            "corner": res.details.get("corner"), "reproduce": res.reproduce, "message": res.message[:600], "cpu": 0.0}


def run_orth_twin(seed: int) -> dict[str, Any]:
    """haar_qr: the five Haar checks at each corner dimension, each replayed alone (``--pin d=D``)."""
    from rfverify.implementations.orthogonal import haar_qr
    from rfverify.kinds import checks_for
    from rfverify.kinds.orthogonal import OrthogonalConfig
    from rfverify.runner import run_check

    specs = {s.name: s for s in checks_for("orthogonal")}
    out: dict[str, Any] = {"twin": "haar_qr", "seed": seed, "results": []}
    t0 = time.process_time()
    for d in ORTH_CORNERS:
        config = OrthogonalConfig(haar_qr, dim=16, group="O", seed=seed, profile="default", pins={"d": d})
        for check in HAAR_CHECKS:
            spec = specs[check]
            ctx = config.context(spec)
            if spec.applies is not None and spec.applies(ctx) and d >= 2:
                continue
            r = run_check(config, spec)
            out["results"].append({"corner": f"d = {d}", "check": check, "status": r.status, "pvalue": r.pvalue,
                                   **({"message": r.message[:400]} if r.status not in ("pass", "skip") else {})})
    out["false_alarm"] = any(x["status"] in ("fail", "error") for x in out["results"])
    out["cpu"] = round(time.process_time() - t0, 2)
    return out


def run_reference(name: str, seed: int) -> dict[str, Any]:
    """A zoo reference under the whole suite at the default profile (``explore`` and the corners included), as
    ``rfverify calibrate`` runs it (:func:`rfverify.studies.calibration.run_unit`)."""
    from rfverify.studies.calibration import Unit, run_unit

    r = run_unit(Unit("reference", name, "default", seed))
    return {"reference": name, "seed": seed, "statuses": r["statuses"], "messages": r["messages"],
            "false_alarm": any(v in ("fail", "error") for v in r["statuses"].values()), "cpu": round(r["seconds"], 2)}


def _unit(args: tuple[str, str, int]) -> dict[str, Any]:
    from threadpoolctl import threadpool_limits

    role, name, seed = args
    with threadpool_limits(limits=1):
        if role == "reference":
            return {"role": role, **run_reference(name, seed)}
        if role == "obug":
            return run_orth_bug(seed)
        if role == "otwin":
            return run_orth_twin(seed)
        return run_bug(name, seed) if role == "bug" else run_twin(name, seed)


def study(jobs: int = 1, bug_seeds: tuple[int, ...] = BUG_SEEDS, twin_seeds: tuple[int, ...] = TWIN_SEEDS,
          bugs: tuple[str, ...] | None = None, twins: tuple[str, ...] | None = None,
          orthogonal: bool = False) -> dict[str, Any]:
    all_bugs, all_twins = _classes()
    if orthogonal:
        units = [("obug", "sign_fix_up_to_64", s) for s in bug_seeds] + [("otwin", "haar_qr", s) for s in twin_seeds]
    else:
        units = [("bug", b, s) for b in (bugs or tuple(all_bugs)) for s in bug_seeds]
        units += [("twin", t, s) for t in (twins or tuple(all_twins)) for s in twin_seeds]
    t0 = time.time()
    if jobs > 1:
        import multiprocessing as mp

        with mp.get_context("fork").Pool(jobs) as pool:
            results = pool.map(_unit, units, chunksize=1)
    else:
        results = [_unit(u) for u in units]
    wall = time.time() - t0
    doc: dict[str, Any] = {"profile": "default", "configuration": RBF, "bug_seeds": list(bug_seeds),
                           "twin_seeds": [twin_seeds[0], twin_seeds[-1], len(twin_seeds)] if twin_seeds else [],
                           "corners": [c.describe() for c in twin_corners()], "bugs": {}, "twins": {}}
    if orthogonal:
        doc.update(configuration={"kind": "orthogonal", "dim": 16, "group": "O"},
                   corners=[f"d = {d}" for d in ORTH_CORNERS])
    for b in sorted({u[1] for u in units if u[0] in ("bug", "obug")}):
        rs = [r for r in results if r.get("bug") == b]
        k = sum(r["caught"] for r in rs)
        doc["bugs"][b] = {"check": rs[0]["check"], "caught": k, "seeds": len(rs),
                          "interval95": list(clopper_pearson(k, len(rs), 0.95)),
                          "missed_seeds": [r["seed"] for r in rs if not r["caught"]],
                          "example": {x: rs[0][x] for x in ("message", "reproduce", "corner")},
                          "per_seed": [{x: r[x] for x in ("seed", "status", "corner_named", "pvalue")} for r in rs]}
    for t in sorted({u[1] for u in units if u[0] in ("twin", "otwin")}):
        rs = [r for r in results if r.get("twin") == t]
        k = sum(r["false_alarm"] for r in rs)
        doc["twins"][t] = {"false_alarms": k, "seeds": len(rs), "interval95": list(clopper_pearson(k, len(rs), 0.95)),
                           "tests_per_seed": len(rs[0]["results"]) if rs else 0,
                           "failing": [{"seed": r["seed"], "results": [x for x in r["results"] if x["status"] != "pass"]}
                                       for r in rs if r["false_alarm"]],
                           "min_pvalue": min((x["pvalue"] for r in rs for x in r["results"]
                                              if x["pvalue"] is not None), default=None)}
    doc["timing"] = {"wall_seconds": round(wall, 1), "unit_cpu_seconds": round(sum(r["cpu"] for r in results), 1),
                     "jobs": jobs, "load_average_at_end": list(os.getloadavg())}
    return doc


def plan(bug_seeds: tuple[int, ...] = BUG_SEEDS, twin_seeds: tuple[int, ...] = TWIN_SEEDS,
         references: tuple[str, ...] = ("rff-phase",), reference_seeds: int = 0) -> list[tuple[str, str, int]]:
    """Every unit of the whole study, interleaved so that a run stopped early leaves balanced partial counts:
    the bugs (seed by seed), then the twins and haar_qr (seed by seed) with a calibration reference run every
    five seeds."""
    bugs, twins = _classes()
    units: list[tuple[str, str, int]] = []
    for s in bug_seeds:
        units += [("bug", b, s) for b in bugs] + [("obug", "sign_fix_up_to_64", s)]
    refs = [("reference", r, 1_000_000 + i) for i in range(reference_seeds) for r in references]
    for i, s in enumerate(twin_seeds):
        units += [("twin", t, s) for t in twins] + [("otwin", "haar_qr", s)]
        if i % 5 == 0 and refs:  # one reference run per five twin seeds
            units.append(refs.pop(0))
    return units + refs


def run_incremental(units: list[tuple[str, str, int]], path: str, jobs: int = 1) -> None:
    """Run ``units``, appending one JSON line per finished unit to ``path`` (units already there are skipped)."""
    done: set[tuple[str, str, int]] = set()
    if os.path.exists(path):
        with open(path) as fh:
            for line in fh:
                u = json.loads(line)["unit"]
                done.add((u[0], u[1], u[2]))
    todo = [u for u in units if u not in done]
    import multiprocessing as mp

    with open(path, "a") as fh, mp.get_context("fork").Pool(jobs) as pool:
        for u, r in zip(todo, pool.imap(_unit, todo, chunksize=1)):
            fh.write(json.dumps({"unit": list(u), "result": r}, default=float) + "\n")
            fh.flush()


def summarise(path: str) -> dict[str, Any]:
    """The study's document from the JSON lines of :func:`run_incremental` (counts, intervals, failing units)."""
    rows = [json.loads(line) for line in open(path)]
    doc: dict[str, Any] = {"profile": "default", "configuration": {"feature-map": RBF, "orthogonal":
                           {"dim": 16, "group": "O"}}, "corners": {"feature-map": [c.describe() for c in twin_corners()],
                                                                   "orthogonal": [f"d = {d}" for d in ORTH_CORNERS]},
                           "bugs": {}, "twins": {}, "references": {}}
    by: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for row in rows:
        role, name, _ = row["unit"]
        by.setdefault(("bug" if role in ("bug", "obug") else "twin" if role in ("twin", "otwin") else role, name),
                      []).append(row["result"])
    for (role, name), rs in sorted(by.items()):
        rs.sort(key=lambda r: r["seed"])
        n = len(rs)
        if role == "bug":
            k = sum(r["caught"] for r in rs)
            doc["bugs"][name] = {"check": rs[0]["check"], "caught": k, "seeds": n,
                                 "interval95": list(clopper_pearson(k, n, 0.95)),
                                 "missed_seeds": [r["seed"] for r in rs if not r["caught"]],
                                 "example": {x: rs[0][x] for x in ("seed", "message", "reproduce", "corner")},
                                 "per_seed": [{x: r[x] for x in ("seed", "status", "corner_named", "pvalue")} for r in rs]}
        else:
            k = sum(r["false_alarm"] for r in rs)
            entry = {"false_alarms": k, "seeds": n, "interval95": list(clopper_pearson(k, n, 0.95)),
                     "seed_range": [rs[0]["seed"], rs[-1]["seed"]],
                     "cpu_seconds": round(sum(r["cpu"] for r in rs), 1)}
            if role == "twin":
                entry["tests_per_seed"] = len(rs[0]["results"])
                entry["failing"] = [{"seed": r["seed"], "results": [x for x in r["results"]
                                                                    if x["status"] in ("fail", "error")]}
                                    for r in rs if r["false_alarm"]]
                ps = [x["pvalue"] for r in rs for x in r["results"] if x["pvalue"] is not None]
                entry["min_pvalue"] = min(ps) if ps else None
                doc["twins"][name] = entry
            else:
                checks = sorted({c for r in rs for c in r["statuses"]})
                entry["checks"] = {c: {s: sum(r["statuses"].get(c) == s for r in rs)
                                       for s in ("pass", "fail", "error", "skip", "xfail")} for c in checks}
                entry["failing"] = [{"seed": r["seed"], "messages": r["messages"]} for r in rs if r["false_alarm"]]
                doc["references"][name] = entry
    return doc


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default="reports/calibration/corners.json")
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--twin-seeds", type=int, default=len(TWIN_SEEDS))
    parser.add_argument("--reference-seeds", type=int, default=0,
                        help="also run rff-phase under the whole suite (explore and corners) over this many seeds")
    parser.add_argument("--summarise-only", action="store_true", help="only rebuild --out from its .jsonl")
    args = parser.parse_args(argv)
    lines = os.path.splitext(args.out)[0] + ".jsonl"
    t0 = time.time()
    if not args.summarise_only:
        run_incremental(plan(twin_seeds=TWIN_SEEDS[: args.twin_seeds], reference_seeds=args.reference_seeds),
                        lines, args.jobs)
    doc = summarise(lines)
    doc["timing"] = {"wall_seconds_this_run": round(time.time() - t0, 1), "jobs": args.jobs,
                     "load_average_at_end": list(os.getloadavg())}
    with open(args.out, "w") as fh:
        json.dump(doc, fh, indent=1, default=float)
        fh.write("\n")
    for b, e in doc["bugs"].items():
        print(f"bug {b}: caught {e['caught']}/{e['seeds']} by {e['check']}")
    for t, e in {**doc["twins"], **doc["references"]}.items():
        print(f"{t}: {e['false_alarms']}/{e['seeds']} seeds with a false alarm")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
