"""The CLI: exit codes, one-line errors, JSON, and the reproduce command round trip."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from rfverify.cli import main

TESTS = Path(__file__).parent
RBF = ["--param", "gamma=0.5"]


@pytest.fixture
def in_tests_dir(monkeypatch):
    monkeypatch.chdir(TESTS)


def test_sklearn_rbf_sampler_passes_default_suite_via_cli(tmp_path, capsys):
    out = tmp_path / "r.json"
    code = main(["check", "feature-map", "sklearn.kernel_approximation:RBFSampler", *RBF,
                 "--bound", "1.4142135623730951", "--profile", "quick", "--json", str(out)])
    text = capsys.readouterr().out
    assert code == 0, text
    assert "PASSED" in text and "unbiasedness" in text
    data = json.loads(out.read_text())
    assert data["passed"] is True and data["implementation"] == "sklearn.kernel_approximation:RBFSampler"
    assert data["target"] == {"name": "rbf", "params": {"gamma": 0.5}}
    assert {c["check"]: c["status"] for c in data["checks"]}.pop("adapted-approximation") == "skip"  # not adapted
    assert {c["status"] for c in data["checks"] if c["check"] != "adapted-approximation"} == {"pass"}
    assert data["metrics"]["seeds"] == 5 and 0 < data["metrics"]["rel_frobenius"]["mean"] < 1  # quick's metrics


def test_failing_check_exits_1_and_reproduce_reproduces(in_tests_dir, capsys):
    code = main(["check", "feature-map", "tests.mutants.rff_mutants:HalfScale", *RBF, "--check", "unbiasedness", "--json", "-"])
    data = json.loads(capsys.readouterr().out)
    assert code == 1
    chk = data["checks"][0]
    assert chk["status"] == "fail"
    argv = shlex.split(chk["reproduce"])
    assert argv[0] == "rfverify"
    code2 = main(argv[1:] + ["--json", "-"])
    again = json.loads(capsys.readouterr().out)["checks"][0]
    assert code2 == 1 and again == chk


@pytest.mark.parametrize("argv,needle", [
    (["check", "feature-map", "nosuchmodule:X"], "cannot import module 'nosuchmodule'"),
    (["check", "feature-map", "tests.mutants.rff_mutants"], "expected MODULE:ATTR"),
    (["check", "feature-map", "tests.mutants.rff_mutants:Nope"], "has no attribute 'Nope'"),
    (["check", "feature-map", "tests.mutants.rff_mutants:HalfScale", "--kernel", "nope"], "unknown kernel 'nope'"),
    (["check", "feature-map", "tests.mutants.rff_mutants:HalfScale", "--param", "gamma"], "KEY=VALUE"),
    (["check", "feature-map", "tests.mutants.rff_mutants:HalfScale", "--param", "gamma=-2"], "out of range"),
    (["check", "feature-map", "tests.mutants.rff_mutants:HalfScale", "--profile", "fast"], "unknown profile"),
    (["check", "feature-map", "tests.mutants.rff_mutants:HalfScale", "--dim", "abc"], "--dim must be an integer"),
    (["check", "feature-map", "tests.mutants.rff_mutants:HalfScale", "--seed", "-3"], "non-negative"),
    (["check", "feature-map", "tests.mutants.rff_mutants:HalfScale", "--check", "nope"], "unknown check"),
    (["check", "feature-map", "tests.mutants.rff_mutants:HalfScale", "--frobnicate"], "unrecognized arguments"),
])
def test_usage_errors_exit_2_with_one_line(in_tests_dir, capsys, argv, needle):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert needle in err
    assert err.count("\n") == 1 and "Traceback" not in err


def test_broken_plugin_exits_2_with_message(in_tests_dir, tmp_path, capsys):
    (tmp_path / "nanmap.py").write_text(
        "import numpy as np\n"
        "def make(n_components, random_state):\n"
        "    class M:\n"
        "        def fit(self, X): return self\n"
        "        def transform(self, X): return np.full((len(X), n_components), np.nan)\n"
        "    return M()\n")
    os.chdir(tmp_path)
    out = tmp_path / "r.json"
    assert main(["check", "feature-map", "nanmap:make", "--json", str(out)]) == 2
    err = capsys.readouterr().err
    assert "non-finite" in err and "Traceback" not in err
    assert json.loads(out.read_text())["checks"][0]["status"] == "error"


def test_console_script_runs_from_working_directory(tmp_path):
    (tmp_path / "myfeat.py").write_text(
        "from rfverify.implementations.rff import RandomFourierFeatures\n"
        "def make(n_components, random_state):\n"
        "    return RandomFourierFeatures(n_components, random_state, gamma=0.5)\n")
    exe = Path(sys.executable).with_name("rfverify")
    cmd = [str(exe)] if exe.exists() else [sys.executable, "-m", "rfverify.cli"]
    proc = subprocess.run(cmd + ["check", "feature-map", "myfeat:make", *RBF, "--profile", "quick"],
                          cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "PASSED" in proc.stdout


def test_list_commands(capsys):
    assert main(["list", "kernels"]) == 0
    assert "rbf" in capsys.readouterr().out
    assert main(["list", "checks"]) == 0
    out = capsys.readouterr().out
    rows = [line.split() for line in out.splitlines()]
    assert rows[0] == ["check", "kind", "decided", "by", "what", "it", "verifies"] and set(rows[1][0]) == {"-"}
    for name in ("contract", "reproducibility", "unbiasedness", "concentration", "error-rate"):
        assert any(r[:2] == [name, "feature-map"] for r in rows), name


def test_every_sub_command_dispatches_from_the_table():
    import argparse

    from rfverify.cli import COMMANDS, build_parser

    sub = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    assert set(sub.choices) == set(COMMANDS)


def test_check_json_has_one_shape_whatever_the_executor(in_tests_dir, capsys):
    """One target gives one report object, in-process or on a pool (--jobs 2 sends it through the executor); several
    targets give a list."""
    argv = ["check", "feature-map", "tests.mutants.rff_mutants:HalfScale", *RBF, "--check", "unbiasedness",
            "--profile", "quick", "--json", "-"]
    assert main(argv) == 1
    alone = json.loads(capsys.readouterr().out)
    assert main(argv + ["--jobs", "2"]) == 1
    pooled = json.loads(capsys.readouterr().out)
    assert isinstance(alone, dict) and isinstance(pooled, dict)
    assert [(c["check"], c["status"], c.get("p"), c.get("statistic")) for c in pooled["checks"]] == \
        [(c["check"], c["status"], c.get("p"), c.get("statistic")) for c in alone["checks"]]
    code = main(argv[:3] + ["rfverify.implementations.rff:RandomFourierFeatures", *argv[3:]])
    both = json.loads(capsys.readouterr().out)
    assert code == 1, both
    assert isinstance(both, list) and [r["passed"] for r in both] == [False, True]


def test_output_options_are_left_out_of_a_reproduce_command():
    from rfverify.options import without_output_options

    argv = ["check", "feature-map", "m:F", "--json", "r.json", "--report=out", "--quiet", "--kernel", "k:f",
            "--report", "dir", "--debug", "--seed", "3"]
    assert without_output_options(argv) == ["check", "feature-map", "m:F", "--kernel", "k:f", "--seed", "3"]
