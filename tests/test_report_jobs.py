"""``rfverify report`` on every core: ``--jobs`` defaults to the usable cores, pools start the costliest
zoo entries first (``ZOO_COST_HINT``), and the JSON written is the same for any number of jobs.

The entries are cheap ones at the quick profile (seconds each), so the module stays short on 2 shared cores.
"""

from __future__ import annotations

import os
from pathlib import Path

from rfverify import cli
from rfverify.containment.executors import InProcess, ProcessPool, Task, costliest_first, usable_cores
from rfverify.studies.batch import default_jobs, zoo_tasks
from rfverify.studies.zoo import ZOO, ZOO_COST_HINT, cost_hint

from tests import executor_faults

#: Cheap entries whose cost hints put them in another order than the one given, so that a pool
#: really starts them out of order (asserted below: the identity test has teeth).
CHEAP = ["haar-qr", "haar-qr-SO", "haar-householder"]


def _report(out: Path, jobs: str) -> dict[str, str]:
    args = ["report", *(a for n in CHEAP for a in ("--only", n)), "--profile", "quick", "--out", str(out), "--jobs", jobs]
    code = cli.main(args)
    assert code == 0, f"rfverify {' '.join(args)} exited {code}"
    return {p.name: p.read_text(encoding="utf-8") for p in sorted(out.glob("*.json"))}


def test_report_json_is_identical_with_jobs_1_and_2(tmp_path):
    started = [t.key for t in costliest_first(zoo_tasks(CHEAP, seed=1, profile="quick"))]
    assert started != [f"zoo-{n}" for n in CHEAP], "pick entries whose cost order differs from the order given"
    one, two = _report(tmp_path / "j1", "1"), _report(tmp_path / "j2", "2")
    assert set(one) == {f"{n}.json" for n in CHEAP} | {"index.json"}, sorted(one)
    assert one.keys() == two.keys()
    for name in one:  # the reports hold no timing fields, so the files compare whole
        assert one[name] == two[name], f"{name} differs between --jobs 1 and --jobs 2"


def test_a_pool_starts_the_costliest_units_first(tmp_path):
    costs = [1.0, 7.0, 0.5, 7.0, 3.0]
    tasks = [Task(f"u-{i}", "tests.executor_faults:die_then_answer", (str(tmp_path), f"u-{i}", 0, i), cost=c)
             for i, c in enumerate(costs)]
    outcomes = ProcessPool(1).map(tasks)  # one worker: units start one after the other, in the pool's order
    assert [o.value for o in outcomes] == list(range(5)), "outcomes must come back in the order given"
    # ties keep the order given (u-1 before u-3)
    assert executor_faults.starts(str(tmp_path)) == ["u-1", "u-3", "u-4", "u-0", "u-2"]


def test_in_process_keeps_the_order_given(tmp_path):
    tasks = [Task(f"u-{i}", "tests.executor_faults:die_then_answer", (str(tmp_path), f"u-{i}", 0, i), cost=c)
             for i, c in enumerate([1.0, 5.0])]
    InProcess().map(tasks)
    assert executor_faults.starts(str(tmp_path)) == ["u-0", "u-1"]


def test_jobs_default_to_the_usable_cores(monkeypatch):
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0, 2, 5}, raising=False)
    assert usable_cores() == 3
    assert default_jobs(65) == 3
    assert default_jobs(2) == 2, "no more processes than entries"
    assert default_jobs(65, scheduler=True) == 1, "with --scheduler the cluster's workers are the jobs"
    made = []
    monkeypatch.setattr("rfverify.containment.executors.make_executor", lambda jobs, *a, **k: made.append(jobs) or InProcess())
    args = cli.build_parser().parse_args(["report", "--all"])
    assert args.jobs is None
    cli._executor(args, 65)
    cli._executor(cli.build_parser().parse_args(["report", "--all", "--jobs", "1"]), 65)
    cli._executor(cli.build_parser().parse_args(["check", "feature-map", "a:B"]), 65)
    assert made == [3, 1, 1], "report: every core by default; an explicit --jobs and check keep theirs"


def test_cost_hints_name_zoo_entries_and_order_the_tasks():
    names = {e.name for e in ZOO}
    stale = sorted(set(ZOO_COST_HINT) - names)
    assert not stale, f"ZOO_COST_HINT names entries the zoo no longer has: {stale}"
    assert all(v >= 0 for v in ZOO_COST_HINT.values())
    assert cost_hint("no-such-entry") == sorted(ZOO_COST_HINT.values())[len(ZOO_COST_HINT) // 2]
    tasks = zoo_tasks([e.name for e in ZOO], seed=1, profile="quick")
    assert [t.cost for t in tasks] == [cost_hint(e.name) for e in ZOO]
