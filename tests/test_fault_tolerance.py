"""Fault tolerance: a misbehaving plug-in of any kind gives status ``error`` with a message
naming the plug-in, what it did and the fix; the other checks still run; the report is still written;
the harness never crashes and restores everything it changed (signal handler, timer, rlimit, streams,
global random states).  The plug-ins are in tests/faulty_plugins.py.

Limits in these tests: 256 MiB of address space (the unbounded allocators stop themselves at 2 GiB even if
the guard failed) and 30 s per check, except 1 s for plug-ins that hang from their first call (a hang costs
its limit in sleep, not CPU) and 5 s where a hang must not touch the other checks (they take < 0.3 s).
"""

from __future__ import annotations

import json
import random
import signal
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from tests import faulty_plugins as fp
import rfverify
from rfverify.cli import main
from rfverify.errors import PluginError, UsageError
from rfverify.containment.guard import Limits, as_array, guarded, parse_memory_limit, parse_time_limit
from rfverify.kinds.kernel import verify_kernel
from rfverify.kinds.orthogonal import verify_orthogonal
from rfverify.kinds.quadrature import verify_quadrature
from rfverify.kinds.transform import verify_transform

LIMITS = {"time_limit": 30, "memory_limit": "256M"}
HANGS = {fp.FMBusyLoop, fp.FMSwallowsInterrupt, fp.orth_sleeps, fp.tr_busy_loop, fp.qr_swallows_interrupt,
         fp.k_sleeps}
TESTS = str(Path(__file__).parent)


def verify_fm(impl, **kw):
    return rfverify.verify(impl, kernel="rbf", kernel_params={"gamma": 0.5}, dim=4, profile="quick",
                           **{**LIMITS, **kw})


def verify_orth(impl, **kw):
    return verify_orthogonal(impl, dim=4, profile="quick", **{**LIMITS, **kw})


def verify_tr(impl, **kw):
    return verify_transform(impl, dim=8, profile="quick", **{**LIMITS, **kw})


def verify_qr(impl, **kw):
    return verify_quadrature(impl, dim=3, degree=0, profile="quick", **{**LIMITS, **kw})


def verify_k(impl, **kw):
    return verify_kernel(impl, dim=3, profile="quick", **{**LIMITS, **kw})


VERIFY = {"feature-map": verify_fm, "orthogonal": verify_orth, "transform": verify_tr, "quadrature": verify_qr,
          "kernel": verify_k}


def _name(impl):
    return impl.__qualname__


def _assert_error(result, impl, *needles):
    assert result.status == "error", result.explain()
    assert _name(impl) in result.message, result.message
    for needle in needles:
        assert needle in result.message, (needle, result.message)
    assert "internal error" not in result.message and "Traceback" not in result.message


# Faults the preflight call already sees: every check reports the same error.
ALWAYS = [
    # raises
    ("feature-map", fp.FMRaises, ["transform raised ValueError: features exploded", "must accept a float64 array"]),
    ("feature-map", fp.FMExits, ["fit called sys.exit(3)", "never exit the process"]),
    ("feature-map", fp.FMBaseException, ["raised PluginBaseException, a BaseException", "Exception subclass"]),
    ("orthogonal", fp.orth_raises, ["raised RuntimeError: no matrices today", "accept (d, rng)"]),
    ("orthogonal", fp.orth_exits, ["called sys.exit('sampler gave up')"]),
    ("transform", fp.tr_raises, ["raised TypeError: cannot apply", "any (n, d) batch"]),
    ("quadrature", fp.qr_raises, ["raised ZeroDivisionError: division by zero", "rng a numpy Generator"]),
    ("kernel", fp.k_raises, ["raised ArithmeticError: kernel undefined", "k(X, Y) -> (n_X, n_Y) Gram matrix"]),
    ("kernel", fp.k_nan, ["non-finite values"]),
    ("kernel", fp.k_strings, ["array of strings"]),
    ("kernel", fp.k_sleeps, ["time limit of 1 s", "last call into the plug-in: k(X, Y)"]),
    ("kernel", fp.k_draws_global, ["changed numpy's global random state"]),
    ("kernel", fp.k_prints, ["printed to stdout", "'gram (32, 3)'"]),
    # NaN or inf
    ("feature-map", fp.FMInf, ["non-finite value(s)", "features must be finite"]),
    ("orthogonal", fp.orth_nan, ["1 non-finite value(s) (NaN or inf: 1 NaN)"]),
    ("transform", fp.tr_inf, ["non-finite value(s) (NaN or inf: 0 NaN)"]),
    # shapes
    ("feature-map", fp.FMDropsRow, ["returned shape (", "return an array of shape ("]),
    ("feature-map", fp.FMThreeD, ["returned shape (", ", 1)"]),
    ("transform", fp.tr_transposed, ["apply returned shape (8, 2) for input shape (2, 8)"]),
    ("quadrature", fp.qr_not_a_pair, ["returned tuple, not a pair", "(points of shape (n, d)"]),
    ("quadrature", fp.qr_wrong_points, ["points have shape (32, 2) for d=3"]),
    # types
    ("feature-map", fp.FMNone, ["transform returned None", "numpy array"]),
    ("feature-map", fp.FMRagged, ["returned list output that cannot be brought to the host as a numpy array"]),
    ("feature-map", fp.FMStrings, ["array of strings, dtype <U"]),
    ("feature-map", fp.FMObjects, ["array of Python objects, dtype object (e.g. float)"]),
    ("feature-map", fp.FMFloat16, ["returned dtype float16", "float32 or float64"]),
    ("orthogonal", fp.orth_complex, ["returned a complex complex128 matrix", "not supported (complex unitary samplers)"]),
    ("orthogonal", fp.orth_strings, ["array of strings"]),
    ("orthogonal", fp.orth_none, ["returned None"]),
    ("orthogonal", fp.orth_float16, ["dtype float16"]),
    ("transform", fp.tr_objects, ["array of Python objects"]),
    ("quadrature", fp.qr_complex, ["(points) returned complex dtype"]),
    # hangs (1 s limit)
    ("feature-map", fp.FMBusyLoop, ["did not finish within the time limit of 1 s", "last call into the plug-in: fit",
                                    "--time-limit"]),
    ("feature-map", fp.FMSwallowsInterrupt, ["time limit of 1 s", "last call into the plug-in: transform"]),
    ("orthogonal", fp.orth_sleeps, ["time limit of 1 s", "sampling a 4x4 matrix"]),
    ("transform", fp.tr_busy_loop, ["time limit of 1 s", "apply on a valid float64 input"]),
    ("quadrature", fp.qr_swallows_interrupt, ["time limit of 1 s", "rule(3, rng)"]),
    # unbounded allocation
    ("feature-map", fp.FMHugeAllocation, ["fit ran out of memory (MemoryError", "--memory-limit"]),
    # growth that the address-space limit misses (glibc reuses address space reserved earlier) is caught
    # by the supervisor's resident-memory watchdog instead: either way the message says "ran out of
    # memory" and names the call, so the needles hold for both routes
    ("feature-map", fp.FMGrowsList, ["ran out of memory", "transform", "--memory-limit"]),
    ("feature-map", fp.FMTooManyFeatures, ["returned 32,768 features for n_components=16",
                                           "more than 1024 per component"]),
    ("orthogonal", fp.orth_grows_list, ["ran out of memory", "sampling a 4x4 matrix", "--memory-limit"]),
    ("transform", fp.tr_huge_allocation, ["ran out of memory"]),
    ("quadrature", fp.qr_grows_list, ["ran out of memory", "rule(3, rng)", "--memory-limit"]),
    # global random state
    ("feature-map", fp.FMSeedsGlobal, ["changed numpy's global random state", "during the preflight call",
                                       "draw from the random_state / rng you are given"]),
    ("feature-map", fp.FMDrawsGlobal, ["changed numpy's global random state"]),
    ("feature-map", fp.FMPythonRandom, ["changed Python's random module state"]),
    ("orthogonal", fp.orth_seeds_global, ["changed numpy's global random state"]),
    ("transform", fp.tr_draws_global, ["changed numpy's global random state"]),
    ("quadrature", fp.qr_python_random, ["changed Python's random module state"]),
    # printing
    ("feature-map", fp.FMPrints, ["printed to stdout during the preflight call: 'transforming (", "--json"]),
    ("feature-map", fp.FMPrintsStderr, ["printed to stderr during the preflight call: 'fitting ...'"]),
    ("orthogonal", fp.orth_prints, ["printed to stdout", "'sampling 4'"]),
    ("transform", fp.tr_prints, ["printed to stdout", "'applying'"]),
    ("quadrature", fp.qr_prints_stderr, ["printed to stderr", "'rule called'"]),
]


@pytest.mark.parametrize("kind,impl,needles", ALWAYS, ids=[f"{k}-{_name(i)}" for k, i, _ in ALWAYS])
def test_fault_found_by_the_preflight_errors_every_check(kind, impl, needles):
    np_state, py_state = np.random.get_state(), random.getstate()
    stdout, stderr = sys.stdout, sys.stderr
    report = VERIFY[kind](impl, **({"time_limit": 1} if impl in HANGS else {}))
    assert report.exit_code == 2 and not report.passed
    for r in report.results:
        _assert_error(r, impl, *needles)
    json.loads(report.to_json())  # the report is still written
    # whatever the plug-in did, the caller's state is back
    assert sys.stdout is stdout and sys.stderr is stderr
    assert np.array_equal(np.random.get_state()[1], np_state[1]) and random.getstate() == py_state
    assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)


def _statuses(report):
    return {r.check: r.status for r in report.results}


def test_nan_on_some_calls_errors_those_checks_and_the_others_still_run():
    report = verify_fm(fp.FMNaNSometimes)
    st = _statuses(report)
    assert st["unbiasedness"] == "pass", st  # m = 256 never sees the NaN
    for check in ("contract", "reproducibility", "error-rate"):  # m = 64 does
        _assert_error(report[check], fp.FMNaNSometimes, "non-finite value(s)", "n_components=64")


def test_a_hang_in_one_check_stops_that_check_and_the_others_pass():
    report = verify_fm(fp.FMSleepsSometimes, time_limit=5)
    _assert_error(report["contract"], fp.FMSleepsSometimes, "check contract did not finish within the time limit of "
                  "5 s (last call into the plug-in: transform)")
    st = _statuses(report)
    assert all(st[c] == "pass" for c in ("reproducibility", "unbiasedness", "error-rate")), st


def test_feature_count_changing_between_transforms_of_one_fit():
    report = verify_fm(fp.FMWidthChanges, checks=["contract", "unbiasedness"])
    _assert_error(report["contract"], fp.FMWidthChanges, "returned 65 columns after returning 64",
                  "fixed by fit")
    assert report["unbiasedness"].status == "pass"  # one transform per fit: never sees the change


def test_feature_count_depending_on_the_seed():
    report = verify_fm(fp.FMWidthBySeed, checks=["unbiasedness"])
    _assert_error(report["unbiasedness"], fp.FMWidthBySeed, "gave 17 features with random_state=",
                  "but 16 with random_state=", "depend on n_components only")


def test_orthogonal_sampler_returning_a_short_matrix_sometimes():
    report = verify_orth(fp.orth_short_sometimes)
    errors = [r for r in report.results if r.status == "error"]
    assert errors and all("return one square matrix per call" in r.message for r in errors)
    # the battery at the declared d = 4; the Haar screen names the dimension of its band where the draw fell short
    assert all("returned shape (3, 4) for d=4, expected (4, 4)" in r.message for r in errors if r.check != "haar-screen")
    assert "the sampler failed at d = " in report["haar-screen"].message


def test_quadrature_nan_weight_on_rare_draws():
    report = verify_qr(fp.qr_nan_weights_sometimes, checks=["rule-contract", "exactness", "rule-unbiasedness"])
    st = _statuses(report)
    assert st["rule-contract"] == "pass" and st["exactness"] == "pass", st
    _assert_error(report["rule-unbiasedness"], fp.qr_nan_weights_sometimes, "(weights) returned 1 non-finite")


def test_sys_exit_where_an_error_is_expected_is_not_a_refusal():
    report = verify_tr(fp.tr_exits_on_bad_width, checks=["transform-exactness", "transform-dimension"])
    assert report["transform-exactness"].status == "pass"
    _assert_error(report["transform-dimension"], fp.tr_exits_on_bad_width, "called sys.exit(2)")


@pytest.mark.filterwarnings("ignore:a harmless warning")
@pytest.mark.parametrize("impl", [fp.FMList, fp.FMWarns], ids=_name)
def test_lists_and_warnings_are_not_faults(impl):
    report = verify_fm(impl, checks=["contract", "reproducibility"])
    assert report.passed, report.table()


def test_keyboard_interrupt_is_not_swallowed(monkeypatch):
    class Interrupted(fp.Features):
        def fit(self, X, y=None):
            raise KeyboardInterrupt

    import rfverify.containment.supervise as supervise

    with monkeypatch.context() as m:
        m.setattr(supervise, "_FROZEN", {"RFVERIFY_INPROCESS": "1"})  # one process, as RFVERIFY_INPROCESS=1 asks
        with pytest.raises(KeyboardInterrupt):  # there it cannot be told apart from the user's Ctrl-C
            verify_fm(Interrupted)
    assert sys.stdout is sys.__stdout__ or not hasattr(sys.stdout, "parts")  # streams restored
    # the supervised child ignores SIGINT: there a KeyboardInterrupt can only be the plug-in's, and is its error
    report = verify_fm(Interrupted, checks=["contract"])
    assert report["contract"].status == "error" and "raised KeyboardInterrupt" in report["contract"].message


def test_guard_restores_the_previous_alarm_handler_and_timer():
    seen = []

    def outer(signum, frame):
        seen.append(signum)

    old = signal.signal(signal.SIGALRM, outer)
    try:
        signal.setitimer(signal.ITIMER_REAL, 100.0)
        with pytest.raises(PluginError, match="time limit of 0.2 s"):
            with guarded("sleeper", "check sleep", Limits(time=0.2, memory=None)):
                import time

                time.sleep(30)
        assert signal.getsignal(signal.SIGALRM) is outer
        left, interval = signal.getitimer(signal.ITIMER_REAL)
        assert 90.0 < left <= 100.0 and interval == 0.0 and not seen
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


def test_guard_restores_the_address_space_limit():
    resource = pytest.importorskip("resource", reason="RLIMIT_AS needs the POSIX resource module (not on Windows)")
    before = resource.getrlimit(resource.RLIMIT_AS)
    with pytest.raises(PluginError, match="ran out of memory"):
        with guarded("grower", "check grow", Limits(time=None, memory=256 << 20)):
            fp._grow_list()
    assert resource.getrlimit(resource.RLIMIT_AS) == before


def test_guard_passes_logging_through_to_the_real_stream(capsys):
    """Log records reach stderr and are no fault (warnings: see the CLI test with FMWarns below)."""
    import logging

    with guarded("polite", "check polite", Limits(time=None, memory=None)):
        logging.lastResort.handle(logging.makeLogRecord({"msg": "logged", "levelno": logging.WARNING}))
    assert "logged" in capsys.readouterr().err


def test_as_array_accepts_numbers_and_converts_integers():
    assert as_array([[1, 2], [3, 4]], plugin="p", action="a").dtype == np.float64
    assert as_array(np.ones(3, np.float32), plugin="p", action="a").dtype == np.float32
    assert as_array(np.ones(3, np.longdouble), plugin="p", action="a").dtype == np.float64
    assert as_array(np.ones(3, complex), plugin="p", action="a", complex_ok=True).dtype == complex


@pytest.mark.parametrize("text,expected", [("0", None), ("1.5", 1.5), (600, 600.0)])
def test_parse_time_limit(text, expected):
    assert parse_time_limit(text) == expected


@pytest.mark.parametrize("text,expected", [("0", None), ("4G", 4 << 30), ("512MiB", 512 << 20), (1 << 30, 1 << 30),
                                           ("1.5g", 3 << 29)])
def test_parse_memory_limit(text, expected):
    assert parse_memory_limit(text) == expected


@pytest.mark.parametrize("bad", ["-1", "nan", "inf", "soon", "", True, "1e-9"])
def test_bad_time_limit_is_a_usage_error(bad):
    with pytest.raises(UsageError, match="time_limit"):
        verify_fm(fp.Features, time_limit=bad)


@pytest.mark.parametrize("bad", ["-1G", "4X", "lots", "", 100, "1e400"])
def test_bad_memory_limit_is_a_usage_error(bad):
    with pytest.raises(UsageError, match="memory_limit"):
        verify_fm(fp.Features, memory_limit=bad)


def test_cli_writes_the_report_and_exits_2_on_a_hang(tmp_path, capsys):
    code = main(["check", "feature-map", "tests.faulty_plugins:FMBusyLoop", "--param", "gamma=0.5", "--dim", "4",
                 "--profile", "quick", "--time-limit", "1", "--report", str(tmp_path)])
    out, err = capsys.readouterr()
    assert code == 2 and "Traceback" not in out + err
    assert err.splitlines()[-1].startswith("rfverify: error: FMBusyLoop: the preflight call did not finish")
    pages = {p.name for p in tmp_path.iterdir()}
    assert "tests.faulty_plugins.FMBusyLoop.json" in pages and "index.html" in pages
    data = json.loads((tmp_path / "tests.faulty_plugins.FMBusyLoop.json").read_text())
    assert {c["status"] for c in data["checks"]} == {"error"}


@pytest.mark.parametrize("target,needle", [
    ("faulty_plugins:FMPrints", "printed to stdout"),  # run with cwd=tests/
    ("faulty_plugins:FMWarns", None),
])
def test_cli_json_on_stdout_stays_valid(target, needle):
    """In a fresh interpreter (warnings printed as by default): stdout is exactly the JSON report."""
    proc = subprocess.run([sys.executable, "-m", "rfverify.cli", "check", "feature-map", target, "--param",
                           "gamma=0.5", "--dim", "4", "--profile", "quick", "--check", "contract", "--json", "-",
                           "--quiet"],  # no progress lines: stderr is the one error line
                          capture_output=True, text=True, cwd=TESTS, timeout=300)
    data = json.loads(proc.stdout)
    assert "Traceback" not in proc.stderr
    if needle is None:
        assert proc.returncode == 0 and data["passed"] and "a harmless warning" in proc.stderr
    else:
        assert proc.returncode == 2 and needle in data["checks"][0]["message"]
        assert len(proc.stderr.strip().splitlines()) == 1 and needle in proc.stderr


@pytest.mark.parametrize("module_text,needle", [
    ("raise RuntimeError('broken at import')", "importing brokenmod raised RuntimeError: broken at import"),
    ("import sys\nsys.exit(4)", "importing brokenmod called sys.exit(4)"),
])
def test_a_module_that_fails_to_import_is_one_line(tmp_path, monkeypatch, capsys, module_text, needle):
    (tmp_path / "brokenmod.py").write_text(module_text + "\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "brokenmod", raising=False)
    assert main(["check", "orthogonal", "brokenmod:sample", "--dim", "4"]) == 2
    err = capsys.readouterr().err
    assert needle in err and len(err.strip().splitlines()) == 1 and "Traceback" not in err
