"""Fault injection: what only a supervised child process contains, through the Python API, the
CLI and the pytest plugin.

Every hostile plug-in (tests/faulty_plugins.py, ``H*``) misbehaves in ``transform`` when asked for 64
components: the ``contract`` check (m = 64) must be status ``error`` with a one-line message naming what
happened and the last call into the plug-in, while ``unbiasedness`` (m = 256) still passes in a fresh child,
and the harness's own process (cwd, environment, sys.path, numpy, signal handler, threads) is untouched.

Limits: 2 s per check (hangs cost 2 s + :data:`rfverify.containment.supervise.GRACE` + at most TERM_WAIT), 256 MiB of
memory.  The same verdicts with ``isolate=False`` for the plug-ins the in-process guard already handled are
in tests/test_fault_tolerance.py.  Every plug-in runs through the Python API and the pytest plugin without xdist
in CI; through the CLI and under xdist CI runs a subset (``CLI_CI``, ``XDIST_CI``), the slow set all of them.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pytest

import rfverify
from tests import faulty_plugins as fp
from rfverify.cli import main
from rfverify.containment.guard import WALL_FACTOR
from rfverify.containment.supervise import GRACE, TERM_WAIT

TESTS = str(Path(__file__).parent)
#: The time limit of every check here, in seconds (a hang costs it plus GRACE); a correct check of these plug-ins at
#: the quick profile uses a fraction of a second of CPU.
LIMIT = 2
CHECKS = ["contract", "unbiasedness"]
ENDED = f"did not finish within the time limit of {LIMIT} s and was ended from outside"

# plug-in, what the contract check's message must say
FAULTS = [
    (fp.HExit0, ["check contract ended the process with exit code 0", "last call into the plug-in: transform",
                 "never exit the process"]),
    (fp.HExit3, ["ended the process with exit code 3"]),
    (fp.HSegfault, ["killed by SIGSEGV", "last call into the plug-in: transform"]),
    (fp.HSigfpe, ["killed by SIGFPE"]),
    (fp.HAbort, ["killed by SIGABRT"]),
    (fp.HBlocksAlarm, [ENDED, "last call into the plug-in: transform"]),
    (fp.HIgnoresAlarm, [ENDED]),
    (fp.HSwallowsForever, [ENDED]),
    (fp.HCSpin, [ENDED, "code stuck in C"]),
    (fp.HDeadlock, [ENDED]),
    (fp.HForks, ["forked and the copy returned into rfverify", "returned from transform"]),
    (fp.HPatchesNumpy, ["replaced numpy.isfinite during check contract", "must not monkey-patch"]),
    (fp.HLiftsRlimit, ["exceeded the memory budget of 256 MiB", "killed from outside (SIGKILL)"]),
    (fp.HWritesFd1, ["byte(s) straight to file descriptor 1 (stdout) during check contract", "'raw bytes on fd 1'"]),
    (fp.HHugeMessage, ["transform raised ValueError: red  bad ?? bytes"]),
    (fp.HBadStr, ["transform raised Unprintable: (its message could not be shown: __str__ raised RuntimeError)"]),
]
#: The watchdog must win the race with the time limit: allocation is slow on a loaded machine, so this one
#: gets 20 s (it holds its memory sleeping: the watchdog kills it within a poll of crossing the budget).
LIMIT_OF = {fp.HLiftsRlimit: 20}
HANGS = {fp.HBlocksAlarm, fp.HIgnoresAlarm, fp.HSwallowsForever, fp.HCSpin, fp.HDeadlock}
IDS = [impl.__name__ for impl, _ in FAULTS]


def _verify(impl, **kw):
    return rfverify.verify(impl, kernel="rbf", kernel_params={"gamma": 0.5}, dim=4, profile="quick",
                           checks=CHECKS, time_limit=LIMIT_OF.get(impl, LIMIT), memory_limit="256M", **kw)


def _harness_state():
    return (os.getcwd(), dict(os.environ), list(sys.path), np.isfinite, signal.getsignal(signal.SIGALRM),
            signal.getitimer(signal.ITIMER_REAL), threading.active_count(), os.getpid())


def _assert_safe(message):
    """One line, no escape or control characters, valid UTF-8, capped."""
    assert "\n" not in message and "\x1b" not in message and "\x00" not in message, repr(message[:300])
    message.encode("utf-8")  # strict: no lone surrogates
    assert len(message) <= 4000


@pytest.mark.parametrize("impl,needles", FAULTS, ids=IDS)
def test_python_api_contains_the_fault(impl, needles):
    before = _harness_state()
    t0 = time.monotonic()
    report = _verify(impl)
    elapsed = time.monotonic() - t0
    contract, unbiased = report["contract"], report["unbiasedness"]
    assert contract.status == "error", contract.explain()
    for needle in needles:
        assert needle in contract.message, (needle, contract.message[:600])
    assert contract.message.startswith(impl.__qualname__ + ": ")
    _assert_safe(contract.message)
    assert unbiased.status == "pass", unbiased.explain()  # the next check ran, in a fresh child if need be
    assert report.exit_code == 2 and json.loads(report.to_json())["passed"] is False
    assert _harness_state() == before
    if impl in HANGS - {fp.HCSpin}:  # ended within the time limit + 10 s (the target); here: limit + grace + TERM_WAIT
        assert elapsed < LIMIT + GRACE + TERM_WAIT + 10, elapsed
    elif impl is fp.HCSpin:  # CPU-bound: ended at LIMIT + GRACE s of CPU, which a loaded machine gives more slowly;
        # the wall-clock backstop bounds it whatever the load
        assert elapsed < WALL_FACTOR * LIMIT + GRACE + TERM_WAIT + 10, elapsed


def test_huge_message_is_capped_with_a_visible_marker():
    message = _verify(fp.HHugeMessage)["contract"].message
    assert "more characters]" in message and "pwned" not in message and "[31m" not in message


def test_huge_name_is_capped_and_clean():
    report = _verify(fp.HHugeName)
    assert report.passed
    assert len(report.implementation) <= 200 and "\x1b" not in report.implementation
    assert "more characters]" in report.implementation


def test_numpy_matrix_output_has_asarray_semantics():
    report = _verify(fp.HMatrix)
    assert report.passed, report.table()


@pytest.mark.parametrize("impl", [fp.HNonDaemonThread, fp.HChdir], ids=["HNonDaemonThread", "HChdir"])
def test_process_wide_changes_stay_in_the_child(impl):
    before = _harness_state()
    report = _verify(impl)
    assert report.passed, report.table()
    assert _harness_state() == before


def test_isolation_off_runs_in_process(monkeypatch):
    """RFVERIFY_INPROCESS=1 (or isolate=False): the guard alone; the same verdicts for a well-behaved plug-in."""
    from rfverify.kinds.feature_map import FeatureMapConfig
    from rfverify.runner import run

    def config():
        return FeatureMapConfig(fp.Features, kernel="rbf", kernel_params={"gamma": 0.5}, dim=4, profile="quick")

    a = run(config(), checks=CHECKS, isolate=True).to_dict()
    b = run(config(), checks=CHECKS, isolate=False).to_dict()
    import rfverify.containment.supervise as supervise

    monkeypatch.setattr(supervise, "_FROZEN", {"RFVERIFY_INPROCESS": "1"})  # as read before any plug-in runs
    c = run(config(), checks=CHECKS).to_dict()
    assert a == b == c


def test_plugins_defined_in_a_test_keep_working():
    """fork: lambdas, closures and local classes need no pickling."""
    scale = np.sqrt(2.0)

    class Local(fp.Features):
        def transform(self, X):
            return (lambda Z: Z * scale / scale)(super().transform(X))

    assert _verify(Local).passed


# ---------------------------------------------------------------------------------------------------
# the CLI: exit code 2, the first error on stderr, JSON and HTML at the paths asked
# ---------------------------------------------------------------------------------------------------
def _cli_args(target, out, module="tests.faulty_plugins"):
    limit = LIMIT_OF.get(getattr(fp, target), LIMIT)
    return ["check", "feature-map", f"{module}:{target}", "--param", "gamma=0.5", "--dim", "4",
            "--profile", "quick", "--check", "contract", "--check", "unbiasedness", "--time-limit", str(limit),
            "--memory-limit", "256M", "--json", str(out / "r.json"), "--report", str(out / "rep")]


def _assert_outputs(out, target, needles, module="tests.faulty_plugins"):
    data = json.loads((out / "r.json").read_text())
    by = {c["check"]: c for c in data["checks"]}
    assert by["contract"]["status"] == "error" and by["unbiasedness"]["status"] == "pass"
    for needle in needles:
        assert needle in by["contract"]["message"], (needle, by["contract"]["message"][:400])
    index = json.loads((out / "rep" / "index.json").read_text())
    assert [e["verdict"] for e in index["reports"]] == ["error"]
    html = (out / "rep" / f"{module}.{target}.html").read_text()
    assert html.rstrip().endswith("</html>") and "\x1b" not in html


#: Every fault reaches the API test above; through the CLI, CI runs an exit, a fatal signal, two hangs (the alarm
#: blocked; C code spinning), a fork, the memory watchdog, raw writes to fd 1 and the two messages that need capping or
#: cannot be shown; the slow set also the other exit, signals and hangs and the numpy patch.
CLI_CI = {fp.HExit0, fp.HSegfault, fp.HBlocksAlarm, fp.HCSpin, fp.HForks, fp.HLiftsRlimit, fp.HWritesFd1,
          fp.HHugeMessage, fp.HBadStr}
CLI_FAULTS = [f if f[0] in CLI_CI else pytest.param(*f, marks=pytest.mark.slow) for f in FAULTS]


@pytest.mark.parametrize("impl,needles", CLI_FAULTS, ids=IDS)
def test_cli_contains_the_fault(impl, needles, tmp_path, capsys):
    code = main(_cli_args(impl.__name__, tmp_path))
    out, err = capsys.readouterr()
    assert code == 2 and "Traceback" not in out + err
    last = err.strip().splitlines()[-1]
    assert last.startswith(f"rfverify: error: {impl.__qualname__}: ") and needles[0] in last
    _assert_outputs(tmp_path, impl.__name__, needles)


@pytest.mark.parametrize("target,needle", [("HExit0", "exit code 0"), ("HSegfault", "SIGSEGV"),
                                           ("HWritesFd1", "file descriptor 1")])
def test_cli_process_json_on_stdout_stays_valid(target, needle, tmp_path):
    """A real `rfverify check ... --json -`: exit 2, stdout exactly the JSON report, one line on stderr."""
    proc = subprocess.run([sys.executable, "-m", "rfverify.cli", *_cli_args(target, tmp_path, "faulty_plugins")[:-4], "--json", "-"],
                          capture_output=True, text=True, cwd=TESTS, timeout=300)
    assert proc.returncode == 2, proc.stderr
    data = json.loads(proc.stdout)
    assert needle in {c["check"]: c for c in data["checks"]}["contract"]["message"]
    assert "Traceback" not in proc.stderr and needle in proc.stderr.strip().splitlines()[-1]


def test_cli_process_with_a_non_daemon_thread_and_chdir_ends_and_writes_where_asked(tmp_path):
    """Relative output paths; the plug-in changes directory and leaves a thread sleeping an hour."""
    env = {**os.environ, "PYTHONPATH": TESTS + os.pathsep + os.environ.get("PYTHONPATH", "")}
    for target in ("HChdir", "HNonDaemonThread"):
        proc = subprocess.run([sys.executable, "-m", "rfverify.cli", "check", "feature-map", f"faulty_plugins:{target}",
                               "--param", "gamma=0.5", "--dim", "4", "--profile", "quick", "--check", "contract",
                               "--json", f"{target}.json", "--report", "rep"],
                              capture_output=True, text=True, cwd=tmp_path, env=env, timeout=120)
        assert proc.returncode == 0, proc.stderr
        assert json.loads((tmp_path / f"{target}.json").read_text())["passed"]
    index = json.loads((tmp_path / "rep" / "index.json").read_text())
    assert sorted(e["name"] for e in index["reports"]) == ["faulty_plugins.HChdir", "faulty_plugins.HNonDaemonThread"]


def test_two_concurrent_writers_into_one_report_directory_both_appear(tmp_path):
    env = {**os.environ, "PYTHONPATH": TESTS + os.pathsep + os.environ.get("PYTHONPATH", "")}
    procs = [subprocess.Popen([sys.executable, "-m", "rfverify.cli", "check", "feature-map", target, "--param",
                               "gamma=0.5", "--dim", "4", "--profile", "quick", "--check", "contract",
                               "--report", str(tmp_path / "rep")], cwd=tmp_path, env=env,
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
             for target in ("faulty_plugins:Features", "faulty_plugins:HExit0")]
    codes = [p.wait(timeout=300) for p in procs]
    assert codes == [0, 2], [p.stderr.read() for p in procs]  # HExit0's contract check dies: exit 2
    index = json.loads((tmp_path / "rep" / "index.json").read_text())
    assert sorted(e["name"] for e in index["reports"]) == ["faulty_plugins.Features", "faulty_plugins.HExit0"]
    assert not [p.name for p in (tmp_path / "rep").iterdir() if p.name.endswith(".tmp")]


# ---------------------------------------------------------------------------------------------------
# the pytest plugin: the items of a crashed or hung plug-in FAIL, under -n 0 and under xdist
# ---------------------------------------------------------------------------------------------------
PYTEST_FILE = """
import sys
sys.path.insert(0, {tests!r})
import faulty_plugins as fp
from rfverify.pytest_plugin import parametrize_with_checks

HOSTILE = [{names}]

@parametrize_with_checks(HOSTILE, kernel="rbf", kernel_params={{"gamma": 0.5}}, dim=4,
                         checks=["contract", "unbiasedness"])
def test_hostile(rfverify_case):
    rfverify_case()
"""


#: Through two xdist workers CI runs an exit, a fatal signal, two of the hangs (the alarm blocked, a deadlock), a fork
#: returning into rfverify, raw writes to fd 1 and the memory watchdog; the slow set all of FAULTS (without xdist,
#: all of them in CI too).
XDIST_CI = [fp.HExit0, fp.HSegfault, fp.HBlocksAlarm, fp.HDeadlock, fp.HForks, fp.HWritesFd1, fp.HLiftsRlimit]


@pytest.mark.parametrize("workers,impls", [("0", [impl for impl, _ in FAULTS]), pytest.param("2", XDIST_CI, id="2"),
                                           pytest.param("2", [impl for impl, _ in FAULTS], id="2-all",
                                                        marks=pytest.mark.slow)], ids=["0", "2", "2-all"])
def test_pytest_plugin_fails_the_items_of_a_crashed_or_hung_plugin(pytester, workers, impls):
    names = ", ".join(f"fp.{impl.__name__}" for impl in impls)
    pytester.makepyfile(PYTEST_FILE.format(tests=TESTS, names=names))
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "-n", workers, "--rfverify-profile", "quick",
                                           "--rfverify-time-limit", str(LIMIT), "--rfverify-memory-limit", "256M",
                                           timeout=600)
    result.assert_outcomes(failed=len(impls), passed=len(impls))
    # one pattern per call: with two workers the failures are printed in completion order
    for pattern in ["*HExit0 [[]contract[]]: ERROR*exit code 0*", "*HSegfault [[]contract[]]: ERROR*SIGSEGV*"]:
        result.stdout.fnmatch_lines([pattern])
    for impl in HANGS & set(impls):
        result.stdout.fnmatch_lines([f"*{impl.__name__} [[]contract[]]: ERROR*was ended from outside*"])


# ---------------------------------------------------------------------------------------------------
# form detection (plug-in code run while the harness builds its configuration) is under the guard
# ---------------------------------------------------------------------------------------------------
DETECTION = [("get_params_raises", "form detection (fit/transform attributes, get_params()) raised RuntimeError: "
              "no params today"),
             ("get_params_array", "get_params(deep=False) returned ndarray, not a dict")]


@pytest.mark.parametrize("target,needle", DETECTION, ids=[t for t, _ in DETECTION])
def test_form_detection_faults_are_one_line(target, needle, capsys):
    from rfverify.errors import PluginError

    with pytest.raises(PluginError, match=needle.replace("(", r"\(").replace(")", r"\)")):
        _verify(getattr(fp, target))
    code = main(["check", "feature-map", f"tests.faulty_plugins:{target}", "--param", "gamma=0.5", "--dim", "4"])
    err = capsys.readouterr().err
    assert code == 2 and needle in err and len(err.strip().splitlines()) == 1 and "Traceback" not in err


def test_getattr_raising_for_unknown_names_is_no_fault():
    assert _verify(fp.getattr_raises).passed


# ---------------------------------------------------------------------------------------------------
# the small ones
# ---------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("size", ["16M", "1M", str(32 << 20)])
def test_memory_limit_below_what_blas_needs_is_a_usage_error(size, capsys):
    code = main(["check", "feature-map", "tests.faulty_plugins:Features", "--param", "gamma=0.5", "--memory-limit", size])
    err = capsys.readouterr().err
    assert code == 2 and "--memory-limit must be at least 64M" in err and len(err.strip().splitlines()) == 1


@pytest.mark.parametrize("bound", ["1e308", "inf", "1e7"])
def test_bound_out_of_range_is_a_usage_error(bound, capsys):
    code = main(["check", "feature-map", "tests.faulty_plugins:Features", "--param", "gamma=0.5", "--bound", bound])
    err = capsys.readouterr().err
    assert code == 2 and "bound must be a positive finite number at most 1e+06" in err and "internal" not in err


def test_debug_shows_the_plugin_traceback(capfd):
    """The traceback is written to the real stderr (file descriptor 2) by the child, as it happens."""
    args = ["check", "feature-map", "tests.faulty_plugins:FMRaises", "--param", "gamma=0.5", "--dim", "4", "--profile",
            "quick", "--check", "contract"]
    assert main(args + ["--debug"]) == 2
    err = capfd.readouterr().err
    assert "Traceback (most recent call last)" in err and 'raise ValueError("features exploded")' in err
    assert main(args) == 2  # without --debug: one line
    assert "Traceback" not in capfd.readouterr().err


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="PR_SET_PDEATHSIG is Linux's")
def test_a_killed_harness_leaves_no_child_behind(tmp_path):
    """A CI timeout that SIGKILLs rfverify while its child spins in C: the child dies with it."""
    script = (f"import sys; sys.path.insert(0, {TESTS!r}); import faulty_plugins as fp, rfverify\n"
              "rfverify.verify(fp.HCSpin, kernel='rbf', kernel_params={'gamma': 0.5}, dim=4, profile='quick', "
              "checks=['contract'], time_limit=600)\n")
    proc = subprocess.Popen([sys.executable, "-c", script])
    children: list[int] = []
    for _ in range(600):  # wait for the spinning child (up to 60 s on a loaded machine)
        out = subprocess.run(["ps", "-o", "pid=", "--ppid", str(proc.pid)], capture_output=True, text=True).stdout
        children = [int(p) for p in out.split()]
        if children:
            break
        time.sleep(0.1)
    assert children, "no child process appeared"
    time.sleep(1.0)  # let it reach the spin
    proc.kill()
    proc.wait(timeout=30)
    def alive(pid):
        try:
            return Path(f"/proc/{pid}/stat").read_text().split()[2] != "Z"
        except OSError:
            return False

    for _ in range(100):
        if not any(alive(c) for c in children):
            break
        time.sleep(0.1)
    else:
        pytest.fail(f"child process(es) {children} outlived the killed harness")


def test_form_detection_fault_still_writes_the_outputs_asked(tmp_path, capsys):
    code = main(["check", "feature-map", "tests.faulty_plugins:get_params_raises", "--param", "gamma=0.5",
                 "--json", str(tmp_path / "r.json"), "--report", str(tmp_path / "rep")])
    err = capsys.readouterr().err
    assert code == 2 and "no params today" in err.strip().splitlines()[-1]
    data = json.loads((tmp_path / "r.json").read_text())
    assert data["passed"] is False and {c["status"] for c in data["checks"]} == {"error"}
    assert json.loads((tmp_path / "rep" / "index.json").read_text())["reports"][0]["verdict"] == "error"
    assert (tmp_path / "rep" / "index.html").read_text().rstrip().endswith("</html>")


def test_a_daemonic_worker_runs_in_process(monkeypatch):
    """multiprocessing.Pool workers (and Dask's) may not have children: the guard alone runs there."""
    import multiprocessing

    from rfverify.containment.supervise import isolation_wanted

    monkeypatch.delenv("RFVERIFY_INPROCESS", raising=False)
    with multiprocessing.get_context("fork").Pool(1) as pool:
        assert pool.apply(isolation_wanted) is False
    assert isolation_wanted() is True


def test_write_reports_merges_an_earlier_run_unless_told_not_to(tmp_path):
    from rfverify.report.writing import write_reports
    from rfverify.results import CheckResult, Report

    def rep(name, status):
        return Report(implementation=name, kind="feature-map", target={"name": "rbf"}, seed=1, profile="quick",
                      config={}, results=(CheckResult("contract", name, status, "m"),), version="0")

    write_reports(tmp_path, [("a", rep("a", "pass"))], seed=1, profile="quick")
    write_reports(tmp_path, [("b", rep("b", "error"))], seed=1, profile="quick")
    index = json.loads((tmp_path / "index.json").read_text())
    assert [(e["name"], e["verdict"]) for e in index["reports"]] == [("a", "passed"), ("b", "error")]
    assert "| a |" in (tmp_path / "SUMMARY.md").read_text() and "a.html" in (tmp_path / "index.html").read_text()
    write_reports(tmp_path, [("b", rep("b", "pass"))], seed=1, profile="quick", merge=False)
    assert [e["name"] for e in json.loads((tmp_path / "index.json").read_text())["reports"]] == ["b"]


def test_a_rewritten_entry_keeps_its_place_and_every_description(tmp_path):
    """``report --only X`` into a directory that holds the zoo: X keeps its row, and the other entries keep
    their one-line descriptions on index.html (they are read back from index.json)."""
    from rfverify.report.writing import write_reports
    from rfverify.results import CheckResult, Report

    def rep(name, status):
        return Report(implementation=name, kind="feature-map", target={"name": "rbf"}, seed=1, profile="quick",
                      config={}, results=(CheckResult("contract", name, status, "m"),), version="0")

    docs = {"a": "alpha map", "b": "beta map", "c": "gamma map"}
    write_reports(tmp_path, [(n, rep(n, "pass")) for n in "abc"], seed=1, profile="quick", docs=docs, merge=False)
    write_reports(tmp_path, [("b", rep("b", "fail"))], seed=1, profile="quick", docs={"b": "beta map, fixed"})
    index = json.loads((tmp_path / "index.json").read_text())
    assert [(e["name"], e["verdict"]) for e in index["reports"]] == [("a", "passed"), ("b", "failed"),
                                                                     ("c", "passed")]
    assert [e["description"] for e in index["reports"]] == ["alpha map", "beta map, fixed", "gamma map"]
    page = (tmp_path / "index.html").read_text()
    assert "alpha map" in page and "gamma map" in page and "beta map, fixed" in page


def test_cpu_time_readings_come_from_psutil_per_process_and_main_thread():
    """The limit reads the child's main-thread CPU time, the stall rule its whole-process CPU time (psutil: one rule
    on Linux and macOS): a process burning CPU in a side thread only shows it in the whole-process reading."""
    import subprocess

    from rfverify.containment.sentinel import cpu_seconds as _cpu_seconds, memory_bytes as _statm

    code = ("import threading, time\n"
            "def burn():\n    t = time.process_time()\n    while time.process_time() - t < 0.6: pass\n"
            "th = threading.Thread(target=burn); th.start(); th.join(); print('done', flush=True); time.sleep(30)\n")
    proc = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout.readline().strip() == "done"
        whole, main = _cpu_seconds(proc.pid), _cpu_seconds(proc.pid, main_thread=True)
        assert whole is not None and main is not None
        assert whole >= 0.5 and main < 0.3, (whole, main)
        assert _statm(proc.pid, 1) > 1 << 20 and _statm(proc.pid, 0) >= _statm(proc.pid, 1)
    finally:
        proc.kill()
        proc.wait()
    assert _cpu_seconds(proc.pid) is None and _statm(proc.pid, 1) is None  # gone: no reading, no exception


_AT_EXIT = {  # a configuration of each kind (its plug-in's child process started) still referenced at exit
    "feature-map": "from rfverify.kinds.feature_map import FeatureMapConfig\n"
                   "from rfverify.implementations.rff import RandomFourierFeatures\n"
                   "config = FeatureMapConfig(RandomFourierFeatures, kernel='rbf', kernel_params={'gamma': 0.5}, dim=4)",
    "quadrature": "from rfverify.kinds.quadrature import QuadratureConfig\n"
                  "from rfverify.implementations.quadrature import sr33_haar\n"
                  "config = QuadratureConfig(sr33_haar, dim=4, degree=3)",
    "orthogonal": "from rfverify.kinds.orthogonal import OrthogonalConfig\n"
                  "from rfverify.implementations.orthogonal import haar_qr\n"
                  "config = OrthogonalConfig(haar_qr, dim=4)",
}


@pytest.mark.parametrize("kind", sorted(_AT_EXIT))
def test_a_configuration_alive_at_exit_does_not_keep_the_interpreter_waiting_for_its_child(kind):
    """multiprocessing's exit handler waits for every child it started; rfverify's own exit handler must end the
    plug-in's child first, whatever imported multiprocessing.util first (a script with a module-level
    configuration, or a test failing with it in its traceback, hung at exit before)."""
    script = f"{_AT_EXIT[kind]}\nprint('built', flush=True)\n"
    try:
        proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    except subprocess.TimeoutExpired as exc:  # a hang, not a slow exit: nothing is left to do after 'built'
        pytest.fail(f"the interpreter did not exit (output so far: {exc.stdout!r})")
    assert proc.returncode == 0 and proc.stdout == "built\n", proc.stderr[-2000:]
