"""A library's first import inside a plug-in is not blamed on the plug-in (rfverify.containment.import_watch); a plug-in that
draws from a global generator is still caught, lazy import or not."""

from __future__ import annotations

import importlib
import random
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import rfverify
from rfverify.containment import guard
from rfverify.errors import PluginError

RBF = dict(kernel="rbf", kernel_params={"gamma": 0.5}, profile="quick", checks=["contract", "reproducibility"])


def _module(tmp_path, monkeypatch, name: str, body: str) -> None:
    (tmp_path / f"{name}.py").write_text(textwrap.dedent(body))
    monkeypatch.syspath_prepend(str(tmp_path))
    sys.modules.pop(name, None)
    importlib.invalidate_caches()


DRAWS_AT_IMPORT = """
    import random
    import numpy as np
    np.random.random(3)   # a library whose first import draws from both global generators
    random.random()
"""


def _plugin(draw_in_fit: bool, lib: str) -> type:
    class LazyImport:
        def __init__(self, n_components: int = 8, random_state: int | None = None) -> None:
            self.n_components, self.random_state = n_components, random_state

        def fit(self, X, y=None):
            if lib.startswith("imp:"):
                importlib.import_module(lib[4:])
            else:
                __import__(lib)
            if draw_in_fit:
                np.random.rand()  # the plug-in's own draw from numpy's global generator
            rng = np.random.default_rng(self.random_state)
            self.W_ = rng.standard_normal((X.shape[1], self.n_components))
            self.b_ = rng.uniform(0, 2 * np.pi, self.n_components)
            return self

        def transform(self, X):
            return np.sqrt(2.0 / self.n_components) * np.cos(X @ self.W_ + self.b_)

    return LazyImport


def test_a_first_import_that_draws_is_not_the_plugins_draw(tmp_path, monkeypatch):
    _module(tmp_path, monkeypatch, "rfv_draws_at_import", DRAWS_AT_IMPORT)
    np_state, py_state = np.random.get_state(), random.getstate()
    with guard.guarded("lazy", "a scope"):
        __import__("rfv_draws_at_import")
    # restored all the same
    assert random.getstate() == py_state and np.array_equal(np.random.get_state()[1], np_state[1])


def test_a_draw_after_the_import_is_still_the_plugins(tmp_path, monkeypatch):
    _module(tmp_path, monkeypatch, "rfv_draws_at_import2", DRAWS_AT_IMPORT)
    with pytest.raises(PluginError, match="changed numpy's global random state"):
        with guard.guarded("lazy", "a scope"):
            __import__("rfv_draws_at_import2")
            np.random.rand()


def test_the_callers_own_seeding_inside_the_scope_is_never_blamed(tmp_path, monkeypatch):
    _module(tmp_path, monkeypatch, "rfv_draws_at_import3", DRAWS_AT_IMPORT)
    saved = np.random.get_state()
    with guard.guarded("lazy", "a scope"):
        np.random.seed(1)  # as the reproducibility check does, restoring before the end
        importlib.import_module("rfv_draws_at_import3")
        np.random.set_state(saved)


@pytest.mark.parametrize("via", ["import", "imp:"])
def test_verify_a_plugin_importing_lazily_passes_and_its_drawing_twin_errors(tmp_path, monkeypatch, via):
    name = f"rfv_lazy_{via.strip(':')}"
    _module(tmp_path, monkeypatch, name, DRAWS_AT_IMPORT)
    lib = f"imp:{name}" if via == "imp:" else name
    ok = rfverify.verify(_plugin(False, lib), **RBF)
    assert [r.status for r in ok.results] == ["pass", "pass"], ok.table()
    sys.modules.pop(name, None)
    bad = rfverify.verify(_plugin(True, lib), **RBF)
    assert {r.status for r in bad.results} == {"error"}
    assert "changed numpy's global random state" in bad.results[-1].message


LAZY_SKLEARN = """
import numpy as np

class LazySklearn:
    def __init__(self, n_components=16, random_state=None, gamma=1.0):
        self.n_components, self.random_state, self.gamma = n_components, random_state, gamma

    def fit(self, X, y=None):
        from sklearn.kernel_approximation import RBFSampler   # first import: changes Python's random state
        self.m_ = RBFSampler(gamma=self.gamma, n_components=self.n_components,
                             random_state=self.random_state).fit(X)
        return self

    def transform(self, X):
        return self.m_.transform(X)


class LazyJax:
    def __init__(self, n_components=16, random_state=None, gamma=1.0):
        self.n_components, self.random_state, self.gamma = n_components, random_state, gamma

    def fit(self, X, y=None):
        import jax.numpy   # first import: changes numpy's global state
        rng = np.random.default_rng(self.random_state)
        self.W_ = rng.standard_normal((X.shape[1], self.n_components)) * np.sqrt(2 * self.gamma)
        self.b_ = rng.uniform(0, 2 * np.pi, self.n_components)
        return self

    def transform(self, X):
        return np.sqrt(2.0 / self.n_components) * np.cos(X @ self.W_ + self.b_)
"""


@pytest.mark.parametrize("cls,lib", [("LazySklearn", "sklearn"), ("LazyJax", "jax")])
def test_real_libraries_imported_lazily_in_fit_pass_from_the_cli(tmp_path, cls, lib):
    """A fresh interpreter (the first import really is the first): exit 0, not 2."""
    pytest.importorskip(lib, reason=f"{lib} is an optional install (the thirdparty extra or its own page in docs/ecosystem.md)")
    (tmp_path / "lazy_maps.py").write_text(LAZY_SKLEARN)
    out = subprocess.run([sys.executable, "-m", "rfverify.cli", "check", "feature-map", f"lazy_maps:{cls}", "--kernel",
                          "rbf", "--param", "gamma=0.5", "--profile", "quick", "--check", "contract", "--check",
                          "reproducibility", "--quiet"], cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "PASSED" in out.stdout
