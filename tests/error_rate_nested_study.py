"""The nested comparison's calibration on the zoo's feature maps without a declared bound.

    python -m tests.error_rate_nested_study --out reports/calibration/error-rate-nested.jsonl \\
        --entries arccos-1,arccos-2,maxout-q2,maxout-q4,sklearn-PolynomialCountSketch --seeds 1000000:1000030

One JSON line per (entry, seed): ``error-rate`` alone at the default profile (the main configuration and the four
corners), its status and adjusted p-value, each corner's, and the p-value the slope z-test would have given at the
main configuration (``slope_pvalue_descriptive``).  ``--summary`` prints the table of the README section
(reports/calibration/README.md, "The error rate of maps without a bound").  Appends: a rerun adds lines.
"""

from __future__ import annotations

import argparse
import collections
import json
import warnings

import rfverify  # noqa: F401  (the plug-in registry)
from rfverify.kinds import get_kind
from rfverify.studies.zoo import zoo_entries


def run(entries: list[str], seeds: range, out: str) -> None:
    verify = get_kind("feature-map").verify_function()
    with open(out, "a") as fh:
        for e in zoo_entries(entries):
            for s in seeds:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    r = verify(e.implementation, seed=s, profile="default", checks=["error-rate"], metrics=False,
                               **e.options).results[0]
                d = r.details
                corners = [[c.get("d"), c.get("status"), c.get("pvalue")] for c in d.get("corners", [])
                           if isinstance(c, dict)]
                fh.write(json.dumps({"entry": e.name, "seed": s, "status": r.status, "p": r.pvalue, "alpha": r.alpha,
                                     "test": d.get("test"), "slope_p": d.get("slope_pvalue_descriptive"),
                                     "corners": corners, "msg": "" if r.status == "pass" else r.message[:300]})
                         + "\n")
                fh.flush()


def summary(path: str) -> str:
    by: dict[str, list[dict]] = collections.defaultdict(list)
    for line in open(path):
        r = json.loads(line)
        by[r["entry"]].append(r)
    rows = ["| entry | runs | failed | adjusted p < 0.05 / < 0.01 (main) | (corners) | slope z-test p < 0.01 (main) |",
            "|---|---:|---:|---:|---:|---:|"]
    for e, rs in by.items():
        ps = [r["p"] for r in rs if r["p"] is not None]
        cps = [c[2] for r in rs for c in r["corners"] if c[2] is not None]
        sl = [r["slope_p"] for r in rs if r["slope_p"] is not None]
        rows.append(f"| {e} | {len(rs)} | {sum(r['status'] != 'pass' for r in rs)} | "
                    f"{sum(p < .05 for p in ps)} / {sum(p < .01 for p in ps)} of {len(ps)} | "
                    f"{sum(p < .05 for p in cps)} / {sum(p < .01 for p in cps)} of {len(cps)} | "
                    f"{sum(p < .01 for p in sl)} of {len(sl)} |")
    return "\n".join(rows)


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--out", required=True)
    p.add_argument("--entries", default="")
    p.add_argument("--seeds", default="1000000:1000030", help="FIRST:STOP")
    p.add_argument("--summary", action="store_true", help="print the summary table of --out and exit")
    a = p.parse_args(argv)
    if a.summary:
        print(summary(a.out))
        return
    lo, hi = (int(x) for x in a.seeds.split(":"))
    run([x for x in a.entries.split(",") if x], range(lo, hi), a.out)


if __name__ == "__main__":
    main()
