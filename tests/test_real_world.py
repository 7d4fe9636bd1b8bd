"""Real libraries as published: the defects rfverify reports are real (brute force agrees) and correct
libraries pass.  Needs the thirdparty extra (rfflearn, scikit-learn-extra); skipped without it.

Measured on the default seed and others in reports/ecosystem.md.  The brute-force checks run in CI (seconds);
the full default-profile runs of the libraries (minutes on a loaded 2-core machine) are marked slow, like the
other studies (``pytest -m slow tests/test_real_world.py``).
"""

from __future__ import annotations

import pytest

from rfverify.seeding import DEFAULT_SEED
from rfverify.studies import ecosystem as eco

pytest.importorskip("rfflearn", reason="rfflearn is in the thirdparty extra: pip install -e '.[thirdparty]'")


def _entry(name):
    return next(e for e in eco.ENTRIES if e.name == name)


def test_brute_force_confirms_the_orf_defect_and_clears_rff():
    bad, good = eco.brute_force_rfflearn("orf"), eco.brute_force_rfflearn("rff")
    assert abs(bad["z"]) > 6, bad  # E cos(w.delta) != k far beyond Monte Carlo error
    assert abs(good["z"]) < 4, good  # the same design on rfflearn's RFF: consistent with k


def test_brute_force_confirms_the_qrf_defect_and_clears_rff():
    bad, good = eco.brute_force_marginal("qrf"), eco.brute_force_marginal("rff")
    assert bad["p"] < 1e-10, bad  # the frequencies' entries are not N(0, 1)
    assert good["p"] > 1e-4, good


@pytest.mark.slow
@pytest.mark.parametrize("name", ["rfflearn-orf", "rfflearn-qrf"])
def test_real_defect_caught_at_the_default_profile_with_a_headline(name):
    entry = _entry(name)
    report = eco.run_entry(entry, DEFAULT_SEED, "default")
    assert eco._verdict(entry, report) == "caught", report.table()
    r = report["unbiasedness"]
    assert r.status == "xfail" and "biased" in r.message and "round-off bound" in r.message
    assert "equal, k = 1" not in r.message  # the headline pair shows the bias, not a round-off-only pair


@pytest.mark.slow
@pytest.mark.parametrize("name", ["rfflearn-rff", "sklearn-extra-fastfood"])
def test_correct_library_needing_declarations_passes(name):
    entry = _entry(name)
    if eco.missing(entry):
        pytest.skip(reason=f"not installed: {eco.missing(entry)}")
    report = eco.run_entry(entry, DEFAULT_SEED, "default")
    assert eco._verdict(entry, report) == "pass", report.table()
