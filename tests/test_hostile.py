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
from rfverify.supervise import GRACE, TERM_WAIT
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
    import rfverify.supervise as supervise

    monkeypatch.setattr(supervise, "_FROZEN", {"RFVERIFY_INPROCESS": "1"})
    report = _verify(impl)
    _assert_plugin_error(report["contract"], needles, impl.__qualname__)


@pytest.mark.parametrize("target", ["HStrRaisesBaseException", "HStrSubclass", "HExhaustsFds"])
def test_exceptions_through_the_cli_exit_2_with_the_report_written(target, tmp_path):
    proc, _ = _cli(f"tests.hostile_plugins:{target}", tmp_path)
    assert proc.returncode == 2, proc.stderr[-2000:]
    assert "Traceback" not in proc.stderr and "internal error" not in proc.stderr
    by = _checks_of(tmp_path)
    assert by["contract"]["status"] == "error" and by["unbiasedness"]["status"] == "pass"
    assert not ABS_PATH.search(by["contract"]["message"])
    assert (tmp_path / "rep" / "SUMMARY.md").exists()
