"""The measured error rates of the ``stateful`` check of samplers, rules and transforms (a script, not a test:
``python -m tests.stateful_kinds_study``; the figures are recorded in docs/stateful.md).

False alarms: every orthogonal, quadrature and transform implementation of the reference zoo at 7 seeds (default
profile) — the check is deterministic, so any failure is a defect of the check, 0 expected.  Power: every planted
mutant of tests/mutants/stateful_kinds_mutants.py at seeds 0 … 19, and its twin at the same seeds.
"""

from __future__ import annotations

import sys
import time

from rfverify.kinds.orthogonal import verify_orthogonal
from rfverify.kinds.quadrature import verify_quadrature
from rfverify.kinds.transform import verify_transform
from rfverify.studies.zoo import ZOO
from tests.mutants import stateful_kinds_mutants as km

ZOO_SEEDS = (20261122, 1, 2, 3, 4, 5, 6)
SEEDS = range(20)
VERIFY = {"orthogonal": verify_orthogonal, "quadrature": verify_quadrature, "transform": verify_transform}
MUTANTS = "tests.mutants.stateful_kinds_mutants:"
OPTIONS = {"orthogonal": {"dim": 16}, "quadrature": {"dim": 8, "degree": 0}, "transform": {"dim": 16}}


def _stateful(kind: str, impl: str, seed: int, **options):
    return VERIFY[kind](impl, seed=seed, profile="default", checks=["stateful"], **options)["stateful"]


def main() -> int:
    t0 = time.time()
    runs = fails = 0
    slowest = 0.0
    for entry in [e for e in ZOO if e.kind in VERIFY]:
        for seed in ZOO_SEEDS:
            t = time.time()
            res = _stateful(entry.kind, entry.implementation, seed, **entry.options)
            slowest = max(slowest, time.time() - t)
            runs += 1
            if res.status != "pass":
                fails += 1
                print(f"FALSE ALARM {entry.name} seed {seed}: {res.status} {res.message[:400]}", flush=True)
    print(f"false alarms: {fails} of {runs} runs ({time.time() - t0:.0f} s, slowest {slowest:.1f} s)", flush=True)
    for kind, bugs in (("orthogonal", km.SAMPLER_BUGS), ("quadrature", km.RULE_BUGS), ("transform", km.TRANSFORM_BUGS)):
        for mutant, twin in bugs.items():
            caught = sum(_stateful(kind, MUTANTS + mutant, s, **OPTIONS[kind]).status == "fail" for s in SEEDS)
            passed = sum(_stateful(kind, MUTANTS + twin, s, **OPTIONS[kind]).status == "pass" for s in SEEDS)
            print(f"power {kind} {mutant}: caught at {caught} of 20 seeds; twin {twin} passes at {passed} of 20",
                  flush=True)
    print(f"total {time.time() - t0:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
