"""The decision rules pinned directly: each test here kills a mutation of the code that decides a
verdict which the rest of the suite let survive.

Each test names the mutation it kills (``Kills:``); every one was checked to FAIL with that mutation applied
by hand and to pass without it.  ``.ci/mutation.py`` (see docs/mutation-testing.md) finds such
survivors mechanically; ``tests/mutation_equivalents.json`` lists the mutants that cannot be killed because
they do not change behaviour.

Statistical tests here state their false-alarm rate; all are seeded, none is flaky by construction.
"""

from __future__ import annotations

import dataclasses
import math
import types

import numpy as np
import pytest
from scipy import stats as st

from rfverify import stats, verify
from rfverify.implementations.orf import OrthogonalRandomFeatures
from rfverify.implementations.orthogonal import haar_qr, haar_qr_so
from rfverify.implementations.quadrature import antithetic, sr11_haar
from rfverify.implementations.rff import RandomFourierFeatures
from rfverify.implementations.structured import fwht
from rfverify.kinds import statistical_count
from rfverify.kinds.orthogonal import verify_orthogonal
from rfverify.kinds.quadrature import verify_quadrature
from rfverify.kinds.transform import verify_transform
from rfverify.profiles import PROFILES


# ---------------------------------------------------------------- quadrature: the top claimed degree

@pytest.mark.parametrize("rule, exact_to", [(antithetic, 1), (sr11_haar, 1)])
def test_exactness_judges_the_top_claimed_degree(rule, exact_to):
    """A rule exact to degree 1 that claims degree 2 fails at degree 2 (and passes claiming 1).

    Kills: ``q <= P_claim`` -> ``q < P_claim`` in ``check_exactness`` (the claimed top degree never judged).
    """
    over = verify_quadrature(rule, dim=6, degree=exact_to + 1, profile="quick", checks=["exactness"])["exactness"]
    assert over.status == "fail", over.message
    assert f"not exact at degree {exact_to + 1}" in over.message
    assert over.details["observed_exact_to"] == exact_to
    honest = verify_quadrature(rule, dim=6, degree=exact_to, profile="quick", checks=["exactness"])["exactness"]
    assert honest.status == "pass", honest.message


# ---------------------------------------------------------------- Haar battery: odd d, the O- coset

@pytest.mark.parametrize("d", [3, 5, 9])
def test_correct_o_sampler_passes_eigenangles_at_odd_d(d):
    """Haar on O(d) at odd d: half the draws lie in O-(d) = -SO(d), whose eigenangle law is SO(d)'s reflected.

    False alarm: alpha of the check (1e-3 / 6 at the default profile) per d.
    Kills: the SO(d) eigenangle CDF used for O-(d) at odd d (fails all three d).
    """
    r = verify_orthogonal(haar_qr, dim=d, group="O", checks=["haar-eigenangles"])["haar-eigenangles"]
    assert r.status == "pass", r.message


def _det_minus_only(d, rng):
    """Haar on the coset O-(d) only: every draw has det = -1 (a sampler that always flips a column)."""
    Q = haar_qr_so(d, rng)
    Q[:, 0] = -Q[:, 0]
    return Q


def _det_plus_only(d, rng):
    return haar_qr_so(d, rng)


@pytest.mark.parametrize("sampler", [_det_minus_only, _det_plus_only])
def test_determinant_test_is_two_sided(sampler):
    """A sampler claiming O(d) whose draws all have det = -1 fails, as one whose draws all have det = +1 does.

    Kills: a one-sided binomial test of #{det > 0} (``alternative="greater"``), under which "always -1" passes.
    """
    r = verify_orthogonal(sampler, dim=4, group="O", profile="quick", checks=["haar-determinant"])["haar-determinant"]
    assert r.status == "fail", r.message
    assert r.pvalue is not None and r.pvalue < r.threshold


def test_correct_sampler_passes_determinant_test_at_odd_d():
    r = verify_orthogonal(haar_qr, dim=5, group="O", profile="quick", checks=["haar-determinant"])["haar-determinant"]
    assert r.status == "pass", r.message


# ---------------------------------------------------------------- two looks: the factor 2 (stubbed p-values)

def _two_looks_ctx(alpha):
    pilot, full = np.zeros((3, 2, 2)), np.zeros((7, 2, 2))
    return types.SimpleNamespace(alpha=alpha, pilot=lambda: pilot, sample=lambda: full)


@pytest.mark.parametrize("p_pilot, p_full, reject, reported, used", [
    (0.004, None, True, 0.008, 3),     # the pilot decides at alpha/2; reported p doubled
    (0.006, 0.004, True, 0.008, 7),    # pilot above alpha/2, whole sample below it
    (0.006, 0.006, False, 0.012, 7),   # between alpha/2 and alpha in both looks: no rejection
    (0.7, 0.9, False, 1.0, 7),         # min(1, 2p)
])
def test_two_looks_bonferroni_over_the_looks(p_pilot, p_full, reject, reported, used):
    """Each look is at alpha/2 and the reported p-value is min(1, 2 p) of the look that decided (alpha = 0.01).

    Kills: each look at alpha (false alarms up to 2 x the check's share), the factor 2 dropped from the
    reported p-value, a missing cap at 1, the whole sample's look skipped or always taken.
    """
    from rfverify.properties.haar import two_looks

    ps = iter([p_pilot, p_full])

    def test(sample):
        return next(ps), "summary", {"n": len(sample)}

    got_reject, p, _, details, n = two_looks(_two_looks_ctx(0.01), test)
    assert (got_reject, n) == (reject, used)
    assert p == pytest.approx(reported)
    assert details["stopped_after_pilot"] is (used == 3)


def _stub_mean_test(monkeypatch, p_over_alpha):
    """Replace unbiasedness' mean_test by the real one with every adjusted p-value set to p_over_alpha x alpha."""
    import rfverify.properties.unbiasedness as U

    real = U.mean_test

    def stub(samples, expected, alpha, **kw):
        r = real(samples, expected, alpha, **kw)
        # the check calls mean_test at alpha / 2 (one look): alpha here is look_alpha
        return dataclasses.replace(r, p_adjusted=np.full_like(r.p_adjusted, p_over_alpha * 2 * alpha))

    monkeypatch.setattr(U, "mean_test", stub)


@pytest.mark.parametrize("p_over_alpha, status", [(0.75, "pass"), (0.4, "fail")])
def test_unbiasedness_two_look_factor_two(monkeypatch, p_over_alpha, status):
    """Stubbed p-values: an adjusted p of 0.75 alpha passes (2p = 1.5 alpha), 0.4 alpha fails (2p = 0.8 alpha).

    Kills: ``p_min = 2 * min(p_adjusted)`` -> ``min(p_adjusted)`` (false alarms up to twice the check's share).
    """
    _stub_mean_test(monkeypatch, p_over_alpha)
    r = verify(RandomFourierFeatures, profile="quick", checks=["unbiasedness"])["unbiasedness"]
    assert r.status == status, r.message
    assert r.pvalue == pytest.approx(min(1.0, 2 * p_over_alpha * r.threshold))


# ---------------------------------------------------------------- sample size: alpha / pairs, stated power

def test_unbiasedness_sample_size_uses_the_per_pair_level(monkeypatch, tmp_path):
    """R comes from required_trials at the per-pair, per-look level alpha / (2 P), at the profile's power.

    Kills: ``alpha_pair = look_alpha / P`` -> ``look_alpha`` (power 0.945 reported as 0.99), and the power or
    the look's halving dropped from the sample-size call.
    """
    import rfverify.properties.unbiasedness as U

    log = tmp_path / "calls"  # the check runs in a supervised (forked) child: it reports through a file
    real = U.required_trials

    def spy(sigma, delta, alpha, power):
        with open(log, "a") as fh:
            fh.write(repr((sigma, delta, alpha, power)) + "\n")
        return real(sigma, delta, alpha, power)

    monkeypatch.setattr(U, "required_trials", spy)
    prof = PROFILES["quick"]
    r = verify(RandomFourierFeatures, profile=prof, checks=["unbiasedness"])["unbiasedness"]
    assert r.status == "pass", r.message
    (sigma, delta, alpha, power), = [eval(line) for line in log.read_text().splitlines()]
    P = len(r.details["labels"])
    assert P == 24
    assert alpha == pytest.approx(prof.family_alpha / statistical_count("feature-map") / 2 / P)
    assert power == prof.power and delta == pytest.approx(r.details["target_bias"])
    R = min(max(real(sigma, delta, alpha, power), prof.pilot_trials), prof.max_trials)
    assert r.details["trials"] == R
    assert r.details["detectable_bias"] == pytest.approx(stats.detectable_effect(sigma, R, alpha, power))


def _t_test_power(n, shift_over_sd, alpha):
    """Exact power of the two-sided one-sample t-test: noncentral t by adaptive quadrature over the chi-square
    density (a second method, independent of the Gauss-Legendre rule in rfverify.stats)."""
    from scipy import integrate

    df = n - 1
    c = st.t.isf(alpha / 2, df)
    nc = shift_over_sd * math.sqrt(n)

    def g(v):
        s = math.sqrt(v / df)
        return (st.norm.sf(c * s - nc) + st.norm.cdf(-c * s - nc)) * st.chi2.pdf(v, df)

    lo, hi = st.chi2.ppf(1e-13, df), st.chi2.isf(1e-13, df)
    return integrate.quad(g, lo, hi, points=[df], limit=200, epsabs=1e-9)[0]


@pytest.mark.parametrize("profile", list(PROFILES))
@pytest.mark.parametrize("sd_over_shift", [0.5, 1.0, 2.0, 5.0])
def test_required_trials_reaches_the_stated_power_at_the_checks_level(profile, sd_over_shift):
    """The t-test with required_trials(sigma, delta, alpha/(2P), power) replicates has power >= the stated one.

    At the unbiasedness check's per-pair level (P = 24 pairs, two looks) for every profile, by the exact
    noncentral-t power.  Kills: the normal approximation (power 0.68 instead of 0.90 at quick with
    sigma = delta), a z quantile at alpha instead of alpha/2, a dropped power quantile.
    """
    prof = PROFILES[profile]
    alpha = prof.family_alpha / statistical_count("feature-map") / 2 / 24
    n = stats.required_trials(sd_over_shift, 1.0, alpha, prof.power)
    assert _t_test_power(n, 1.0 / sd_over_shift, alpha) >= prof.power - 1e-6
    if n > 2:  # and it is the smallest such n
        assert _t_test_power(n - 1, 1.0 / sd_over_shift, alpha) < prof.power
    assert stats.detectable_effect(sd_over_shift, n, alpha, prof.power) <= 1.0 + 1e-9


# ---------------------------------------------------------------- simultaneous intervals over the pairs

def test_mean_test_intervals_are_simultaneous_over_the_columns():
    """Half-widths are t_{R-1}(alpha / 2P) sd / sqrt(R), and all P intervals cover together >= 1 - alpha.

    4000 null replications of R = 40 rows, P = 24 columns, alpha = 0.05: the number of replications in which
    some interval misses must be consistent with <= alpha (its 99.9% Clopper-Pearson interval reaches down to
    alpha; false-alarm rate of this test <= 5e-4).  Per-column intervals would miss in ~71% of replications.
    Kills: the critical value at alpha/2 (per pair) instead of alpha/(2P).
    """
    rng = np.random.default_rng(22)
    R, P, alpha, reps = 40, 24, 0.05, 4000
    x = rng.standard_normal((R, P))
    t = stats.mean_test(x, np.zeros(P), alpha)
    se = x.std(axis=0, ddof=1) / math.sqrt(R)
    np.testing.assert_allclose(t.half_width, st.t.isf(alpha / (2 * P), R - 1) * se, rtol=1e-12)
    crit = float(t.half_width[0] / se[0])  # the test's own critical value, applied to every replication
    y = rng.standard_normal((reps, R, P))
    misses = int(np.sum(np.any(np.abs(y.mean(axis=1)) > crit * y.std(axis=1, ddof=1) / math.sqrt(R), axis=1)))
    lo, _ = stats.clopper_pearson(misses, reps, 0.999)
    assert lo <= alpha, (misses, reps)


# ---------------------------------------------------------------- float32 through the deterministic checks

def test_float32_orf_passes_the_deterministic_feature_map_checks():
    """Our ORF with dtype=float32 passes contract and reproducibility: judged at float32 round-off.

    Kills: a float64 tolerance for every dtype in ``contract_tolerance`` (the float32 map then fails falsely:
    its recomputation error ~6e-8 is far above a float64 bound ~1e-12).
    """
    rep = verify(OrthogonalRandomFeatures(dtype=np.float32), profile="quick", checks=["contract", "reproducibility"])
    assert rep.passed, rep.table()
    c = rep["contract"]
    assert c.details["dtype"] == "float32"
    assert c.threshold > 1e3 * 64 * np.finfo(np.float64).eps  # a float32-sized bound


def test_float32_kernel_passes_the_deterministic_kernel_checks():
    """A float32 RBF kernel passes symmetry, PSD and normalisation (judged at float32 round-off)."""
    from rfverify.kinds.kernel import verify_kernel
    from tests.mutants import kernel_mutants as KM

    rep = verify_kernel(KM.rbf_float32, normalized=True, profile="quick",
                        checks=["kernel-symmetry", "kernel-psd", "kernel-normalisation"])
    assert rep.passed, rep.table()


def test_float32_sampler_passes_orthogonality():
    rep = verify_orthogonal(lambda d, rng: haar_qr(d, rng, dtype=np.float32), dim=16, profile="quick",
                            checks=["orthogonality"])
    assert rep.passed, rep.table()


# ---------------------------------------------------------------- transform exactness at the input dtype

def fwht_silently_downcast(X):
    """Computes in float32 and returns float32 whatever the input: a float64 caller loses 9 digits."""
    return fwht(np.asarray(X, dtype=np.float32), backend="numpy")  # numpy backend: no JIT compile in the test


def test_transform_exactness_tolerance_is_the_inputs_dtype():
    """A transform that silently down-casts float64 input to float32 output fails exactness.

    Kills: the tolerance taken at the output dtype (``op.tolerance(X, Y.dtype)``), which admits float32
    errors for a float64 caller; only linearity flagged it then.
    """
    r = verify_transform(fwht_silently_downcast, dim=64, profile="quick",
                         checks=["transform-exactness"])["transform-exactness"]
    assert r.status == "fail", r.message
    assert "float64 input, float32 output" in r.message
    ok = verify_transform(lambda X: fwht(X, backend="numpy"), dim=64, profile="quick", checks=["transform-exactness"])["transform-exactness"]
    assert ok.status == "pass", ok.message


# ---------------------------------------------------------------- exit codes: the worst entry wins

def _report(name, status):
    from rfverify.results import CheckResult, Report

    res = (CheckResult(check="contract", implementation=name, status=status, message=status, seed=1,
                       reproduce="rfverify check feature-map x:y"),)
    return Report(implementation=name, kind="feature-map", target={}, seed=1, profile="quick", config={},
                  results=res, version="0")


@pytest.mark.parametrize("statuses, code", [
    (("pass", "fail", "pass"), 1), (("fail", "pass"), 1), (("pass", "error", "fail"), 2), (("pass", "pass"), 0),
])
def test_report_exit_code_is_the_worst_entry(monkeypatch, tmp_path, capsys, statuses, code):
    """``rfverify report --only A --only B ...`` exits with the worst entry's code (stubbed entries).

    Kills: min() for max() over the entries (one failing entry -> exit 0: ``report --all`` in CI would hide
    a regression), and the exit code taken from the first or the last entry.
    """
    import rfverify.cli as cli
    import rfverify.report.writing as W
    from rfverify.progress import Progress

    names = [e.name for e in __import__("rfverify.studies.zoo", fromlist=["ZOO"]).ZOO][:len(statuses)]
    reports = [(n, _report(n, s)) for n, s in zip(names, statuses)]
    monkeypatch.setattr(cli, "_zoo_reports", lambda entries, seed, args: (reports, {}, Progress(len(reports))))
    monkeypatch.setattr(W, "write_reports", lambda *a, **k: [])
    argv = ["report", *[x for n in names for x in ("--only", n)], "--out", str(tmp_path)]
    assert cli.main(argv) == code
    capsys.readouterr()


def test_check_several_targets_exits_with_the_worst(capsys):
    """``rfverify check feature-map GOOD BAD GOOD2`` exits 1 (contract only: cheap)."""
    from rfverify.cli import main

    good = "rfverify.implementations.rff:RandomFourierFeatures"
    good2 = "rfverify.implementations.orf:OrthogonalRandomFeatures"
    bad = "tests.mutants.rff_mutants:FreshDrawPerTransform"
    assert main(["check", "feature-map", good, bad, good2, "--check", "contract", "--profile", "quick"]) == 1
    assert main(["check", "feature-map", bad, good, "--check", "contract", "--profile", "quick"]) == 1
    assert main(["check", "feature-map", good, good2, "--check", "contract", "--profile", "quick"]) == 0
    capsys.readouterr()


# ---------------------------------------------------------------- verdicts do not depend on the name

def _numbers(report):
    return [(r.check, r.status, r.statistic, r.pvalue) for r in report.results]


def test_feature_map_verdicts_identical_under_renamed_implementation():
    """The same map under two names gives identical statuses, statistics and p-values (common random numbers).

    Kills: the implementation's name added to a check's seed key.
    """
    checks = ["unbiasedness", "concentration", "contract"]
    a = verify(RandomFourierFeatures, profile="quick", checks=checks, name="alpha")
    b = verify(RandomFourierFeatures, profile="quick", checks=checks, name="a-renamed-copy")
    assert _numbers(a) == _numbers(b)
    assert {r.implementation for r in a.results} != {r.implementation for r in b.results}


def test_orthogonal_and_quadrature_verdicts_identical_under_renamed_implementation():
    checks = ["haar-determinant", "haar-entries", "haar-eigenangles"]  # the shared sample and a check's own stream
    a = verify_orthogonal(haar_qr, dim=4, profile="quick", checks=checks, name="one")
    b = verify_orthogonal(haar_qr, dim=4, profile="quick", checks=checks, name="two")
    assert _numbers(a) == _numbers(b)
    qa = verify_quadrature(antithetic, dim=4, degree=1, profile="quick", checks=["rule-unbiasedness"], name="one")
    qb = verify_quadrature(antithetic, dim=4, degree=1, profile="quick", checks=["rule-unbiasedness"], name="two")
    assert _numbers(qa) == _numbers(qb)
