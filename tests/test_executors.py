"""rfverify.containment.executors: the same bytes on every executor, a dying worker costs one retried unit, unfit workers are named.

One real ``LocalCluster`` of worker *processes* serves the whole module (started once, scaled 3 -> 2 -> 1);
the workloads are tiny (quick profile, 2-3 implementations) so the module stays well under a minute and
a half on 2 shared cores.
"""

from __future__ import annotations

import json
import time
import warnings
from pathlib import Path

import pytest

pytest.importorskip("distributed", reason="the dask extra is not installed: pip install -e '.[dask]'")

import rfverify.version  # noqa: E402
from rfverify import cli  # noqa: E402
from rfverify.studies.batch import lost_report, reports_from  # noqa: E402
from rfverify.studies.calibration import strip_timing  # noqa: E402
from rfverify.errors import UsageError  # noqa: E402
from rfverify.containment.executors import (DaskExecutor, InProcess, Outcome, ProcessPool, Task, make_executor,  # noqa: E402
                                start_local_cluster)

from tests import executor_faults  # noqa: E402

LIBRARY = "tests.mutants"
_RFF = "rfverify.implementations.rff:"


class _Cluster:
    """One LocalCluster for the module, started on first use (so the ``--jobs 2`` runs before it can fork)."""

    def __init__(self):
        self.cluster = self.client = None

    def __getitem__(self, i):
        if self.cluster is None:
            from distributed import Client

            self.cluster = start_local_cluster(3, dashboard=False)
            self.client = Client(self.cluster)
        return (self.cluster, self.client)[i]

    def close(self):
        if self.cluster is not None:
            self.client.close()
            self.cluster.close()


@pytest.fixture(scope="module")
def cluster():
    holder = _Cluster()
    yield holder
    holder.close()


def _scale(cluster, n: int) -> str:
    c, client = cluster[0], cluster[1]
    c.scale(n)
    deadline = time.monotonic() + 60
    while len(client.nthreads()) != n:
        assert time.monotonic() < deadline, f"the LocalCluster did not reach {n} workers: {client.nthreads()}"
        time.sleep(0.1)
    return c.scheduler_address


# ---------------------------------------------------------------------------------------------
# Byte-identical results: calibrate, report --all --only ..., a multi-implementation check
# ---------------------------------------------------------------------------------------------
def _calibrate(out: Path, where: list[str]) -> dict[str, str]:
    code = cli.main(["calibrate", "--reference", "haar-qr", "--reference", "kernel-rbf", "--mutants", LIBRARY,
                     "--mutant", "qr-without-sign-correction", "--mutant", "haar-transposed", "--profile", "quick", "--fa-seeds", "2", "--power-seeds", "2", "--scan-seeds",
                     "1", "--equivalent-seeds", "1", "--out", str(out), *where])
    assert code == 0, f"calibrate {where} exited {code}"
    doc = json.loads((out / "calibration.json").read_text(encoding="utf-8"))
    doc["command"] = doc["command"].replace(str(out), "OUT")  # each run writes to its own directory
    return {"calibration.json (timing aside)": json.dumps(strip_timing(doc), indent=2),
            "executor": doc["timing"]["executor"]}


def _report(out: Path, where: list[str]) -> dict[str, str]:
    code = cli.main(["report", "--only", "rff-phase", "--only", "haar-qr", "--only", "kernel-rbf", "--profile", "quick",
                     "--out", str(out), *where])
    assert code == 0, f"report {where} exited {code}"
    return {p.name: p.read_text(encoding="utf-8") for p in sorted(out.glob("*.json"))}


def _check(out: Path, where: list[str]) -> dict[str, str]:
    out.mkdir(parents=True, exist_ok=True)
    path = out / "check.json"
    # two correct maps and a broken one from tests/ (a plug-in module the workers import by name)
    code = cli.main(["check", "feature-map", _RFF + "RandomFourierFeatures", _RFF + "RandomFourierFeaturesCosSin",
                     "tests.mutants.rff_mutants:HalfScale", "--kernel", "rbf", "--param", "gamma=0.5", "--bound",
                     "1.4142135623730951", "--profile", "quick", "--json", str(path), *where])
    assert code == 1, f"check {where} exited {code} (tests.mutants.rff_mutants:HalfScale must fail)"
    return {"check.json": path.read_text(encoding="utf-8")}


WORKLOADS = {"calibrate": _calibrate, "report": _report, "check": _check}


@pytest.mark.slow  # 36 s; the order, death and unfit-worker tests keep Dask in CI
def test_identical_results_in_process_jobs_and_dask_with_1_2_3_workers(cluster, tmp_path, capsys):
    runs: dict[str, dict[str, dict[str, str]]] = {w: {} for w in WORKLOADS}
    for mode, where in (("in-process", ["--jobs", "1"]), ("--jobs 2", ["--jobs", "2"])):
        for w, fn in WORKLOADS.items():
            runs[w][mode] = fn(tmp_path / w / mode.replace(" ", ""), where)
    for n in (3, 2, 1):
        address = _scale(cluster, n)
        for w, fn in WORKLOADS.items():
            runs[w][f"dask {n}"] = fn(tmp_path / w / f"dask{n}", ["--scheduler", address])
    assert runs["calibrate"]["dask 2"]["executor"].startswith("Dask tcp://")
    assert runs["calibrate"]["--jobs 2"]["executor"] == "--jobs 2"
    for w, by_mode in runs.items():
        base = {k: v for k, v in by_mode["in-process"].items() if k != "executor"}
        assert base, w
        for mode, files in by_mode.items():
            files = {k: v for k, v in files.items() if k != "executor"}
            assert files.keys() == base.keys(), f"{w} under {mode} wrote {sorted(files)}, in-process {sorted(base)}"
            for name in base:
                assert files[name] == base[name], f"{w}: {name} under {mode} differs from the in-process run"
    check = json.loads(runs["check"]["in-process"]["check.json"])
    assert [r["implementation"] for r in check] == [_RFF + "RandomFourierFeatures", _RFF + "RandomFourierFeaturesCosSin",
                                                   "tests.mutants.rff_mutants:HalfScale"]
    assert any(c["status"] == "fail" for c in check[2]["checks"])
    err = capsys.readouterr().err
    assert "[3/3]" in err and "rfverify: Dask tcp://" in err


# ---------------------------------------------------------------------------------------------
# Order, faults, unfit workers
# ---------------------------------------------------------------------------------------------
def _sleepers() -> list[Task]:
    # the first unit takes longest, so completion order differs from submission order
    return [Task(f"sleep-{i}", "tests.executor_faults:sleep_then_answer", (0.6 if i == 0 else 0.05, i)) for i in range(6)]


@pytest.mark.parametrize("which", ["in-process", "pool", "dask"])
def test_outcomes_come_back_in_submission_order(which, cluster):
    tasks = _sleepers()
    finished: list[int] = []
    if which == "dask":
        _scale(cluster, 2)
        ex = DaskExecutor(client=cluster[1])
    else:
        ex = InProcess() if which == "in-process" else ProcessPool(2)
    outcomes = ex.map(tasks, on_outcome=lambda i, o: finished.append(i))
    assert [o.value for o in outcomes] == list(range(6)), [o.error for o in outcomes]
    assert sorted(finished) == list(range(6))
    if which != "in-process":  # the check has teeth: completion order really differed
        assert finished != list(range(6)), f"units finished in submission order {finished}; make unit 0 slower"


def _fault_batch(folder: Path, deaths: int, whom: str) -> list[Task]:
    folder.mkdir(parents=True, exist_ok=True)
    return [Task(f"fault-{i}", "tests.executor_faults:die_then_answer",
                 (str(folder), f"fault-{i}", deaths if i == 2 else 0, i, whom)) for i in range(6)]


@pytest.mark.parametrize("which, whom", [("dask", "self"), ("dask", "parent"), ("pool", "self")])
def test_a_killed_worker_costs_one_retried_unit_and_two_deaths_an_error(which, whom, cluster, tmp_path):
    """``self``: the unit kills the process it runs in (on Dask: the worker's unit runner child);
    ``parent``: on Dask, it kills the worker process itself."""
    if which == "dask":
        _scale(cluster, 2)
        ex = DaskExecutor(client=cluster[1])
    else:
        ex = ProcessPool(2)
    once = tmp_path / "once"
    outcomes = ex.map(_fault_batch(once, 1, whom))
    assert [o.value for o in outcomes] == list(range(6)), [o.error for o in outcomes]
    starts = executor_faults.starts(str(once))
    retried = len(starts) - 6
    assert starts.count("fault-2") == 2, f"the killed unit ran {starts.count('fault-2')} times: {starts}"
    if which == "pool":  # a dead pool process breaks the whole pool: the units in flight run again
        assert 1 <= retried <= 2, f"one death in a pool of 2 cost {retried} retried units: {starts}"
    elif whom == "self":  # the unit's own process died: that unit alone runs again
        assert retried == 1, f"one death cost {retried} retried units: {starts}"
    else:  # the worker died: the scheduler queues units (none waits on a worker), but a result the worker
        # still held for the client (finished, not yet gathered) is recomputed too
        assert retried <= 2, f"one worker death cost {retried} retried units: {starts}"
    twice = tmp_path / "twice"
    outcomes = ex.map(_fault_batch(twice, 2, whom))
    lost = [o for o in outcomes if not o.ok]
    assert [o.key for o in lost] == ["fault-2"], [(o.key, o.error) for o in outcomes]
    assert "died" in lost[0].error, lost[0].error
    assert [o.value for o in outcomes if o.ok] == [0, 1, 3, 4, 5]
    starts = executor_faults.starts(str(twice))
    # What rfverify promises: after the scheduler's limit (allowed-failures 1: two deaths) the unit is an error and
    # is never run a third time; that the first death costs exactly one retry is pinned by the "once" half above.
    # Not promised: that both deaths were the unit's own runs.  Dask counts a worker's death against every unit in
    # its ``processing`` set, sent to it whether started or not (distributed.scheduler.remove_worker), and a
    # fresh-clone CI run once saw two deaths counted where the unit's start log had one run.
    runs = starts.count("fault-2")
    assert 1 <= runs <= 2, f"a unit that kills its worker ran {runs} times: {starts}" + (
        f"; the scheduler's story: {_story(ex, 'fault-2')}" if which == "dask" else "")
    if runs == 1:  # allowed, and rare: leave the evidence in the test summary
        warnings.warn(f"two deaths counted against one run of fault-2: {starts}; the scheduler's story: "
                      f"{_story(ex, 'fault-2') if which == 'dask' else 'n/a'}", stacklevel=1)


def _story(ex, key: str) -> str:
    """The scheduler's transitions of the unit ``key`` (what a failure message needs to tell why it ran as it did)."""
    def on_scheduler(dask_scheduler):
        return [(t[1], t[2], t[4]) for t in dask_scheduler.transition_log if key in repr(t[0])][-16:]

    try:
        return repr(ex.client.run_on_scheduler(on_scheduler))
    except Exception as exc:  # the story is evidence for the message, never a second failure
        return f"unavailable ({type(exc).__name__}: {exc})"


def test_a_lost_unit_is_an_error_report_never_a_gap():
    lost = Outcome("check-feature-map-x:Y", error="the worker process running it died, and died again")
    ok = Outcome("check-feature-map-a:B", value="a report")
    reports = reports_from([ok, lost], [("feature-map", "a:B"), ("feature-map", "x:Y")], seed=3, profile="quick")
    assert reports[0] == "a report"
    r = reports[1]
    assert r.exit_code == 2 and r.implementation == "x:Y" and len(r.results) == len(lost_report(
        "feature-map", "x:Y", seed=3, profile="quick", checks=None, message="").results) > 3
    assert all(c.status == "error" and "died again" in c.message for c in r.results)


def test_unfit_workers_are_named(cluster, monkeypatch):
    _scale(cluster, 1)
    ex = DaskExecutor(client=cluster[1])
    with pytest.raises(UsageError, match=r"Dask worker tcp://\S+ cannot import no_such_plugin_module:Map"):
        ex.map([Task("check-x", "math:sqrt", (1.0,), ("no_such_plugin_module:Map",))])
    monkeypatch.setattr(rfverify.version, "__version__", "0.0.0+client")
    with pytest.raises(UsageError, match=r"Dask worker tcp://\S+ has rfverify \S+, the client 0.0.0\+client"):
        ex.map([Task("check-y", "math:sqrt", (1.0,))])


@pytest.mark.parametrize("jobs, scheduler, use, message", [
    (0, None, False, "--jobs must be at least 1"),
    (2, "local:2", True, "--jobs and --scheduler exclude each other"),
    (1, "local:0", True, "local:N needs a positive number of workers"),
    (1, "somehost:8786", True, "takes tcp://HOST:PORT"),
    (1, "", True, "reads DASK_SCHEDULER_ADDRESS, which is not set"),
])
def test_bad_executor_options_are_one_line_errors(jobs, scheduler, use, message, monkeypatch):
    monkeypatch.delenv("DASK_SCHEDULER_ADDRESS", raising=False)
    with pytest.raises(UsageError, match=message):
        make_executor(jobs, scheduler, use_scheduler=use)


def test_duplicate_keys_are_refused():
    with pytest.raises(UsageError, match="share the key 'a'"):
        InProcess().map([Task("a", "math:sqrt", (1.0,)), Task("a", "math:sqrt", (4.0,))])
