"""Declarations and adapters that let third-party code plug in without wrappers.

Parameter maps, constructor arguments, global-generator seeding, the torch input adapter (with a fake
tensor module: torch is not installed here, so real torch entries are unverified), deterministic maps and
rules, expected failures from the CLI and per profile in the pytest plugin.
"""

from __future__ import annotations

import json
import sys
import types

import numpy as np
import pytest

import rfverify
from rfverify.cli import main
from rfverify.errors import UsageError
from rfverify.implementations.rff import RandomFourierFeatures
from rfverify.kinds.quadrature import verify_quadrature
from rfverify.param_map import apply_param_map, evaluate, parse_param_map

RBF = dict(kernel="rbf", kernel_params={"gamma": 0.5})


# -- parameter maps -------------------------------------------------------------------------------
def test_param_map_converts_and_routes():
    pm = parse_param_map(["gamma=sigma:1/sqrt(2*gamma)"])
    assert apply_param_map(pm, {"gamma": 0.5}) == {"sigma": 1.0}
    assert apply_param_map(parse_param_map(["gamma="]), {"gamma": 0.5}) == {}
    assert apply_param_map(parse_param_map(["gamma=g"]), {"gamma": 0.5}) == {"g": 0.5}


@pytest.mark.parametrize("expr", ["__import__('os').system('true')", "gamma.real", "[gamma][0]", "open('x')",
                                  "lambda: 1", "sigma", "1/0", "exp(1000)", "x" * 300])
def test_param_map_evaluator_refuses_anything_but_arithmetic(expr):
    with pytest.raises(UsageError):
        evaluate(expr, {"gamma": 0.5})


class SigmaRFF(RandomFourierFeatures):
    """Correct RFF that takes the bandwidth sigma of exp(-r^2 / (2 sigma^2)), as scikit-learn-extra does."""

    def __init__(self, n_components=100, random_state=None, sigma=1.0):
        super().__init__(n_components, random_state, gamma=1.0 / (2.0 * sigma ** 2))
        self.sigma = sigma


def test_a_bandwidth_library_passes_through_a_param_map_and_fails_without_it():
    ok = rfverify.verify(SigmaRFF, **RBF, param_map={"gamma": "sigma:1/sqrt(2*gamma)"}, profile="quick",
                         checks=["unbiasedness"])
    assert ok["unbiasedness"].status == "pass", ok["unbiasedness"].message
    assert ok.config["passthrough"] == {"sigma": 1.0}
    assert "--param-name 'gamma=sigma:1/sqrt(2*gamma)'" in ok["unbiasedness"].reproduce
    silent = rfverify.verify(SigmaRFF, **RBF, profile="quick", checks=["unbiasedness"])  # sigma=1 is gamma=0.5 ...
    assert silent["unbiasedness"].status == "pass"
    wrong = rfverify.verify(SigmaRFF, kernel="rbf", kernel_params={"gamma": 2.0}, profile="quick",
                            checks=["unbiasedness"])  # ... but gamma=2 is silently ignored without the map
    assert wrong["unbiasedness"].status == "fail"


def test_param_map_target_must_be_accepted():
    with pytest.raises(UsageError, match="does not accept 'bandwidth'"):
        rfverify.verify(SigmaRFF, **RBF, param_map={"gamma": "bandwidth:1/gamma"})


def test_unrelated_constructor_gamma_can_be_left_alone():
    inst = RandomFourierFeatures(8, 0, gamma=3.0)  # its gamma disagrees with the kernel's
    with pytest.raises(UsageError, match="disagrees"):
        rfverify.verify(inst, **RBF, checks=["contract"])
    r = rfverify.verify(inst, **RBF, param_map={"gamma": ""}, checks=["contract"], profile="quick")
    assert r["contract"].status == "pass"


def test_init_sets_constructor_arguments_and_refuses_reserved_names():
    r = rfverify.verify(SigmaRFF, **RBF, param_map={"gamma": ""}, init={"sigma": 1.0}, profile="quick",
                        checks=["unbiasedness"])
    assert r["unbiasedness"].status == "pass" and r.config["init"] == {"sigma": 1.0}
    with pytest.raises(UsageError, match="not allowed"):
        rfverify.verify(SigmaRFF, **RBF, init={"random_state": 1})
    with pytest.raises(UsageError, match="set both"):
        rfverify.verify(SigmaRFF, **RBF, param_map={"gamma": "sigma:1/sqrt(2*gamma)"}, init={"sigma": 2.0})


# -- global generators ----------------------------------------------------------------------------
class GlobalRFF:
    """Correct RFF that draws from numpy's global generator only (as rfflearn does); random_state unused."""

    def __init__(self, n_components=100, random_state=None):
        self.n_components = n_components
        self.random_state = random_state

    def fit(self, X, y=None):
        self.W_ = np.random.normal(0.0, 1.0, (X.shape[1], self.n_components))
        self.b_ = np.random.uniform(0.0, 2 * np.pi, self.n_components)
        return self

    def transform(self, X):
        return np.sqrt(2.0 / self.n_components) * np.cos(X @ self.W_ + self.b_)


def test_global_generator_library_is_refused_unless_declared_then_seeded_and_restored():
    plain = rfverify.verify(GlobalRFF, **RBF, profile="quick", checks=["reproducibility"])
    assert plain["reproducibility"].status == "error" and "global random state" in plain["reproducibility"].message
    before = np.random.get_state()[1].copy()
    r = rfverify.verify(GlobalRFF, **RBF, profile="quick", global_seed="numpy", bound=2 ** 0.5)
    assert np.array_equal(before, np.random.get_state()[1])
    assert r.passed, r.table()
    assert "numpy: seeded from each draw's random_state" in r.config["global_seed"]  # recorded, never silent
    assert "--global-seed numpy" in r["unbiasedness"].reproduce


# -- torch input adapter (a fake tensor module; real torch is not installed here) ------------------------
class FakeDtype:
    is_floating_point = True

    def __init__(self, np_dtype):
        self.np = np.dtype(np_dtype)


class FakeTensor:
    def __init__(self, a, device="cpu"):
        self.a, self.device = np.asarray(a), device
        self.dtype = FakeDtype(self.a.dtype)

    def detach(self):
        return self

    def cpu(self):
        return FakeTensor(self.a, "cpu")

    def __array__(self, dtype=None, copy=None):
        if self.device != "cpu":
            raise TypeError("can't convert cuda tensor to numpy: use .cpu()")
        return self.a if dtype is None else self.a.astype(dtype)


def _fake_torch():
    t = types.ModuleType("torch")
    t.float32 = FakeDtype(np.float32)
    t.get_default_dtype = lambda: t.float32
    t.as_tensor = lambda X, dtype=None, device=None: FakeTensor(np.asarray(X, dtype=(dtype or t.float32).np),
                                                               device or "cpu")
    t._state = [0]
    t.manual_seed = lambda s: t._state.__setitem__(0, int(s))
    t.random = types.SimpleNamespace(get_rng_state=lambda: t._state[0],
                                     set_rng_state=lambda s: t._state.__setitem__(0, s))
    return t


class FakeModule:
    """A 'torch module' on a fake CUDA device: refuses numpy input, returns CUDA tensors."""

    def __init__(self, n_components=100, random_state=None):
        rng = np.random.default_rng(random_state)
        self.W = FakeTensor(rng.normal(0.0, 1.0, (16, n_components)).astype(np.float32), device="cuda:0")
        self.b = rng.uniform(0.0, 2 * np.pi, n_components).astype(np.float32)
        self.m = n_components

    def parameters(self):
        return iter([self.W])

    def forward(self, x):
        if not isinstance(x, FakeTensor) or x.device != "cuda:0" or x.a.dtype != np.float32:
            raise TypeError(f"expected a float32 cuda tensor, got {type(x).__name__}")
        return FakeTensor(np.float32(np.sqrt(2.0 / self.m)) * np.cos(x.a @ self.W.a + self.b), device="cuda:0")

    __call__ = forward


def test_torch_input_adapter_moves_inputs_to_the_module_and_results_to_the_host(monkeypatch):
    monkeypatch.setitem(sys.modules, "torch", _fake_torch())
    r = rfverify.verify(FakeModule, **RBF, bound=2 ** 0.5, input="torch", profile="quick",
                        checks=["contract", "unbiasedness"])
    assert r.passed, r.table()
    assert r["unbiasedness"].details["dtype"] == "float32"  # judged by float32 arithmetic
    with pytest.raises(UsageError, match="no fit/transform"):  # a module is accepted only with input="torch"
        rfverify.verify(FakeModule, **RBF, profile="quick", checks=["contract"])


def test_torch_is_required_only_when_asked(monkeypatch):
    monkeypatch.setitem(sys.modules, "torch", None)  # import torch raises ImportError
    with pytest.raises(UsageError, match="need torch: pip install torch"):
        rfverify.verify(FakeModule, **RBF, input="torch", profile="quick", checks=["contract"])


# -- deterministic maps and rules -------------------------------------------------------------------
def grid_map(X, n_components, random_state):
    """A deterministic 'cubature' map for rbf(gamma=0.5): fixed frequencies, no randomness (biased)."""
    t = np.linspace(-2.0, 2.0, n_components // 2)
    W = np.outer(np.ones(X.shape[1]) / np.sqrt(X.shape[1]), t)
    Z = X @ W
    return np.hstack([np.cos(Z), np.sin(Z)]) / np.sqrt(n_components // 2)


grid_map.rfverify_space = {"n_components": (2, 4096)}  # cos/sin pairs: m = 1 gives no pair (a true limit)


def test_deterministic_map_skips_what_does_not_apply_and_is_judged_on_its_bias():
    r = rfverify.verify(grid_map, **RBF, deterministic=True, profile="quick")
    st = {x.check: x.status for x in r.results}
    assert st["reproducibility"] == "pass" and st["error-rate"] == "skip" and st["unbiasedness"] == "fail"
    assert "declared deterministic" in r["error-rate"].message
    assert "exact error" in r["unbiasedness"].message
    biased = rfverify.verify(grid_map, **RBF, deterministic=True, unbiased=False, profile="quick")
    assert biased.passed and biased["unbiasedness"].status == "skip"  # measured, reported, not judged
    undeclared = rfverify.verify(grid_map, **RBF, unbiased=False, profile="quick", checks=["reproducibility"])
    assert undeclared["reproducibility"].status == "fail"  # random_state ignored is a bug unless declared
    lying = rfverify.verify(RandomFourierFeatures, **RBF, deterministic=True, profile="quick",
                            checks=["reproducibility"])
    assert lying["reproducibility"].status == "fail"  # declared deterministic but draws


def cubature(d, rng):
    """The 2^d-point product Gauss-Hermite rule (exact to degree 3; deterministic; biased on cos)."""
    import itertools

    P = np.array(list(itertools.product([-1.0, 1.0], repeat=d)))
    return P, np.full(len(P), 1.0 / len(P))


cubature.rfverify_space = {"d": (1, 10)}  # 2^d points: explore holds it to d <= 10 (1024 points), as declared


def test_deterministic_cubature_declared_biased_passes_and_undeclared_fails_with_the_advice():
    ok = verify_quadrature(cubature, dim=4, degree=3, unbiased=False, deterministic=True, profile="quick")
    assert ok.passed, ok.table()
    bad = verify_quadrature(cubature, dim=4, degree=3, unbiased=False, profile="quick", checks=["rule-contract"])
    assert bad["rule-contract"].status == "fail" and "--deterministic" in bad["rule-contract"].message
    unb = verify_quadrature(cubature, dim=4, degree=3, deterministic=True, profile="quick",
                            checks=["rule-unbiasedness"])
    assert unb["rule-unbiasedness"].status == "fail"  # its exact error, beyond round-off


# -- expected failures ----------------------------------------------------------------------------------
def test_cli_xfail_turns_a_known_failure_into_exit_0_and_a_stale_one_into_exit_1(tmp_path, capsys):
    base = ["check", "feature-map", "tests.mutants.rff_mutants:HalfScale", "--kernel", "rbf", "--param",
            "gamma=0.5", "--profile", "quick", "--check", "unbiasedness"]
    assert main(base) == 1
    out = tmp_path / "r.json"
    assert main(base + ["--xfail", "unbiasedness=scale bug, reported upstream", "--json", str(out)]) == 0
    assert json.loads(out.read_text())["checks"][0]["status"] == "xfail"
    good = ["check", "feature-map", "rfverify.implementations.rff:RandomFourierFeatures", "--kernel", "rbf",
            "--param", "gamma=0.5", "--profile", "quick", "--check", "unbiasedness"]
    assert main(good + ["--xfail", "unbiasedness=stale"]) == 1
    assert main(good + ["--xfail", "no-such-check=x"]) == 2
    assert main(good + ["--xfail", "unbiasedness"]) == 2
    capsys.readouterr()


def test_pytest_per_profile_xfail(pytester):
    from pathlib import Path

    root = str(Path(__file__).parent.parent)
    pytester.makepyfile("""
        import sys
        sys.path.insert(0, ROOT)
        from rfverify.pytest_plugin import parametrize_with_checks
        from tests.mutants.rff_mutants import HalfScale

        @parametrize_with_checks([HalfScale], kernel="rbf", kernel_params={"gamma": 0.5},
                                 checks=["unbiasedness"], xfail={"unbiasedness": {"quick": "scale bug"}})
        def test_map(rfverify_case):
            rfverify_case()
    """.replace("ROOT", repr(root)))
    res = pytester.runpytest_subprocess("-q", "-p", "no:randomly", "--rfverify-profile", "quick", "-p", "no:cacheprovider")
    res.assert_outcomes(xfailed=1)
    res = pytester.runpytest_subprocess("-q", "-p", "no:randomly", "--rfverify-profile", "default", "-p", "no:cacheprovider")
    res.assert_outcomes(failed=1)  # not declared at the default profile: the failure is reported
    with pytest.raises(UsageError, match="unknown profile"):
        from rfverify.pytest_plugin import parametrize_with_checks

        parametrize_with_checks([RandomFourierFeatures], **RBF, xfail={"unbiasedness": {"fast": "x"}})
