"""Plug-ins that attack the harness (tests/hostile_plugins.py), through the Python API, the CLI and the pytest
plugin: exceptions that cannot be shown and resources used up (error records, exit 2, the report written),
rfverify's environment set by a plug-in, signals sent to the harness, descendants left behind, hangs that must
cost one limit only, a crash on the first calls, and Markdown link syntax.

What is asserted of time is a *budget* (the limit plus the stated grace plus generous slack for a loaded
machine), never a speed.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

import rfverify
from rfverify.containment.supervise import GRACE, TERM_WAIT
from tests import hostile_plugins as hp

TESTS = Path(__file__).parent
ROOT = TESTS.parent
LIMIT = 3
CHECKS = ["contract", "unbiasedness"]
#: What a loaded 2-core machine may add to a run on top of its budget (start-up, the other checks).
SLACK = 60
#: An absolute path of the machine (the install prefix, a home directory, the temporary directory).
ABS_PATH = re.compile(r"(?<![\w.~:/-])/(?:[^\s/'\"]+/)+")


def _verify(impl, **kw):
    kw.setdefault("checks", CHECKS)
    kw.setdefault("time_limit", LIMIT)
    return rfverify.verify(impl, kernel="rbf", kernel_params={"gamma": 0.5}, dim=4, profile="quick",
                           memory_limit="256M", **kw)


def _env(**extra):
    return {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]), **extra}


def _cli(target, tmp_path, *args, checks=CHECKS, limit=LIMIT, timeout=600, env=None):
    """``rfverify check feature-map TARGET`` as a real process (stdout and stderr captured through pipes)."""
    cmd = [sys.executable, "-m", "rfverify.cli", "check", "feature-map", target, "--param", "gamma=0.5", "--dim", "4",
           "--profile", "quick", "--time-limit", str(limit), "--memory-limit", "256M",
           "--json", str(tmp_path / "r.json"), "--report", str(tmp_path / "rep"), *args]
    for c in checks:
        cmd += ["--check", c]
    t0 = time.monotonic()
    proc = subprocess.run(cmd, capture_output=True, text=True, cwd=tmp_path, env=env or _env(), timeout=timeout)
    return proc, time.monotonic() - t0


def _checks_of(tmp_path):
    return {c["check"]: c for c in json.loads((tmp_path / "r.json").read_text())["checks"]}


def _alive(pid):
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


# ---------------------------------------------------------------------------------------------------
# exceptions are data; resource exhaustion is the plug-in's
# ---------------------------------------------------------------------------------------------------
EXCEPTIONS = [
    (hp.HStrRaisesBaseException, ["transform raised _Unprintable: (its message could not be shown: __str__ raised "
                                  "_Boom)"]),
    (hp.HStrSubclass, ["transform raised _ReturnsEvilStr: an evil message"]),
    (hp.HBaseExceptionWithHugeStr, ["transform raised _Boom, a BaseException: yyy", "more characters]"]),
    (hp.HSysExitUnprintable, ["transform called sys.exit((its message could not be shown: __repr__ raised _Boom))"]),
    (hp.HKeyboardInterrupt, ["transform raised KeyboardInterrupt"]),
    (hp.HExhaustsFds, ["transform exhausted the process's file descriptors (OSError: [Errno 24]",
                       "…/hostile_plugins.py"]),
    (hp.HRecursion, ["transform exhausted the process's stack (recursion depth) (RecursionError"]),
]
EXC_IDS = [impl.__name__ for impl, _ in EXCEPTIONS]


def _assert_plugin_error(result, needles, name):
    assert result.status == "error", result.explain()
    for needle in needles:
        assert needle in result.message, (needle, result.message[:600])
    assert result.message.startswith(name + ": ") and "internal error" not in result.message
    assert not ABS_PATH.search(result.message), result.message[:600]
    assert len(result.message) <= 4000 and "\n" not in result.message


@pytest.mark.parametrize("impl,needles", EXCEPTIONS, ids=EXC_IDS)
def test_exceptions_and_exhaustion_are_the_plugins_error_api(impl, needles):
    report = _verify(impl)
    _assert_plugin_error(report["contract"], needles, impl.__qualname__)
    assert report["contract"].details.get("error_source") == "plug-in"
    assert report["unbiasedness"].status == "pass", report["unbiasedness"].explain()
    assert report.exit_code == 2


IN_ONE_PROCESS = [e for e in EXCEPTIONS if e[0] not in (hp.HKeyboardInterrupt, hp.HExhaustsFds)]


@pytest.mark.parametrize("impl,needles", IN_ONE_PROCESS, ids=[e[0].__name__ for e in IN_ONE_PROCESS])
def test_exceptions_are_the_plugins_error_in_one_process_too(impl, needles, monkeypatch):
    """RFVERIFY_INPROCESS=1: the guard alone reads the exception without trusting it (not the descriptor
    exhaustion: it would leave this test process without any; a KeyboardInterrupt is the user's there)."""
    import rfverify.containment.supervise as supervise

    monkeypatch.setattr(supervise, "_FROZEN", {"RFVERIFY_INPROCESS": "1"})
    report = _verify(impl)
    _assert_plugin_error(report["contract"], needles, impl.__qualname__)


#: Every exception reaches the API test above; through the CLI, CI runs one unprintable exception and the descriptor
#: exhaustion, the slow set also the other unprintable one.
@pytest.mark.parametrize("target", ["HStrRaisesBaseException", pytest.param("HStrSubclass", marks=pytest.mark.slow),
                                    "HExhaustsFds"])
def test_exceptions_through_the_cli_exit_2_with_the_report_written(target, tmp_path):
    proc, _ = _cli(f"tests.hostile_plugins:{target}", tmp_path)
    assert proc.returncode == 2, proc.stderr[-2000:]
    assert "Traceback" not in proc.stderr and "internal error" not in proc.stderr
    by = _checks_of(tmp_path)
    assert by["contract"]["status"] == "error" and by["unbiasedness"]["status"] == "pass"
    assert not ABS_PATH.search(by["contract"]["message"])
    assert (tmp_path / "rep" / "SUMMARY.md").exists()


# ---------------------------------------------------------------------------------------------------
# signals sent to the harness; descendants left behind (rfverify.containment.sentinel)
# ---------------------------------------------------------------------------------------------------
SIGNALS = [(hp.HSigterm, "sent SIGTERM"), (hp.HSigint, "sent SIGINT"), (hp.HSighup, "sent SIGHUP"),
           (hp.HSigstop, "was stopped (SIGSTOP) while the plug-in ran and was resumed by its watchdog")]
SIG_IDS = [impl.__name__ for impl, _ in SIGNALS]


_API_RUN = """
import json, sys
from tests import hostile_plugins as hp
from tests.test_hostile import _verify
report = _verify(getattr(hp, sys.argv[1]))
print(json.dumps({"exit": report.exit_code, "checks": {r.check: [r.status, r.message] for r in report.results}}))
"""


@pytest.mark.parametrize("impl,needle", SIGNALS, ids=SIG_IDS)
def test_a_signal_to_the_harness_ends_that_check_as_an_error_api(impl, needle, tmp_path):
    """Through ``rfverify.verify``, in a fresh single-threaded Python process: a signal mask is per thread, so in a
    host with other threads (a pytest-xdist worker's) the kernel may hand the signal to one that does not block it,
    and it keeps its ordinary effect there (docs/containment.md says so; such a run never exits 0)."""
    proc = subprocess.run([sys.executable, "-c", _API_RUN, impl.__name__], capture_output=True, text=True,
                          cwd=tmp_path, env=_env(), timeout=600)
    assert proc.returncode == 0, proc.stderr[-2000:]
    got = json.loads(proc.stdout.strip().splitlines()[-1])
    status, message = got["checks"]["contract"]
    assert status == "error" and needle in message, message[:600]
    assert message.startswith(impl.__qualname__ + ": ")
    assert got["checks"]["unbiasedness"][0] == "pass", got["checks"]["unbiasedness"]
    assert got["exit"] == 2


#: Every signal reaches the API test above; through the CLI, CI runs SIGTERM (a signal that ends a process) and SIGSTOP
#: (the watchdog's resume), the slow set also SIGINT and SIGHUP.
CLI_SIGNALS = [s if s[0] in (hp.HSigterm, hp.HSigstop) else pytest.param(*s, marks=pytest.mark.slow) for s in SIGNALS]


@pytest.mark.parametrize("impl,needle", CLI_SIGNALS, ids=SIG_IDS)
def test_a_signal_to_the_harness_through_the_cli_writes_the_report(impl, needle, tmp_path):
    proc, elapsed = _cli(f"tests.hostile_plugins:{impl.__name__}", tmp_path)
    assert proc.returncode == 2, (proc.returncode, proc.stderr[-2000:])
    by = _checks_of(tmp_path)
    assert by["contract"]["status"] == "error" and needle in by["contract"]["message"]
    assert by["unbiasedness"]["status"] == "pass"
    assert (tmp_path / "rep" / "SUMMARY.md").exists() and needle in proc.stderr.strip().splitlines()[-1]
    assert elapsed < 2 * (LIMIT + GRACE + TERM_WAIT) + SLACK, elapsed


@pytest.mark.parametrize("sig,code", [(signal.SIGTERM, -signal.SIGTERM), (signal.SIGINT, 130)],
                         ids=["SIGTERM", "SIGINT"])
def test_a_signal_from_outside_is_still_honoured_and_leaves_no_child(sig, code, tmp_path):
    """The user's Ctrl-C or a CI timeout (not the plug-in: another sender) ends the run as before — exit 130 or
    killed by SIGTERM, never 0 — and the child hanging in the plug-in goes with it."""
    cmd = [sys.executable, "-m", "rfverify.cli", "check", "feature-map", "tests.hostile_plugins:HHangsAlways",
           "--param", "gamma=0.5", "--dim", "4", "--profile", "quick", "--check", "contract", "--time-limit", "600"]
    proc = subprocess.Popen(cmd, cwd=tmp_path, env=_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    children: list[int] = []
    for _ in range(600):  # wait for the child (up to 60 s on a loaded machine)
        out = subprocess.run(["ps", "-o", "pid=", "--ppid", str(proc.pid)], capture_output=True, text=True).stdout
        children = [int(p) for p in out.split()]
        if len(children) >= 2:  # the watchdog and the supervised child
            break
        time.sleep(0.1)
    assert children, "no child process appeared"
    time.sleep(1.0)
    proc.send_signal(sig)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == code, (out.decode()[-2000:], err.decode()[-3000:])
    for _ in range(100):
        if not any(_alive(c) for c in children):
            break
        time.sleep(0.1)
    assert not [c for c in children if _alive(c)]


#: Both descendants, with the caller's pipes captured, reach the API test below; through the CLI, CI runs the daemon,
#: the slow set also the grandchild in a new session.
@pytest.mark.parametrize("target", [pytest.param("HGrandchildSession", marks=pytest.mark.slow), "HDaemonGrandchild"])
def test_no_descendant_survives_or_holds_the_callers_pipes(target, tmp_path):
    """A grandchild in a new session and a double-forked daemon, both sleeping 10 minutes: rfverify returns, the
    caller's pipes close (subprocess.run with captured output returns), and neither process is left."""
    pid_file = tmp_path / "pids"
    proc, elapsed = _cli(f"tests.hostile_plugins:{target}", tmp_path, timeout=300,
                         env=_env(**{hp.PID_FILE_ENV: str(pid_file)}))
    assert proc.returncode == 0, proc.stderr[-2000:]  # a descendant is not a fault in itself; it is ended
    pids = [int(p) for p in pid_file.read_text().split()]
    assert pids
    for _ in range(50):
        if not any(_alive(p) for p in pids):
            break
        time.sleep(0.1)
    assert not [p for p in pids if _alive(p)]
    assert elapsed < 2 * (LIMIT + GRACE) + SLACK, elapsed


def test_no_descendant_survives_the_api(tmp_path):
    """Through ``rfverify.verify`` in a fresh Python process (as the signal tests: nothing an earlier test of the same
    worker left behind — threads, orphans re-parented to it — is mistaken for the run's own)."""
    pid_file = tmp_path / "pids"
    for impl in (hp.HGrandchildSession, hp.HDaemonGrandchild):
        proc = subprocess.run([sys.executable, "-c", _API_RUN, impl.__name__], capture_output=True, text=True,
                              cwd=tmp_path, env=_env(**{hp.PID_FILE_ENV: str(pid_file)}), timeout=600)
        assert proc.returncode == 0, proc.stderr[-2000:]
        assert json.loads(proc.stdout.strip().splitlines()[-1])["exit"] == 0, proc.stdout[-2000:]
    pids = [int(p) for p in pid_file.read_text().split()]
    assert len(pids) >= 2
    for _ in range(50):
        if not any(_alive(p) for p in pids):
            break
        time.sleep(0.1)
    assert not [p for p in pids if _alive(p)]


PYTEST_FILE = """
import sys
sys.path.insert(0, {root!r})
from tests import hostile_plugins as hp
from rfverify.pytest_plugin import parametrize_with_checks

@parametrize_with_checks([{names}], kernel="rbf", kernel_params={{"gamma": 0.5}}, dim=4,
                         checks=["contract", "unbiasedness"])
def test_hostile(rfverify_case):
    rfverify_case()
"""
PYTEST_HOSTILE = ["HStrRaisesBaseException", "HStrSubclass", "HExhaustsFds", "HSigterm", "HSigint", "HSighup",
                  "HSigstop"]
#: CI's run: the plug-ins of the CLI tests above (the slow set runs all of PYTEST_HOSTILE).
PYTEST_HOSTILE_CI = ["HStrRaisesBaseException", "HExhaustsFds", "HSigterm", "HSigstop"]


@pytest.mark.parametrize("names", [pytest.param(PYTEST_HOSTILE_CI, id="ci"),
                                   pytest.param(PYTEST_HOSTILE, id="all", marks=pytest.mark.slow)])
def test_pytest_plugin_fails_the_items_of_hostile_plugins(pytester, names):
    pytester.makepyfile(PYTEST_FILE.format(root=str(ROOT), names=", ".join(f"hp.{n}" for n in names)))
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "--rfverify-profile", "quick",
                                           "--rfverify-time-limit", str(LIMIT), "--rfverify-memory-limit", "256M",
                                           timeout=600)
    result.assert_outcomes(failed=len(names), passed=len(names))
    for name in names:
        result.stdout.fnmatch_lines([f"*{name} [[]contract[]]: ERROR*"])
    assert "internal error" not in result.stdout.str()


# ---------------------------------------------------------------------------------------------------
# rfverify's environment is read once, before any plug-in code runs
# ---------------------------------------------------------------------------------------------------
def test_a_plugin_setting_rfverify_inprocess_at_import_changes_nothing_cli(tmp_path):
    proc, _ = _cli("tests.hostile_env:HEnvThenExit0", tmp_path)
    assert proc.returncode == 2, (proc.returncode, proc.stderr[-2000:])
    by = _checks_of(tmp_path)
    assert by["contract"]["status"] == "error" and "ended the process with exit code 0" in by["contract"]["message"]
    assert by["unbiasedness"]["status"] == "pass"


def test_a_plugin_setting_rfverify_inprocess_at_import_changes_nothing_pytest(pytester):
    pytester.makepyfile(PYTEST_FILE.format(root=str(ROOT), names="__import__('tests.hostile_env').hostile_env."
                                                                 "HEnvThenExit0"))
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "--rfverify-profile", "quick",
                                           "--rfverify-time-limit", str(LIMIT), timeout=600)
    result.assert_outcomes(failed=1, passed=1)
    result.stdout.fnmatch_lines(["*HEnvThenExit0 [[]contract[]]: ERROR*exit code 0*"])


# ---------------------------------------------------------------------------------------------------
# one rule for limits: a hang costs its limit plus the grace once; a crash on the first calls
# ---------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("checks", [["contract"], ["contract", "unbiasedness"]], ids=["one", "two"])
def test_a_hang_is_not_started_again(checks, tmp_path, monkeypatch):
    """A plug-in that hangs on every call (the in-child timer blocked): the preflight hangs once, its error is every
    check's, and nothing starts it again (for the report header, or before a check)."""
    count = tmp_path / "count"
    monkeypatch.setenv(hp.COUNT_FILE_ENV, str(count))
    t0 = time.monotonic()
    report = _verify(hp.HHangsAlwaysBlocking, checks=checks)
    elapsed = time.monotonic() - t0
    assert [r.status for r in report.results] == ["error"] * len(checks)
    assert "ended from outside" in report["contract"].message
    assert count.read_text() == "h"  # the preflight's hang, once
    assert elapsed < LIMIT + GRACE + TERM_WAIT + SLACK, elapsed


def test_a_plugin_crashing_on_its_first_calls_errors_one_check_and_the_others_run(tmp_path, monkeypatch):
    monkeypatch.setenv(hp.COUNT_FILE_ENV, str(tmp_path / "count"))
    report = _verify(hp.HCrashesFirstCalls, checks=["contract", "reproducibility", "unbiasedness"])
    assert report["contract"].status == "error"
    assert "the preflight call ended the process with exit code 1" in report["contract"].message
    assert report["reproducibility"].status == "pass", report["reproducibility"].explain()
    assert report["unbiasedness"].status == "pass", report["unbiasedness"].explain()
    assert report.exit_code == 2


def test_a_plugin_crashing_on_its_first_calls_through_the_cli(tmp_path):
    proc, _ = _cli("tests.hostile_plugins:HCrashesFirstCalls", tmp_path,
                   env=_env(**{hp.COUNT_FILE_ENV: str(tmp_path / "count")}))
    assert proc.returncode == 2, proc.stderr[-2000:]
    by = _checks_of(tmp_path)
    assert by["contract"]["status"] == "error" and by["unbiasedness"]["status"] == "pass"


# ---------------------------------------------------------------------------------------------------
# Markdown output shows a plug-in's link syntax, never a live link
# ---------------------------------------------------------------------------------------------------
LIVE_LINK = re.compile(r"(?<!\\)!?\[[^\]]*(?<!\\)\]\(")  # [text]( or ![alt]( with neither bracket escaped


def test_markdown_inline_escapes_links_and_a_plain_twin_is_unchanged():
    from rfverify.text import markdown_code, markdown_inline

    evil = markdown_inline("see [click](javascript:alert(1)) ![i](http://e/x.png) [r][1] \\[x](y) `c` <u>")
    assert not LIVE_LINK.search(evil) and "<u>" not in evil and "javascript:alert(1)" in evil
    assert LIVE_LINK.search("see [click](javascript:alert(1))")  # the pattern finds a live link
    assert markdown_inline("n_components = 64, p = 0.5") == "n_components = 64, p = 0.5"
    assert markdown_code("a``b") == "```a``b```" and markdown_code("a|b") == "`a\\|b`"


def test_summary_md_shows_a_plugins_link_syntax_as_text(tmp_path):
    from rfverify.report.writing import write_reports

    report = _verify(hp.HMarkdownLink)
    assert report["contract"].status == "error"
    write_reports(tmp_path, [("md[x](javascript:y)", report)], seed=report.seed, profile="quick", html=False)
    summary = (tmp_path / "SUMMARY.md").read_text()
    assert "javascript:alert(1)" in summary and "javascript:y" in summary  # shown ...
    assert not LIVE_LINK.search(summary), summary  # ... never live
    assert "<b>" not in summary


# ---------------------------------------------------------------------------------------------------
# a module that exits, crashes, hangs or signals at import (CLI: imported in a throw-away child first)
# ---------------------------------------------------------------------------------------------------
IMPORT_FAULTS = [("import os\nos._exit(0)\n", "ended the process with exit code 0"),
                 ("import ctypes\nctypes.string_at(0)\n", "killed by SIGSEGV"),
                 ("import signal, time\nsignal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGALRM})\ntime.sleep(3600)\n",
                  f"did not finish within the time limit of {LIMIT} s"),
                 ("import os, signal\nos.kill(os.getppid(), signal.SIGTERM)\n", "sent SIGTERM")]


@pytest.mark.parametrize("source,needle", IMPORT_FAULTS, ids=["exit0", "segfault", "hang", "sigterm"])
def test_a_module_that_dies_at_import_errors_every_check_with_the_report_written(source, needle, tmp_path):
    (tmp_path / "badimport.py").write_text(source + "\nclass F:\n    pass\n")
    proc, elapsed = _cli("badimport:F", tmp_path)
    assert proc.returncode == 2, (proc.returncode, proc.stderr[-2000:])
    statuses = {name: c["status"] for name, c in _checks_of(tmp_path).items()}
    assert statuses == {"contract": "error", "unbiasedness": "error"}
    assert needle in _checks_of(tmp_path)["contract"]["message"]
    assert (tmp_path / "rep" / "SUMMARY.md").exists()
    assert elapsed < LIMIT + GRACE + TERM_WAIT + SLACK, elapsed


def test_a_module_that_imports_cleanly_is_built_once_more_by_the_harness(tmp_path):
    """The twin: what a correct module prints at import is shown once (by the harness), and its checks pass."""
    (tmp_path / "goodimport.py").write_text("print('hello from import')\nfrom tests.faulty_plugins import Features\n")
    proc, _ = _cli("goodimport:Features", tmp_path)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stderr.count("hello from import") == 1


def test_the_biased_twin_fails_and_never_exits_0(tmp_path):
    """The hostile plug-ins' correct parent passes; the same map scaled by 0.8 fails unbiasedness (exit 1) through
    the API and the CLI."""
    assert _verify(hp.Features, checks=["unbiasedness"]).exit_code == 0
    report = _verify(hp.HBiased, checks=["unbiasedness"])
    assert report["unbiasedness"].status == "fail" and report.exit_code == 1
    proc, _ = _cli("tests.hostile_plugins:HBiased", tmp_path, checks=["unbiasedness"])
    assert proc.returncode == 1 and _checks_of(tmp_path)["unbiasedness"]["status"] == "fail"


def test_an_outside_sigint_still_blocked_at_redelivery_is_raised_at_once():
    """A Ctrl-C redelivered while SIGINT is still blocked (a mask the harness inherited, another gate open) must
    not wait: it is taken back and raised as KeyboardInterrupt at once, never left to fire after the plug-in's
    process is gone (where the harness went on and blamed the plug-in: "'NoneType' object has no attribute
    'join'").  In a process of its own: a KeyboardInterrupt here would touch the test worker."""
    code = ("import signal\nfrom rfverify.containment import sentinel\n"
            "signal.pthread_sigmask(signal.SIG_BLOCK, [signal.SIGINT])\n"
            "try:\n    sentinel.redeliver([(signal.SIGINT, 1)])\n    print('waited')\n"
            "except KeyboardInterrupt:\n    print('raised', signal.SIGINT in signal.sigpending())\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=_env(), timeout=120)
    assert out.stdout.split() == ["raised", "False"], (out.stdout, out.stderr[-2000:])


def _blocked(pid):
    """The signal mask of ``pid``'s main thread (Linux: SigBlk in /proc/PID/status), 0 when it cannot be read."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return 0
    return next((int(line.split()[1], 16) for line in status.splitlines() if line.startswith("SigBlk:")), 0)


_OUTSIDE_RUN = """
import json, signal, sys
import rfverify
from tests import hostile_plugins as hp
signal.signal(signal.SIGHUP, signal.SIG_IGN if sys.argv[1] == "ignored" else (lambda *a: None))
report = rfverify.verify(hp.HHangsAlways(), kernel="rbf", kernel_params={"gamma": 0.5}, dim=4, profile="quick",
                         checks=["contract"], time_limit=float(sys.argv[2]))
print(json.dumps({r.check: [r.status, r.message] for r in report.results}))
"""


@pytest.mark.parametrize("how", ["returns", "ignored"])
def test_an_outside_signal_whose_handler_lets_the_run_go_on_is_not_blamed_on_the_plugin(how, tmp_path):
    """SIGHUP from outside while a check hangs, in a caller whose handler returns or who ignores SIGHUP (nohup): an
    ignored signal changes nothing (the check ends at its time limit, as without the gate); a handler that returns
    leaves the check without its process, which is said as such — never an AttributeError of rfverify's own
    blamed on the plug-in (it read "fit_transform raised AttributeError: 'NoneType' object has no attribute
    'join'")."""
    limit = 600 if how == "returns" else LIMIT
    proc = subprocess.Popen([sys.executable, "-c", _OUTSIDE_RUN, how, str(limit)], cwd=tmp_path, env=_env(),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    for _ in range(1200):  # until the harness waits on its child with the gate open (SIGHUP blocked): 120 s at most
        if _blocked(proc.pid) & (1 << (signal.SIGHUP - 1)):
            break
        time.sleep(0.1)
    else:
        pytest.fail("the harness never blocked SIGHUP")
    proc.send_signal(signal.SIGHUP)
    out, err = proc.communicate(timeout=300)
    assert proc.returncode == 0, err.decode()[-3000:]
    status, message = json.loads(out.decode().strip().splitlines()[-1])["contract"]
    assert status == "error" and "AttributeError" not in message, message
    if how == "returns":
        assert f"was interrupted from outside (SIGHUP (Hangup) from pid {os.getpid()})" in message, message
        assert "not the plug-in's fault" in message
    else:
        assert "did not finish within the time limit" in message and "interrupted from outside" not in message, message
