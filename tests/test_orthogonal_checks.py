"""The orthogonal kind: correct Haar samplers pass the battery, every planted bug is caught.

Power and false alarms as tests: at the default profile and d in {4, 8, 16, 64} each broken sampler is caught
under the default seed and 4 others (CI) and 16 more (``slow``: 21 in all); each correct sampler passes the whole
battery at d = 4 or 16 (CI) and at both (``slow``); the ``slow`` studies also count catches over 100 seeds (>= 99
required) and passes of the correct samplers over 200 seeds (>= 199 required).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import integrate
from scipy.stats import ortho_group, special_ortho_group

from tests.mutants.broken_orthogonal import BROKEN_SAMPLERS, CAUGHT_BY, CLAIMED_GROUP
from rfverify.cli import main
from rfverify.implementations.orthogonal import haar_householder, haar_qr, haar_qr_so
from rfverify.kinds.orthogonal import KERNEL_NOTE, verify_orthogonal
from rfverify.properties.haar import coordinate_cdf, eigenangle_cdf, expected_trace_moments, pair_angles
from rfverify.kinds import checks_for
from rfverify.seeding import DEFAULT_SEED

SEEDS = [DEFAULT_SEED] + list(range(1, 21))
DIMS = [4, 8, 16, 64]
CORRECT = {
    "haar_qr": (haar_qr, "O"),
    "haar_qr_so": (haar_qr_so, "SO"),
    "haar_householder": (haar_householder, "O"),
    "scipy.ortho_group": (ortho_group, "O"),
    "scipy.special_ortho_group": (special_ortho_group, "SO"),
}


def _caught(report, checks) -> bool:
    return any(report[c].status == "fail" for c in checks)


#: CI judges each correct sampler at one of d = 4 and d = 16 (alternating, so both dimensions and every sampler are
#: judged); the slow set at both.
BATTERY = [(d, name) if (k + (d == 16)) % 2 == 0 else pytest.param(d, name, marks=pytest.mark.slow)
           for d in (4, 16) for k, name in enumerate(CORRECT)]


@pytest.mark.parametrize("d,name", BATTERY)
def test_correct_samplers_pass_whole_battery(name, d):
    impl, group = CORRECT[name]
    report = verify_orthogonal(impl, dim=d, group=group)
    assert report.passed, report.table()
    assert {r.check for r in report.results} == {s.name for s in checks_for("orthogonal")}
    assert report.config["note"] == KERNEL_NOTE  # "is Haar" is not "unbiased ORF kernel": said in every report


def test_reference_qr_passes_at_d64():
    report = verify_orthogonal(haar_qr, dim=64)
    assert report.passed, report.table()


@pytest.mark.parametrize("seed", [s if k < 5 else pytest.param(s, marks=pytest.mark.slow) for k, s in enumerate(SEEDS)])
@pytest.mark.parametrize("d", DIMS)
@pytest.mark.parametrize("name", list(BROKEN_SAMPLERS))
def test_broken_sampler_caught(name, d, seed):
    checks = CAUGHT_BY[name]
    report = verify_orthogonal(BROKEN_SAMPLERS[name], dim=d, group=CLAIMED_GROUP[name], seed=seed, checks=checks)
    assert _caught(report, checks), (f"{name} (claimed {CLAIMED_GROUP[name]}({d})) not caught under seed {seed}: "
                                     + "; ".join(f"{r.check}: {r.status} {r.message}" for r in report.results))


def test_failure_message_is_actionable():
    res = verify_orthogonal(BROKEN_SAMPLERS["qr_without_sign_correction"], dim=8,
                            checks=["haar-entries"])["haar-entries"]
    assert res.status == "fail" and "Q[1,1]" in res.message and "P(>0) = 0.000" in res.message
    assert res.reproduce.startswith("rfverify check orthogonal tests.mutants.broken_orthogonal:qr_without_sign_correction --dim 8")
    assert f"--seed {DEFAULT_SEED}" in res.reproduce and "--check haar-entries" in res.reproduce
    det = verify_orthogonal(BROKEN_SAMPLERS["so_claimed_as_o"], dim=8, checks=["haar-determinant"])["haar-determinant"]
    assert det.status == "fail" and "SO(d) while O(d) is claimed" in det.message


def test_o_sampler_claimed_so_fails_determinant():
    res = verify_orthogonal(haar_qr, dim=5, group="SO", checks=["haar-determinant"])["haar-determinant"]
    assert res.status == "fail" and "claims SO(5)" in res.message


def test_float32_sampler_judged_at_float32_precision():
    f32 = lambda d, rng: haar_qr(d, rng, dtype=np.float32)  # noqa: E731
    assert verify_orthogonal(f32, dim=64, checks=["orthogonality"])["orthogonality"].status == "pass"
    # the same float32-accurate matrix returned as float64 is judged at float64 precision
    f32_as_64 = lambda d, rng: haar_qr(d, rng, dtype=np.float32).astype(np.float64)  # noqa: E731
    assert verify_orthogonal(f32_as_64, dim=64, checks=["orthogonality"])["orthogonality"].status == "fail"


@pytest.mark.parametrize("bad,needle", [
    (lambda d, rng: np.eye(d + 1), "shape"),
    (lambda d, rng: np.full((d, d), np.nan), "non-finite"),
    (lambda d, rng: 1 / 0, "ZeroDivisionError"),
])
def test_broken_plugins_give_one_line_errors(bad, needle):
    report = verify_orthogonal(bad, dim=4)
    assert report.exit_code == 2
    assert all(r.status == "error" for r in report.results)
    msg = report.results[0].message
    assert needle in msg and "\n" not in msg


def test_cli_check_orthogonal(capsys, tmp_path):
    assert main(["check", "orthogonal", "rfverify.implementations.orthogonal:haar_qr", "--dim", "4",
                 "--profile", "quick"]) == 0
    assert "PASSED" in capsys.readouterr().out
    js = tmp_path / "r.json"
    assert main(["check", "orthogonal", "tests.mutants.broken_orthogonal:so_claimed_as_o", "--dim", "4", "--profile",
                 "quick", "--json", str(js)]) == 1  # caught at quick too: det = +1 in 100 of 100 draws
    assert '"kind": "orthogonal"' in js.read_text()
    assert main(["check", "orthogonal", "scipy.stats:special_ortho_group", "--dim", "4", "--group", "SO",
                 "--check", "haar-determinant"]) == 0
    assert main(["check", "orthogonal", "rfverify.implementations.orthogonal:haar_qr", "--dim", "0"]) == 2
    assert "dim must be" in capsys.readouterr().err


# ---------------------------------------------------------------------------
# the reference laws the battery uses
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("d", [2, 3, 4, 5, 8, 9])
@pytest.mark.parametrize("det", [1, -1])
def test_eigenangle_cdf_is_a_cdf_with_the_weyl_density(d, det):
    if det < 0 and d == 2:
        pytest.skip(reason="O-(2) has no conjugate pair")
    th = np.linspace(0, math.pi, 401)
    F = eigenangle_cdf(th, d, det)
    assert abs(F[0]) < 1e-12 and abs(F[-1] - 1) < 1e-12 and np.all(np.diff(F) >= -1e-12)


def test_eigenangle_cdf_special_cases():
    # SO(2): uniform; SO(3): (1 - cos t)/pi; O-(4) ~ USp(2): (2/pi) sin^2 t
    t = 1.1
    assert eigenangle_cdf(np.array([t]), 2, 1)[0] == pytest.approx(t / math.pi)
    assert eigenangle_cdf(np.array([t]), 3, 1)[0] == pytest.approx((t - math.sin(t)) / math.pi)
    ref = integrate.quad(lambda x: 2 / math.pi * math.sin(x) ** 2, 0, t)[0]
    assert eigenangle_cdf(np.array([t]), 4, -1)[0] == pytest.approx(ref)


def test_pair_angles_and_coordinate_cdf():
    Q = haar_qr(5, 1)
    s = 1 if np.linalg.det(Q) > 0 else -1
    assert len(pair_angles(Q, s)) == 2
    assert coordinate_cdf(np.array([0.0]), 7)[0] == pytest.approx(0.5)
    assert coordinate_cdf(np.array([1.0]), 7)[0] == pytest.approx(1.0)
    assert expected_trace_moments(2, "SO").tolist() == [0.0, 2.0, 0.0]


# ---------------------------------------------------------------------------
# slow studies: power over 100 seeds, false alarms over 200 seeds
# ---------------------------------------------------------------------------
@pytest.mark.slow
@pytest.mark.parametrize("d", DIMS)
@pytest.mark.parametrize("name", list(BROKEN_SAMPLERS))
def test_power_study_100_seeds(name, d):
    checks = CAUGHT_BY[name]
    caught = sum(_caught(verify_orthogonal(BROKEN_SAMPLERS[name], dim=d, group=CLAIMED_GROUP[name], seed=s,
                                           checks=checks), checks) for s in range(1000, 1100))
    assert caught >= 99, f"{name} at d={d}: caught in {caught} of 100 seeds"


@pytest.mark.slow
@pytest.mark.parametrize("d", DIMS)
@pytest.mark.parametrize("name", list(CORRECT))
def test_false_alarm_study_200_seeds(name, d):
    impl, group = CORRECT[name]
    passed = sum(verify_orthogonal(impl, dim=d, group=group, seed=s).passed for s in range(2000, 2200))
    assert passed >= 199, f"{name} at d={d}: passed in {passed} of 200 seeds"
