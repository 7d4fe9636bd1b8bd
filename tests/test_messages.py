"""The one failure-message helper (rfverify.messages, BaseContext.fail) and its use by every check.

* the helper renders headline, observed vs expected with the interval and its level, where, and the
  likely cause, in that order, and refuses a message without observed or expected;
* no property module builds a failing result by hand (an ast walk: every ``fail``/``xfail`` goes
  through ``ctx.fail``);
* every failing path of every check, on a planted broken implementation, gives a message with
  ``observed:`` and ``expected:``, and ``explain()`` names the implementation, the check and the
  reproduce command; a registered check without a planted bug here is an error (or is listed in
  ``NEVER_FAILS`` with the reason).
"""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Any, Callable

import numpy as np
import pytest

import rfverify
from rfverify.kinds import KINDS, checks_for
from rfverify.messages import LABELS, Finding, failure_message, format_interval

PROPERTIES = Path(__file__).resolve().parent.parent / "properties"


# ------------------------------------------------------------------ the helper
def test_single_finding_renders_every_part_in_order():
    msg = failure_message("biased", "mean 0.5036", "the exact kernel 1", interval=(0.4835, 0.5237), level=0.9995,
                          evidence="p = 1.8e-40", where="pair 0 (equal)", cause="a scale error", note="20 of 24")
    assert msg == ("biased — observed: mean 0.5036 [0.4835, 0.5237] (99.95% interval; p = 1.8e-40); "
                   "expected: the exact kernel 1; where: pair 0 (equal); likely cause: a scale error; 20 of 24")
    positions = [msg.index(label) for label in LABELS]
    assert positions == sorted(positions)


def test_optional_parts_are_left_out_and_leading_separators_dropped():
    assert failure_message("not orthogonal", "max|Q^T Q - I| = 0.9", "<= 1e-13") == \
        "not orthogonal — observed: max|Q^T Q - I| = 0.9; expected: <= 1e-13"
    assert failure_message("x", "a", "b", evidence="p = 0", cause="; the estimate is 0.5 x the kernel") == \
        "x — observed: a (p = 0); expected: b; likely cause: the estimate is 0.5 x the kernel"


def test_several_findings_are_numbered_and_shared_where_and_cause_follow():
    msg = failure_message("breaks the contract", findings=[Finding("o1", "e1", cause="c1"), Finding("o2", "e2")],
                          where="n = 48", cause="shared")
    assert msg == ("breaks the contract — 2 problems: (1) observed: o1; expected: e1; likely cause: c1 "
                   "(2) observed: o2; expected: e2; where: n = 48; likely cause: shared")
    one = failure_message("h", findings=[Finding("o", "e", where="row 3")], where="n = 48", cause="c")
    assert one == "h — observed: o; expected: e; where: row 3; n = 48; likely cause: c"


def test_interval_level_is_a_percentage():
    assert format_interval((-0.5165, -0.4763), 0.9998333) == "[-0.5165, -0.4763] (99.9833% interval)"
    assert format_interval((0.0, float("inf")), 0.95) == "[0, inf] (95% interval)"


@pytest.mark.parametrize("kwargs, needle", [
    (dict(headline="", observed="a", expected="b"), "headline"),
    (dict(headline="h", observed="a"), "both observed and expected"),
    (dict(headline="h", observed="a", expected=" "), "non-empty expected"),
    (dict(headline="h"), "observed and expected"),
    (dict(headline="h", observed="a", expected="b", interval=(0, 1)), "together with its level"),
    (dict(headline="h", observed="a", expected="b", interval=(0, 1), level=95), r"confidence in \(0, 1\)"),
    (dict(headline="h", observed="a", expected="b", findings=[Finding("o", "e")]), "not both"),
    (dict(headline="h", findings=[Finding("o", "e")], level=0.9), "single finding"),
])
def test_bad_input_is_a_one_line_error(kwargs, needle):
    with pytest.raises(ValueError, match=needle) as info:
        failure_message(**kwargs)
    assert "\n" not in str(info.value)


def test_context_fail_keeps_every_number_and_only_makes_failures():
    from rfverify.registry import BaseContext

    class Ctx(BaseContext):
        name = "impl"

    from rfverify.profiles import get_profile
    from rfverify.seeding import SeedSource

    ctx = Ctx("some-check", get_profile("quick"), SeedSource(1), 1e-3, "rfverify check x --check some-check", None)
    res = ctx.fail("broken", "3", "<= 1", statistic=3.0, pvalue=1e-9, threshold=1e-3, details={"k": 1})
    assert (res.status, res.statistic, res.pvalue, res.threshold, res.alpha, dict(res.details)) == \
        ("fail", 3.0, 1e-9, 1e-3, 1e-3, {"k": 1})
    assert res.message == "broken — observed: 3; expected: <= 1"
    assert res.explain().splitlines()[-1] == "  reproduce: rfverify check x --check some-check"
    xf = ctx.fail("broken", "3", "<= 1", status="xfail", prefix="expected finding (declared): ")
    assert xf.status == "xfail" and xf.message.startswith("expected finding (declared): broken — observed: 3")
    with pytest.raises(ValueError, match="failing result"):
        ctx.fail("broken", "3", "<= 1", status="pass")


def test_no_property_builds_a_failing_result_by_hand():
    """Every ``fail``/``xfail`` in properties/ goes through ``ctx.fail`` (so through the one helper)."""
    offenders = []
    for path in sorted(PROPERTIES.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.Call):
                continue
            func = node.func
            args = [a for a in node.args if isinstance(a, ast.Constant)]
            kw = [k.value for k in node.keywords if k.arg == "status" and isinstance(k.value, ast.Constant)]
            statuses = {c.value for c in args[:1] + kw if isinstance(c.value, str)}
            named = getattr(func, "attr", getattr(func, "id", ""))
            if statuses & {"fail", "xfail"} and named != "fail":
                offenders.append(f"{path.name}:{node.lineno} {named}(...{sorted(statuses)}...)")
    assert not offenders, "build failing results with ctx.fail(...): " + "; ".join(offenders)


# ------------------------------------------------------------------ every check's failing message
GAMMA = 0.5
C_RFF = float(np.sqrt(2.0))


def _rule_ignores_rng(d, rng=None):
    """Four Gaussian points from a hard-coded seed: the rule ignores the rng it is given."""
    return np.random.default_rng(0).standard_normal((4, d)), np.full(4, 0.25)


def _rule_hidden_entropy(d, rng=None):
    """Four Gaussian points from fresh OS entropy: a hidden source of randomness."""
    return np.random.default_rng().standard_normal((4, d)), np.full(4, 0.25)


def _fwht_silent_refusal(X):
    """Refuses widths that are not powers of two, but with an empty message."""
    from rfverify.implementations.structured import fwht

    X = np.asarray(X)
    if X.shape[1] & (X.shape[1] - 1):
        raise ValueError()
    return fwht(X)


def _fwht_over_norm(X):
    """Divides by the batch's norm: a data-dependent scaling, so not linear."""
    from rfverify.implementations.structured import fwht

    X = np.asarray(X)
    return fwht(X) / (1.0 + float(np.linalg.norm(X)))


def _fm(impl: str, check: str, **kw: Any) -> Any:
    """A feature map of tests/mutants/rff_mutants.py (or the reference RFF) at the quick profile."""
    from tests.mutants import rff_mutants
    from rfverify.implementations.rff import RandomFourierFeatures

    target = RandomFourierFeatures if impl == "RandomFourierFeatures" else getattr(rff_mutants, impl)
    opts = {"kernel_params": {"gamma": GAMMA}, "bound": C_RFF, "profile": "quick", **kw}
    return rfverify.verify(target, checks=[check], **opts)[check]


def _stateful_case(impl: str) -> Any:
    """A planted stateful defect of tests/mutants/stateful_mutants.py at the default profile (quick runs too few
    sequences to reach every one)."""
    return rfverify.verify(f"tests.mutants.stateful_mutants:{impl}", kernel_params={"gamma": GAMMA},
                           checks=["stateful"], metrics=False)["stateful"]


def _haar_screen_case(impl: str) -> Any:
    from rfverify.kinds.orthogonal import verify_orthogonal

    return verify_orthogonal(f"tests.mutants.stateful_mutants:{impl}", dim=16, checks=["haar-screen"])["haar-screen"]


def _adapted(check: str) -> Any:
    from tests.test_adapted import RBF, ascent_uab

    return rfverify.verify(ascent_uab, profile="quick", checks=[check], **RBF)[check]


def _orth(name: str, check: str, d: int = 8, group: str | None = None) -> Any:
    from tests.mutants.broken_orthogonal import BROKEN_SAMPLERS, CLAIMED_GROUP
    from rfverify.implementations.orthogonal import haar_qr
    from rfverify.kinds.orthogonal import verify_orthogonal

    impl = haar_qr if name == "haar_qr" else BROKEN_SAMPLERS[name]
    return verify_orthogonal(impl, dim=d, group=group or CLAIMED_GROUP[name], checks=[check])[check]


def _tr(impl: Any, check: str, matrix: str = "hadamard") -> Any:
    from tests.mutants import transform_mutants as test_transform_checks
    from rfverify.kinds.transform import verify_transform

    target = getattr(test_transform_checks, impl) if isinstance(impl, str) else impl
    return verify_transform(target, dim=64, matrix=matrix, checks=[check])[check]


def _qu(rule: Any, check: str, degree: int = 3) -> Any:
    from tests.mutants import quadrature_mutants as qm
    from rfverify.kinds.quadrature import verify_quadrature

    target = getattr(qm, rule) if isinstance(rule, str) else rule
    return verify_quadrature(target, dim=8, degree=degree, profile="quick", checks=[check])[check]


def _ke(kernel: Any, check: str, **kw: Any) -> Any:
    from tests.mutants import kernel_mutants as km
    from rfverify.kinds.kernel import verify_kernel

    target = getattr(km, kernel) if isinstance(kernel, str) and hasattr(km, kernel) else kernel
    if "feature_map" in kw and isinstance(kw["feature_map"], str):
        kw["feature_map"] = getattr(km, kw["feature_map"])
    return verify_kernel(target, profile="quick", checks=[check], **kw)[check]


def _twice_rbf(check: str) -> Any:
    from tests.mutants import kernel_mutants as km

    return _ke(km.twice_rbf(), check, normalized=True)


def _xfail_passed(check: str) -> Any:
    from rfverify.implementations.rff import RandomFourierFeatures

    return rfverify.verify(RandomFourierFeatures, kernel_params={"gamma": GAMMA}, profile="quick", checks=[check],
                           xfail={check: "stale"})[check]


def _explore(kind, name):
    """``explore`` on a planted corner bug of tests/mutants/explore_mutants.py (quick profile)."""
    from rfverify.kinds import get_kind
    from tests.mutants import explore_mutants as em

    opts = {"feature-map": {"kernel_params": {"gamma": GAMMA}}, "orthogonal": {"dim": 16},
            "transform": {"dim": 64}}[kind]
    return get_kind(kind).verify_function()(getattr(em, name), profile="quick", checks=["explore"], **opts)["explore"]


#: (id, check, expected status, how to get the result): every failing path of every check.
CASES: list[tuple[str, str, str, Callable[[], Any]]] = [
    # feature-map
    ("contract-fresh-draw", "contract", "fail", lambda: _fm("FreshDrawPerTransform", "contract")),
    ("reproducibility-ignored", "reproducibility", "fail", lambda: _fm("IgnoresRandomState", "reproducibility")),
    ("unbiasedness-half-scale", "unbiasedness", "fail", lambda: _fm("HalfScale", "unbiasedness")),
    ("unbiasedness-bias-bound", "unbiasedness", "fail",
     lambda: _fm("HalfScale", "unbiasedness", unbiased=False, bias_bound=0.05)),
    ("concentration-false-bound", "concentration", "fail",
     lambda: _fm("RandomFourierFeatures", "concentration", bound=1.0)),
    ("concentration-shared-draw", "concentration", "fail", lambda: _fm("SharedDraw", "concentration")),
    ("error-rate-shared-draw", "error-rate", "fail", lambda: _fm("SharedDraw", "error-rate")),
    ("adapted-ascent", "adapted-approximation", "fail", lambda: _adapted("adapted-approximation")),
    ("xfail-that-passes", "contract", "fail", lambda: _xfail_passed("contract")),
    ("explore-fortran-read-as-c", "explore", "fail", lambda: _explore("feature-map", "FortranReadAsC")),
    ("explore-orthogonal-d2", "explore", "fail", lambda: _explore("orthogonal", "rotation_2d_unnormalised")),
    ("explore-transform-d1", "explore", "fail", lambda: _explore("transform", "fwht_small_widths_halved")),
    ("stateful-gamma-less-cache", "stateful", "fail", lambda: _stateful_case("CacheWithoutGamma")),
    # orthogonal
    ("haar-screen-fast-path", "haar-screen", "fail", lambda: _haar_screen_case("fast_path_no_sign_fix")),
    ("orthogonality", "orthogonality", "fail", lambda: _orth("normalised_gaussian_rows", "orthogonality")),
    ("determinant-o", "haar-determinant", "fail", lambda: _orth("so_claimed_as_o", "haar-determinant")),
    ("determinant-so", "haar-determinant", "fail", lambda: _orth("haar_qr", "haar-determinant", 5, "SO")),
    ("entries", "haar-entries", "fail", lambda: _orth("qr_without_sign_correction", "haar-entries")),
    ("trace-moments", "haar-trace-moments", "fail",
     lambda: _orth("qr_without_sign_correction", "haar-trace-moments")),
    ("eigenangles", "haar-eigenangles", "fail", lambda: _orth("random_signed_permutation", "haar-eigenangles")),
    ("invariance", "haar-invariance", "fail", lambda: _orth("gram_schmidt_uniform", "haar-invariance")),
    # transform
    ("transform-input", "transform-input", "fail", lambda: _tr("broken_mutates_input", "transform-input")),
    ("transform-dimension-pads", "transform-dimension", "fail", lambda: _tr("broken_pads", "transform-dimension")),
    ("transform-dimension-silent", "transform-dimension", "fail",
     lambda: _tr(_fwht_silent_refusal, "transform-dimension")),
    ("transform-exactness", "transform-exactness", "fail", lambda: _tr("broken_axis0", "transform-exactness")),
    ("transform-linearity", "transform-linearity", "fail", lambda: _tr(_fwht_over_norm, "transform-linearity")),
    # quadrature
    ("rule-contract-ignores-rng", "rule-contract", "fail", lambda: _qu(_rule_ignores_rng, "rule-contract", 0)),
    ("rule-contract-hidden-entropy", "rule-contract", "fail",
     lambda: _qu(_rule_hidden_entropy, "rule-contract", 0)),
    ("exactness-degree-0", "exactness", "fail", lambda: _qu("missing_weight", "exactness")),
    ("exactness-degree-2", "exactness", "fail", lambda: _qu("unnormalised_simplex", "exactness")),
    ("rule-unbiasedness", "rule-unbiasedness", "fail", lambda: _qu("wrong_radial_law", "rule-unbiasedness")),
    # kernel
    ("kernel-symmetry", "kernel-symmetry", "fail", lambda: _ke("asymmetric_rbf", "kernel-symmetry")),
    ("kernel-psd", "kernel-psd", "fail", lambda: _ke("tanh_kernel", "kernel-psd")),
    ("kernel-psd-declared", "kernel-psd", "xfail", lambda: _ke("sigmoid", "kernel-psd")),
    ("kernel-normalisation", "kernel-normalisation", "fail", lambda: _twice_rbf("kernel-normalisation")),
    ("kernel-composition", "kernel-composition", "fail",
     lambda: _ke("rbf_laplacian_mix", "kernel-composition", feature_map="wrong_weight_mix_features")),
]

#: Checks with no failing path, and why (a planted bug cannot make them fail).
NEVER_FAILS = {
    "efficiency": "a measurement against Monte Carlo: always passes, the table is in details",
}


def test_every_registered_check_has_a_planted_failure_here():
    covered = {check for _, check, _, _ in CASES}
    registered = {s.name for kind in KINDS for s in checks_for(kind)}
    missing = sorted(registered - covered - set(NEVER_FAILS))
    assert not missing, f"checks with no planted failure in tests/test_messages.py CASES: {missing}"
    assert not (covered & set(NEVER_FAILS)), "a check listed as never failing has a failing case"
    assert set(NEVER_FAILS) <= registered, "NEVER_FAILS names a check that no longer exists"


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_every_failing_message_has_observed_expected_and_reproduce(case):
    _, check, status, run = case
    res = run()
    assert (res.check, res.status) == (check, status), res.explain()
    msg = res.message
    assert "observed: " in msg and "expected: " in msg, msg
    assert msg.index("observed: ") < msg.index("expected: "), msg
    assert " — observed: " in msg or " — 2 problems: " in msg or "problems: (1) observed: " in msg, msg
    text = res.explain()
    assert text.startswith(f"{res.implementation} [{check}]: {status.upper()} — "), text
    assert res.reproduce.startswith("rfverify check ") and f"--check {check}" in res.reproduce, res.reproduce
    assert "--seed " in res.reproduce and f"reproduce: {res.reproduce}" in text, text


def test_every_text_rendering_names_implementation_check_and_reproduce():
    """explain(), the table and the Markdown summary show a failure the same way: implementation, check,
    status, the message, the effect's interval with its level, and the reproduce command."""
    from rfverify.report.writing import markdown_summary
    from rfverify.results import CheckResult, Effect, Report

    res = CheckResult(check="unbiasedness", implementation="pkg:Broken", status="fail",
                      message=failure_message("biased", "mean 0.5", "1"), statistic=9.0, pvalue=1e-9,
                      threshold=1e-3, effect=Effect("bias", -0.5, -0.51, -0.49, 0.999), seed=7,
                      reproduce="rfverify check feature-map pkg:Broken --seed 7 --check unbiasedness")
    rep = Report(implementation="pkg:Broken", kind="feature-map", target={"name": "rbf"}, seed=7, profile="quick",
                 config={}, results=(res,), version="0")
    head = "pkg:Broken [unbiasedness]: FAIL — biased — observed: mean 0.5; expected: 1"
    assert res.explain().splitlines() == [
        head, "  effect: bias -0.5 [-0.51, -0.49] (99.9% interval)", "  p = 1e-09 against alpha = 0.001",
        "  reproduce: rfverify check feature-map pkg:Broken --seed 7 --check unbiasedness"]
    assert res.explain() in rep.table()
    md = markdown_summary([("broken", rep)])
    assert ("- **broken / unbiasedness** (`pkg:Broken`): FAIL — biased — observed: mean 0.5; expected: 1  \n"
            "  reproduce: `rfverify check feature-map pkg:Broken --seed 7 --check unbiasedness`") in md
    doc = rep.to_dict()
    assert doc["implementation"] == "pkg:Broken" and doc["checks"][0]["reproduce"] == res.reproduce
    assert doc["checks"][0]["check"] == "unbiasedness" and doc["checks"][0]["pvalue"] == 1e-9
    assert "name" not in doc["checks"][0] and "p_value" not in doc["checks"][0]
