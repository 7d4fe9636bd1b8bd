"""The transform kind: the FWHT passes, planted transform bugs are caught, broken plug-ins error cleanly."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from scipy.linalg import hadamard

from rfverify.cli import main
from rfverify.implementations import structured as S
from rfverify.implementations.structured import fwht
from rfverify.properties.transform_exactness import exactness_violation
from rfverify.kinds import checks_for
from rfverify.kinds.transform import verify_transform
from tests.mutants.transform_mutants import (broken_axis0, broken_mutates_input, broken_pads, broken_sequency,
                                             broken_skip_last_stage, broken_wrong_axis, broken_wrong_normalisation)

BACKENDS = ["numpy"] + (["numba"] if S.numba_available() else [])
D = 64


#: planted bug -> (declared matrix, the check that must catch it)
MUTANTS = {
    broken_sequency: ("hadamard", "transform-exactness"),
    broken_skip_last_stage: ("hadamard", "transform-exactness"),
    broken_wrong_axis: ("hadamard", "transform-exactness"),
    broken_axis0: ("hadamard", "transform-exactness"),
    broken_wrong_normalisation: ("hadamard-normalized", "transform-exactness"),
    fwht: ("hadamard-normalized", "transform-exactness"),  # unnormalised, claimed normalised
    broken_mutates_input: ("hadamard", "transform-input"),
    broken_pads: ("hadamard", "transform-dimension"),
}


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("normalized", [False, True])
def test_fwht_passes_every_check(backend, normalized):
    report = verify_transform(lambda X: fwht(X, normalized=normalized, backend=backend), dim=D,
                              matrix="hadamard-normalized" if normalized else "hadamard")
    assert report.passed, report.table()
    assert {r.check for r in report.results} == {s.name for s in checks_for("transform")}


def test_inplace_declared_transform_passes_input_check():
    report = verify_transform(broken_mutates_input, dim=D, inplace=True, checks=["transform-input"])
    assert report.passed, report.table()


@pytest.mark.parametrize("mutant", list(MUTANTS), ids=lambda f: f.__name__)
def test_planted_transform_bug_caught(mutant):
    matrix, check = MUTANTS[mutant]
    res = verify_transform(mutant, dim=D, matrix=matrix, checks=[check])[check]
    assert res.status == "fail", f"{mutant.__name__} not caught by {check}: {res.message}"


def test_messages_diagnose_normalisation_and_order():
    res = verify_transform(fwht, dim=D, matrix="hadamard-normalized", checks=["transform-exactness"])
    assert "8 x X @ M.T everywhere" in res["transform-exactness"].message
    res = verify_transform(broken_sequency, dim=D, checks=["transform-exactness"])
    assert "sequency" in res["transform-exactness"].message


@settings(max_examples=25, deadline=None)
@given(n=st.integers(1, 40), dtype=st.sampled_from([np.float32, np.float64]), backend=st.sampled_from(BACKENDS),
       normalized=st.booleans(), log2d=st.integers(0, 8))
def test_exactness_comparator_over_n_dtype_and_d(n, dtype, backend, normalized, log2d):
    d = 1 << log2d
    X = np.random.default_rng(n * 31 + log2d).standard_normal((n, d)).astype(dtype)
    M = hadamard(d) / (np.sqrt(d) if normalized else 1.0)
    ratio, msg = exactness_violation(fwht(X, normalized=normalized, backend=backend), X, M)
    assert msg is None, msg
    bad_ratio, bad = exactness_violation(fwht(X, normalized=not normalized, backend=backend), X, M)
    assert d == 1 or bad is not None


def test_user_matrix_callable_and_array():
    def M(d):
        return S.Butterfly(d, rng=0).matrix()

    bf = S.Butterfly(16, rng=0)
    report = verify_transform(bf.apply, dim=16, matrix=M)
    assert report.passed, report.table()


@pytest.mark.parametrize("bad,needle", [
    (lambda X: X[:, :-1], "shape"),
    (lambda X: X * np.nan, "non-finite"),
    (lambda X: 1 / 0, "ZeroDivisionError"),
])
def test_broken_transform_plugins_error(bad, needle):
    report = verify_transform(bad, dim=D)
    assert report.exit_code == 2
    msg = report.results[0].message
    assert needle in msg and "\n" not in msg


def test_cli_check_transform(capsys):
    assert main(["check", "transform", "rfverify.implementations.structured:fwht", "--dim", "64"]) == 0
    assert main(["check", "transform", "rfverify.implementations.structured:fwht", "--dim", "64",
                 "--matrix", "hadamard-normalized"]) == 1
    assert "normalisation not as claimed" in capsys.readouterr().out
    assert main(["check", "transform", "rfverify.implementations.structured:fwht_normalized", "--dim", "64",
                 "--matrix", "hadamard-normalized"]) == 0
    assert main(["check", "transform", "rfverify.implementations.structured:fwht", "--dim", "48"]) == 2
    assert "not defined at d=48" in capsys.readouterr().err


def test_cli_bench_prints_table(monkeypatch, capsys):
    import rfverify.studies.bench as bench

    row = bench._row("fwht numpy", 1024, np.float64, 4, 1e-3, 4 * 1024 * 10, "dense X @ H (BLAS)", 2e-2)
    monkeypatch.setattr(bench, "run_structured_benchmarks", lambda quick=False, progress=None: [row])
    assert main(["bench", "--quick"]) == 0
    out = capsys.readouterr().out
    assert "fwht numpy" in out and "20.00" in out
