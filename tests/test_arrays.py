"""Plug-ins written with any array library: outputs brought to the host in their own dtype, inputs in the declared form.

The torch tests need torch (not in CI: its CPU wheel and dependencies took 1.5 min to install here; they are marked
slow: ``python -m pytest -m slow tests/test_arrays.py`` after ``pip install torch``); the JAX and dask tests run
where the ``thirdparty`` and ``dask`` extras are installed and skip with the reason otherwise.
"""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import given, settings

import rfverify
from rfverify.arrays import ArrayRecord, handed_dtype, is_jitted, to_input, to_numpy
from rfverify.errors import PluginError, UsageError
from rfverify.kinds.orthogonal import verify_orthogonal
from rfverify.spaces import JIT_SHAPES, FeatureMapSpace
from tests import array_maps as am

RBF = dict(kernel="rbf", kernel_params={"gamma": 0.5})
STAT = ["contract", "unbiasedness"]


def _torch():
    return pytest.importorskip("torch", reason="torch is an optional install (not in CI): pip install torch")


def _jax():
    return pytest.importorskip("jax", reason="JAX is in the thirdparty extra: pip install jax")


# -- the output conversion ------------------------------------------------------------------------------------
def test_numpy_and_lists_pass_through_and_are_recorded():
    rec = ArrayRecord()
    a = np.ones((2, 3), dtype=np.float32)
    assert to_numpy(a, record=rec) is a
    assert to_numpy([[1.0, 2.0], [3.0, 4.0]], record=rec).shape == (2, 2)
    assert ("numpy", "float32", "cpu") in rec.outputs and ("list", "float64", "cpu") in rec.outputs


def test_an_object_lying_about_its_shape_is_a_plugin_error():
    with pytest.raises(PluginError, match=r"shape says \(2, 4\) but whose values form an array of shape \(2, 3\)"):
        to_numpy(am.LyingShape(np.ones((2, 3))), plugin="lying", action="transform")


def test_rfverify_imports_no_array_library_it_is_not_given():
    code = ("import sys, numpy as np, rfverify\nfrom rfverify.arrays import to_numpy, to_input, library_of\n"
            "to_numpy(np.ones(2)); to_numpy([1.0]); to_input(np.ones((1, 1)), None); library_of(object())\n"
            "rfverify.verify('tests.array_maps:NumpyRFF', kernel_params={'gamma': 0.5}, profile='quick', "
            "checks=['contract'])\n"
            "print(sorted(m for m in ('torch', 'jax', 'cupy', 'dask.array') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_dask_output_is_computed():
    da = pytest.importorskip("dask.array", reason="dask is in the dask extra")
    rec = ArrayRecord()
    A = to_numpy(da.ones((4, 3), chunks=2) * 2.0, record=rec)
    assert isinstance(A, np.ndarray) and A.shape == (4, 3) and float(A.sum()) == 24.0
    assert any(lib == "dask" and "computed" in dev for lib, _, dev in rec.outputs)


def test_jax_output_keeps_float32():
    jnp = _jax().numpy
    rec = ArrayRecord()
    A = to_numpy(jnp.ones((2, 3)), record=rec)
    assert isinstance(A, np.ndarray) and A.dtype == np.float32
    assert {lib for lib, _, _ in rec.outputs} == {"jax"}


# -- the input conversion ---------------------------------------------------------------------------------------
def test_input_forms_are_validated_and_a_missing_library_is_a_usage_error(monkeypatch):
    with pytest.raises(UsageError, match="input must be one of numpy, torch, jax, cupy"):
        rfverify.verify(am.NumpyRFF, **RBF, input="tensorflow", profile="quick", checks=["contract"])
    monkeypatch.setitem(sys.modules, "cupy", None)
    with pytest.raises(UsageError, match="need cupy: pip install cupy"):
        to_input(np.ones((2, 2)), "cupy")


def test_jax_inputs_are_float32_device_arrays_and_generators_become_keys():
    jax = _jax()
    X = to_input(np.ones((3, 2)), "jax")
    assert isinstance(X, jax.Array) and X.dtype == np.float32
    assert handed_dtype("jax", np.float64) == np.float32 and handed_dtype(None, np.float64) == np.float64
    key = to_input(np.random.default_rng(1), "jax")
    assert jax.random.normal(key, (2,)).shape == (2,)


# -- feature maps end to end --------------------------------------------------------------------------------------
def test_list_and_dask_outputs_pass_ragged_and_lying_outputs_are_errors():
    assert rfverify.verify(am.ListRFF, **RBF, profile="quick", checks=STAT).passed
    ragged = rfverify.verify(am.RaggedRFF, **RBF, profile="quick", checks=["contract"])
    assert ragged["contract"].status == "error" and "cannot be brought to the host" in ragged["contract"].message
    lying = rfverify.verify(am.LyingRFF, **RBF, profile="quick", checks=["contract"])
    assert lying["contract"].status == "error" and "shape says" in lying["contract"].message


def test_a_dask_map_passes():
    pytest.importorskip("dask.array", reason="dask is in the dask extra")
    r = rfverify.verify(am.DaskRFF, **RBF, profile="quick", checks=STAT)
    assert r.passed, r.table()
    assert any(o["library"] == "dask" for o in r.config["arrays"]["outputs"])


def _cli(*args, tmp_path):
    """``rfverify ARGS --json FILE`` in a fresh process (JAX's runtime, started by this test process, does not
    survive the fork of a supervised child): (exit code, stdout, the JSON report)."""
    out = tmp_path / "report.json"
    run = subprocess.run([sys.executable, "-m", "rfverify.cli", *args, "--json", str(out)], capture_output=True,
                         text=True)
    return run.returncode, run.stdout, json.loads(out.read_text())


def test_jax_map_passes_its_broken_twin_fails_and_the_report_records_the_arrays(tmp_path):
    _jax()
    code, out, rep = _cli("check", "feature-map", "tests.jax_maps:JaxRFF", "--param", "gamma=0.5", "--input", "jax",
                          "--profile", "quick", "--check", "contract", "--check", "unbiasedness", "--check", "explore",
                          tmp_path=tmp_path)
    assert code == 0, out
    arrays = rep["config"]["arrays"]
    assert arrays["input"] == "jax" and {o["library"] for o in arrays["outputs"]} == {"jax"}
    assert {o["dtype"] for o in arrays["outputs"]} == {"float32"} and rep["config"]["jit"] is True
    assert "arrays: in jax float32" in out and "judged with float32 round-off" in out
    assert "jit: shapes from a fixed set" in rep["config"]["space"]
    code, out, rep = _cli("check", "feature-map", "tests.jax_maps:JaxRFFBroken", "--param", "gamma=0.5", "--input",
                          "jax", "--profile", "quick", "--check", "unbiasedness", tmp_path=tmp_path)
    assert code == 1 and rep["checks"][0]["status"] == "fail", out


def test_the_html_report_shows_the_arrays():
    from rfverify.report.html import render_report_page
    from rfverify.report.provenance import provenance

    r = rfverify.verify(am.ListRFF, **RBF, profile="quick", checks=["contract"])
    assert "list" in r.config["arrays"]["outputs"][0]["library"]
    assert "arrays: in numpy" in r.table()
    assert "float64" in render_report_page("list", r, provenance=provenance()) and "outputs" in render_report_page(
        "list", r, provenance=provenance())


def test_jit_is_declared_by_the_jax_input_or_detected():
    jax = _jax()
    assert is_jitted(jax.jit(lambda X: X)) and not is_jitted(lambda X: X) and not is_jitted(am.NumpyRFF)
    from rfverify.kinds.feature_map import FeatureMapConfig

    assert FeatureMapConfig(am.NumpyRFF, **RBF).space.jit is False
    assert FeatureMapConfig(am.NumpyRFF, **RBF, jit=True).space.jit is True
    with pytest.raises(UsageError, match="jit must be True, False or None"):
        FeatureMapConfig(am.NumpyRFF, **RBF, jit="yes")


@settings(max_examples=60, deadline=None, database=None)
@given(FeatureMapSpace(jit=True).examples({"gamma": 0.5}))
def test_a_jit_plugin_is_explored_at_a_fixed_set_of_shapes(ex):
    assert (ex.d, ex.m) in JIT_SHAPES["d_m"]
    assert ex.n in {min(n, 2 ** 14 // ex.m, 2 ** 20 // (ex.d * ex.m)) for n in JIT_SHAPES["batch"]}  # the cost caps
    assert ex.split in (0, ex.n // 2 - 1)


@settings(max_examples=20, deadline=None, database=None)
@given(FeatureMapSpace.build([{"d": 5, "n_components": 8, "batch": 3}], base=FeatureMapSpace(jit=True)).examples({}))
def test_jit_shapes_are_clipped_to_a_pinned_space(ex):
    assert (ex.d, ex.m, ex.n) == (5, 8, 3)


# -- transforms, samplers -----------------------------------------------------------------------------------------
def test_a_jax_transform_is_judged_with_float32_round_off_and_its_broken_twin_fails(tmp_path):
    _jax()
    common = ("--input", "jax", "--dim", "16", "--matrix", "hadamard-normalized", "--profile", "quick",
              "--check", "transform-exactness", "--check", "transform-linearity")
    code, out, rep = _cli("check", "transform", "tests.jax_maps:hadamard", *common, tmp_path=tmp_path)
    assert code == 0, out
    assert {i["dtype"] for i in rep["config"]["arrays"]["inputs"]} == {"float32"}  # JAX without x64
    code, out, rep = _cli("check", "transform", "tests.jax_maps:hadamard_broken", *common, tmp_path=tmp_path)
    assert code == 1 and rep["checks"][0]["status"] == "fail", out


def test_a_jax_transform_with_a_shape_cache_fails_stateful_with_a_program_in_jax(tmp_path):
    _jax()
    common = ("--input", "jax", "--dim", "16", "--matrix", "hadamard-normalized", "--profile", "quick",
              "--check", "stateful")
    code, out, rep = _cli("check", "transform", "tests.jax_maps:hadamard", *common, tmp_path=tmp_path)
    assert code == 0, out
    code, out, rep = _cli("check", "transform", "tests.jax_maps:hadamard_cached", *common, tmp_path=tmp_path)
    assert code == 1 and rep["checks"][0]["status"] == "fail", out
    # the printed program hands the plug-in what the harness handed it: JAX arrays, not numpy ones
    program = rep["checks"][0]["message"]
    assert "import jax, jax.numpy as jnp" in program and "apply(jnp.asarray(" in program, program


# -- torch (slow: torch is not in CI) -------------------------------------------------------------------------------
@pytest.mark.slow
def test_torch_map_passes_and_its_broken_twin_fails():
    _torch()
    r = rfverify.verify(am.TorchRFF, **RBF, input="torch", profile="quick", checks=STAT)
    assert r.passed, r.table()
    assert r.config["arrays"]["outputs"] == [{"library": "torch", "dtype": "float32", "device": "cpu"}]
    assert r["unbiasedness"].details["dtype"] == "float32"
    assert rfverify.verify(am.TorchRFFBroken, **RBF, input="torch", profile="quick",
                           checks=["unbiasedness"])["unbiasedness"].status == "fail"


@pytest.mark.slow
def test_float32_torch_outputs_are_judged_with_float32_round_off():
    _torch()
    r = rfverify.verify(am.Float32TorchOut, **RBF, profile="quick", checks=["contract", "explore"])
    assert r.passed, r.table()
    assert r["contract"].details.get("dtype", "float32") == "float32"
    assert "arrays: in numpy" in r.table() and "out torch float32 on cpu (judged with float32 round-off)" in r.table()


@pytest.mark.slow
def test_torch_sampler_gets_a_torch_generator():
    torch = _torch()

    def sample(d, rng):
        assert isinstance(rng, torch.Generator)
        Q, R = torch.linalg.qr(torch.randn(d, d, generator=rng, dtype=torch.float64))
        return Q * torch.sign(torch.diagonal(R))

    r = verify_orthogonal(sample, dim=4, input="torch", profile="quick", checks=["orthogonality"])
    assert r.passed, r.table()
    assert r.config["arrays"]["outputs"][0]["library"] == "torch"


@pytest.mark.slow
def test_hadamard_transform_takes_torch_tensors_from_the_cli_without_a_wrapper(capsys):
    _torch()
    pytest.importorskip("hadamard_transform", reason="hadamard-transform is not installed")
    from rfverify.cli import main

    code = main(["check", "transform", "hadamard_transform:hadamard_transform", "--input", "torch", "--matrix",
                 "hadamard-normalized", "--dim", "64", "--profile", "quick", "--check", "transform-exactness"])
    out = capsys.readouterr().out
    assert code == 0, out
    assert "arrays: in torch float32 on cpu, torch float64 on cpu" in out
