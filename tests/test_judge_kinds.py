"""The trusted judge for samplers, rules, transforms and kernels (rfverify/containment/hosted_kinds.py): a plug-in named
``MODULE:ATTR`` is imported in its own process only and the verdict is computed in the harness, so a plug-in module
that patches scipy.stats, numpy's eigenvalues and ``rfverify.results.CheckResult`` at import
(tests/hostile_kinds_import.py) still FAILS when biased — through the CLI and the API — and its correct twin passes.

Each run is a fresh process (a subprocess): a module that patched the test process would poison every later test.
One check per kind on the quick profile keeps them fast.
"""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest

from tests.test_hostile import ROOT, _env

MODULE = "tests.hostile_kinds_import"
#: The same plug-ins from a module that patches nothing (safe to import in the test process).
CLEAN = "tests.hostile_kinds"
#: kind, its options, the check, the biased plug-in, its correct twin
CASES = [
    ("orthogonal", {"dim": 4}, "haar-determinant", "biased_sampler", "haar_sampler"),
    ("quadrature", {"dim": 4, "degree": 3}, "rule-unbiasedness", "biased_rule", "sr33_rule"),
    ("transform", {"dim": 16}, "transform-exactness", "biased_transform", "hadamard_transform"),
    ("kernel", {"dim": 4}, "kernel-psd", "tanh_kernel", "rbf_kernel"),
]
IDS = [c[0] for c in CASES]

_RUN = """
import json, sys
import rfverify
from rfverify import cli
kind, check, biased, twin, options = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], json.loads(sys.argv[5])
argv = ["check", kind, biased, "--profile", "quick", "--check", check, "--json", sys.argv[6], "--quiet"]
for key, value in options.items():
    argv += ["--" + key, str(value)]
code = cli.main(argv)
got = {"cli": code}
for label, target in (("biased", biased), ("twin", twin)):
    report = rfverify.verify(target, kind=kind, checks=[check], profile="quick", seed=1, **options)
    got[label] = [report.exit_code, report.results[0].status, report.results[0].message[:300]]
import scipy.stats
got["imported"] = biased.split(":")[0] in sys.modules
got["scipy_patched"] = type(scipy.stats.t).__name__ == "_PIsOne"
print(json.dumps(got))
"""


def _run(kind, options, check, biased, twin, tmp_path, env=None):
    proc = subprocess.run([sys.executable, "-c", _RUN, kind, check, f"{MODULE}:{biased}", f"{MODULE}:{twin}",
                           json.dumps(options), str(tmp_path / "cli.json")], capture_output=True, text=True,
                          cwd=ROOT, env=env or _env(), timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("kind, options, check, biased, twin", CASES, ids=IDS)
def test_a_biased_plugin_patching_the_judge_at_import_still_fails(kind, options, check, biased, twin, tmp_path):
    """Through the CLI (its main) and the API, by name: the biased plug-in fails, its twin passes, and the harness
    never imported the plug-in's module (its scipy untouched)."""
    got = _run(kind, options, check, biased, twin, tmp_path)
    assert got["cli"] == 1, got
    by = {c["check"]: c for c in json.loads((tmp_path / "cli.json").read_text())["checks"]}
    assert by[check]["status"] == "fail", by[check]["message"][:600]
    assert got["biased"][:2] == [1, "fail"], got
    assert got["twin"][:2] == [0, "pass"], got
    assert got["imported"] is False and got["scipy_patched"] is False, got


@pytest.mark.parametrize("kind, options, check, biased, twin", CASES[:1] + CASES[3:], ids=["orthogonal", "kernel"])
def test_a_biased_plugin_fails_through_the_command(kind, options, check, biased, twin, tmp_path):
    """``rfverify check KIND MODULE:ATTR`` as a real process: exit 1, the check failed in the JSON written."""
    cmd = [sys.executable, "-m", "rfverify.cli", "check", kind, f"{MODULE}:{biased}", "--profile", "quick",
           "--check", check, "--json", str(tmp_path / "r.json")]
    for key, value in options.items():
        cmd += [f"--{key}", str(value)]
    proc = subprocess.run(cmd, capture_output=True, text=True, cwd=tmp_path, env=_env(), timeout=600)
    assert proc.returncode == 1, (proc.returncode, proc.stderr[-2000:])
    checks = json.loads((tmp_path / "r.json").read_text())["checks"]
    assert [c["status"] for c in checks] == ["fail"], checks


def test_the_patches_do_forge_a_pass_where_the_verdict_is_computed_next_to_the_plugin(tmp_path):
    """The hostile module is no straw man: with ``RFVERIFY_WHOLE_CHECKS=1`` (whole checks in the child, the module also
    imported by the harness) every biased plug-in "passes" — what the judge prevents."""
    for kind, options, check, biased, _ in CASES:
        cmd = [sys.executable, "-m", "rfverify.cli", "check", kind, f"{MODULE}:{biased}", "--profile", "quick",
               "--check", check, "--json", str(tmp_path / "r.json")]
        for key, value in options.items():
            cmd += [f"--{key}", str(value)]
        proc = subprocess.run(cmd, capture_output=True, text=True, cwd=tmp_path,
                              env=_env(RFVERIFY_WHOLE_CHECKS="1"), timeout=600)
        checks = json.loads((tmp_path / "r.json").read_text())["checks"]
        assert proc.returncode == 0 and [c["status"] for c in checks] == ["pass"], (kind, proc.returncode, checks)


def test_the_whole_checks_switch_keeps_the_earlier_protocol_for_every_kind(monkeypatch):
    """``RFVERIFY_WHOLE_CHECKS=1``: no plug-in process, the plug-in here (checks run whole in the child); unset, the
    plug-in lives in its own process and the configuration says so (HOSTED, ``host``)."""
    from rfverify.containment import supervise
    from rfverify.kinds import get_kind

    for kind, options, _, _, twin in CASES:
        cls = get_kind(kind).config_class()
        assert cls.HOSTED is True
        monkeypatch.setattr(supervise, "_FROZEN", {"RFVERIFY_INPROCESS": "", "RFVERIFY_WHOLE_CHECKS": "1"})
        whole = cls(f"{CLEAN}:{twin}", **options)
        assert whole.host is None, kind
        monkeypatch.setattr(supervise, "_FROZEN", {"RFVERIFY_INPROCESS": "", "RFVERIFY_WHOLE_CHECKS": ""})
        judged = cls(f"{CLEAN}:{twin}", **options)
        try:
            assert judged.host is not None, kind
        finally:
            judged.host.close()


def test_the_generator_stays_in_step_with_one_process():
    """A sampler drawing from the rng it is handed: after a hosted draw the harness's Generator stands where one
    process leaves it, and the matrix is the same."""
    from rfverify.kinds.orthogonal import OrthogonalSampler

    spec = f"{CLEAN}:haar_sampler"
    hosted, local = OrthogonalSampler(spec), OrthogonalSampler(spec, hosted=False)
    if hosted.host is None:
        pytest.skip("the judge is off in this environment")
    try:
        r1, r2 = np.random.default_rng(7), np.random.default_rng(7)
        for _ in range(3):
            assert np.array_equal(hosted.draw(5, r1), local.draw(5, r2))
            assert r1.bit_generator.state == r2.bit_generator.state and r1.random() == r2.random()
    finally:
        hosted.host.close()


def test_a_forged_generator_state_is_the_plugins_error():
    """The state the plug-in's process sends back must be the same bit generator's, as plain data: another is the
    plug-in's error, and the harness's Generator is left as it was."""
    from rfverify.errors import PluginError
    from rfverify.containment.hosted_kinds import HostedAdapter, _plain_state

    good = np.random.default_rng(1).bit_generator.state
    assert _plain_state(good, "PCG64")
    assert not _plain_state({**good, "bit_generator": "MT19937"}, "PCG64")
    assert not _plain_state({**good, "state": {"state": 1.5, "inc": 3}}, "PCG64")
    assert not _plain_state([good], "PCG64")

    class Forging:
        def run_kept(self, fn, state, op, *args):
            return np.eye(2), [{**good, "bit_generator": "MT19937"}], [], []

    adapter = HostedAdapter()
    adapter.host, adapter.obj = Forging(), object()
    rng = np.random.default_rng(5)
    before = rng.bit_generator.state
    with pytest.raises(PluginError, match="not a PCG64 state"):
        adapter._remote("raw_draw", 2, rng)
    assert rng.bit_generator.state == before


def test_a_hosted_configuration_runs_in_one_process_when_asked():
    """``run(config, isolate=False)``: the plug-in's object brought here, its process ended, the verdict the same."""
    from rfverify.kinds.orthogonal import OrthogonalConfig
    from rfverify.runner import run

    config = OrthogonalConfig(f"{CLEAN}:biased_sampler", dim=4, profile="quick", seed=1)
    if config.host is None:
        pytest.skip("the judge is off in this environment")
    report = run(config, checks=["haar-determinant"], isolate=False)
    assert config.host is None and not hasattr(config.sampler.obj, "_rf_remote")
    assert report.results[0].status == "fail", report.table()


def test_a_batch_of_draws_is_what_one_process_sees_an_error_after_the_draws_before_it():
    """Draws batched in the plug-in's process: the same draws in the same order as one process makes them, the
    generators left in the same states, and what the 300th call raised raised when its turn comes (after 299 draws,
    across two batches)."""
    from rfverify.errors import PluginError
    from rfverify.kinds.quadrature import QuadraturePlugin
    from tests.hostile_kinds import FailsAtCall

    hosted = QuadraturePlugin(FailsAtCall(300))
    if hosted.host is None:
        pytest.skip("the judge is off in this environment")
    local = QuadraturePlugin(FailsAtCall(300), hosted=False)
    try:
        got = {}
        for label, plugin in (("hosted", hosted), ("local", local)):
            rngs = [np.random.default_rng([3, t]) for t in range(400)]
            seen = []
            with pytest.raises(PluginError) as err:
                for P, w in plugin.draws(4, iter(rngs)):
                    seen.append(w)
            got[label] = (seen, [r.bit_generator.state for r in rngs[:299]], str(err.value))
        assert len(got["hosted"][0]) == 299 and all(np.array_equal(a, b) for a, b in zip(*(got[k][0] for k in got)))
        assert got["hosted"][1] == got["local"][1]
        assert got["hosted"][2] == got["local"][2] and "call 300 refused" in got["hosted"][2]
    finally:
        hosted.host.close()


@pytest.mark.parametrize("feature_map, code, status", [("wrong_weight_mix_features", 1, "fail"),
                                                       ("RBFLaplacianMixFeatures", 0, "pass")],
                         ids=["biased", "twin"])
def test_a_composition_feature_map_patching_the_judge_at_import(feature_map, code, status, tmp_path):
    """``rfverify check kernel rbf_laplacian_mix --feature-map MODULE:ATTR`` from the patching module: the map lives in
    its own process, so the missing-sqrt map still fails kernel-composition and the correct map passes."""
    cmd = [sys.executable, "-m", "rfverify.cli", "check", "kernel", "rbf_laplacian_mix", "--feature-map",
           f"{MODULE}:{feature_map}", "--profile", "quick", "--check", "kernel-composition", "--json",
           str(tmp_path / "r.json")]
    proc = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT, env=_env(), timeout=600)
    assert proc.returncode == code, (proc.returncode, proc.stderr[-2000:])
    checks = json.loads((tmp_path / "r.json").read_text())["checks"]
    assert [c["status"] for c in checks] == [status], checks[0]["message"][:600]


def test_a_declared_matrix_module_that_exits_at_import_is_probed_first(tmp_path):
    """A transform's ``--matrix MODULE:ATTR`` is imported by the harness (part of the reference): the CLI builds that
    configuration in a throw-away child first, so a module exiting at import is every check's error (exit 2, the
    report written), not the end of the run; the transform itself still lives in its own process."""
    (tmp_path / "exitmatrix.py").write_text("import os\nos._exit(0)\nM = None\n")
    cmd = [sys.executable, "-m", "rfverify.cli", "check", "transform", f"{CLEAN}:hadamard_transform", "--matrix",
           "exitmatrix:M", "--dim", "16", "--profile", "quick", "--check", "transform-exactness", "--json",
           str(tmp_path / "r.json")]
    proc = subprocess.run(cmd, capture_output=True, text=True, cwd=tmp_path, env=_env(), timeout=600)
    assert proc.returncode == 2, (proc.returncode, proc.stderr[-2000:])
    checks = json.loads((tmp_path / "r.json").read_text())["checks"]
    assert checks[0]["status"] == "error" and "exit code 0" in checks[0]["message"], checks


@pytest.mark.parametrize("option", ["--kernel", "--domain"])
def test_a_feature_maps_declared_kernel_or_domain_module_that_exits_at_import_is_probed_first(tmp_path, option):
    """A feature map's ``--kernel`` / ``--domain MODULE:ATTR`` is part of the reference and imported by the harness:
    the CLI builds that configuration in a throw-away child first, so a module exiting at import ends the run with
    exit 2 and the module named, never exit 0 with nothing said."""
    (tmp_path / "exitref.py").write_text("import os\nos._exit(0)\ndef f(*a):\n    return 1.0\n")
    cmd = [sys.executable, "-m", "rfverify.cli", "check", "feature-map", "sklearn.kernel_approximation:RBFSampler",
           option, "exitref:f", "--profile", "quick", "--check", "contract", "--json", str(tmp_path / "r.json")]
    proc = subprocess.run(cmd, capture_output=True, text=True, cwd=tmp_path, env=_env(), timeout=600)
    assert proc.returncode == 2, (proc.returncode, proc.stdout[-1000:], proc.stderr[-2000:])
    assert "exitref:f" in proc.stderr and "exit code 0" in proc.stderr, proc.stderr[-2000:]
    checks = json.loads((tmp_path / "r.json").read_text())["checks"]
    assert checks[0]["status"] == "error" and "exitref:f" in checks[0]["message"], checks
    assert f"{option} exitref:f" in checks[0]["reproduce"] and "--json" not in checks[0]["reproduce"], checks
