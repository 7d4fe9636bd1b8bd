"""The quadrature corner study: rule-unbiasedness at the corner dimensions.

* **Bugs** — each planted corner bug of :data:`tests.mutants.corner_mutants.QUADRATURE_CORNER_BUGS` through the
  whole check at the default profile (declared d = 8, then the corners d = 1 and 64, as ``rfverify check`` runs it)
  under seeds ``DEFAULT_SEED`` and 1 … 20: caught = status ``fail`` with its corner named in the message.
* **Twins** — the zoo's SR^{3,3} rules (shared radius, per-vertex radii) at every corner of the default design,
  each corner replayed alone through ``--pin d=D`` (its alpha 2.5e-4, its 2000 draws, its streams), under the study
  seeds 1,000,000 + i; also d = 2 (thorough's extra corner, run at the default's corner alpha and budget), where
  the arc-cosine order-0 integrands are left out (infinite variance).  A seed is a false alarm when any corner
  fails: at most 2 x 2.5e-4 = 5e-4 per seed and twin at d = 1, 64 by design.
* **Cost** — CPU seconds of one in-process default rule-unbiasedness run (sr33-haar, d = 8), with its corners and
  with the declared d alone (the check before the corners: the same draws at alpha / 2 vs alpha).

Run (about 15 min of CPU; ``--jobs 2`` halves the wall time)::

    nice -n 10 python -m tests.quadrature_corner_study --out reports/calibration/quadrature-corners.json --jobs 2
"""

from __future__ import annotations

import argparse
import json
import time
from typing import Any

from rfverify.seeding import DEFAULT_SEED
from rfverify.stats import clopper_pearson

BUG_SEEDS = (DEFAULT_SEED, *range(1, 21))
CHECK = "rule-unbiasedness"


def _rules() -> tuple[dict[str, Any], dict[str, Any]]:
    from tests.mutants import corner_mutants as cm

    return ({r.name: r for r in cm.QUADRATURE_CORNER_BUGS},
            {r.name: r for r in cm.QUADRATURE_CORNER_TWINS})


def _run(rule: Any, seed: int, pins: dict[str, Any] | None = None) -> Any:
    from rfverify.kinds.quadrature import QuadratureConfig
    from rfverify.runner import run

    config = QuadratureConfig(rule, dim=8, degree=3, seed=seed, profile="default", pins=pins)
    return run(config, checks=[CHECK], isolate=False).results[0]


def run_bug(name: str, seed: int) -> dict[str, Any]:
    from tests.mutants import corner_mutants as cm

    bugs, _ = _rules()
    rule = bugs[name]
    d = cm.QUADRATURE_CORNER_BUGS[rule]
    t = time.process_time()
    r = _run(rule, seed)
    named = f"at the corner dimension d = {d}" in r.message
    return {"bug": name, "seed": seed, "status": r.status, "caught": r.status == "fail" and named,
            "corner": r.details.get("corner"), "cpu_s": time.process_time() - t}


def run_twin(name: str, seed: int, dims: tuple[int, ...]) -> dict[str, Any]:
    _, twins = _rules()
    out: dict[str, Any] = {"twin": name, "seed": seed, "corners": {}}
    for d in dims:
        t = time.process_time()
        r = _run(twins[name], seed, {"d": d})
        out["corners"][str(d)] = {"status": r.status, "pvalue": r.pvalue, "cpu_s": time.process_time() - t,
                                  "left_out": len(r.details.get("left_out", {}).get("integrands", ()))}
    return out


def cost() -> dict[str, float]:
    """CPU seconds of the default check on sr33-haar at d = 8: with its corners, and the declared d alone."""
    from rfverify.implementations.quadrature import sr33_haar
    from rfverify.kinds.quadrature import QuadratureConfig
    from rfverify.properties.quadrature_unbiasedness import _rule_unbiasedness

    config = QuadratureConfig(sr33_haar, dim=8, degree=3, profile="default")
    spec = next(s for s in config.checks() if s.name == CHECK)
    _run(sr33_haar, DEFAULT_SEED)  # warm up (imports, caches)
    t = time.process_time()
    _run(sr33_haar, DEFAULT_SEED)
    with_corners = time.process_time() - t
    t = time.process_time()
    _rule_unbiasedness(config.context(spec))
    alone = time.process_time() - t
    return {"with_corners_cpu_s": with_corners, "declared_d_alone_cpu_s": alone}


def _task(args: tuple[str, ...]) -> dict[str, Any]:
    kind, name, seed, *dims = args
    if kind == "bug":
        return run_bug(name, int(seed))
    return run_twin(name, int(seed), tuple(int(d) for d in dims))


def _logged(rows: Any, out: str) -> list[dict[str, Any]]:
    """The rows, each also appended to ``out + "l"`` (JSON lines) as it arrives."""
    done = []
    with open(out + "l", "w") as fh:
        for r in rows:
            fh.write(json.dumps(r, default=float) + "\n")
            fh.flush()
            done.append(r)
    return done


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--out", required=True)
    p.add_argument("--jobs", type=int, default=1)
    p.add_argument("--twin-seeds", type=int, default=200)
    p.add_argument("--bug-seeds", type=int, default=len(BUG_SEEDS), help="the first N of the 21 bug seeds")
    p.add_argument("--dims", default="1,64,2", help="corner dimensions replayed for the twins")
    args = p.parse_args(argv)
    bugs, twins = _rules()
    dims = [str(int(d)) for d in args.dims.split(",")]
    tasks = [("bug", b, str(s)) for b in bugs for s in BUG_SEEDS[: args.bug_seeds]]
    tasks += [("twin", t, str(1_000_000 + i), *dims) for i in range(args.twin_seeds) for t in twins]
    t0 = time.time()
    if args.jobs > 1:
        from concurrent.futures import ProcessPoolExecutor

        with ProcessPoolExecutor(args.jobs) as ex:
            rows = _logged(ex.map(_task, tasks, chunksize=4), args.out)
    else:
        rows = _logged(map(_task, tasks), args.out)
    summary: dict[str, Any] = {"bugs": {}, "twins": {}, "wall_s": time.time() - t0}
    for b in bugs:
        rs = [r for r in rows if r.get("bug") == b]
        summary["bugs"][b] = {"caught": sum(r["caught"] for r in rs), "seeds": len(rs),
                              "missed_seeds": [r["seed"] for r in rs if not r["caught"]],
                              "cpu_s_mean": sum(r["cpu_s"] for r in rs) / len(rs)}
    for t in twins:
        rs = [r for r in rows if r.get("twin") == t]
        entry: dict[str, Any] = {"seeds": len(rs)}
        for d in dims:
            fails = [r["seed"] for r in rs if r["corners"][d]["status"] != "pass"]
            lo, hi = clopper_pearson(len(fails), len(rs), 0.95)
            entry[f"d={d}"] = {"false_alarms": len(fails), "interval95": [lo, hi], "failing_seeds": fails,
                               "left_out": rs[0]["corners"][d]["left_out"] if rs else 0,
                               "cpu_s_mean": sum(r["corners"][d]["cpu_s"] for r in rs) / max(1, len(rs))}
        design = [d for d in dims if d in ("1", "64")]
        fam = [r["seed"] for r in rs if any(r["corners"][d]["status"] != "pass" for d in design)]
        lo, hi = clopper_pearson(len(fam), len(rs), 0.95)
        entry["default_design"] = {"false_alarms": len(fam), "interval95": [lo, hi], "design_rate": 2 * 2.5e-4}
        summary["twins"][t] = entry
    summary["cost"] = cost()
    with open(args.out, "w") as fh:
        json.dump({"summary": summary, "rows": rows}, fh, indent=1, default=float)
    print(json.dumps(summary, indent=1, default=float))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
