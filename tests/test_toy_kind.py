"""ARCHITECTURE.md's walk-through "Adding a plug-in kind", held to the code: a toy kind is added here by touching
exactly the places it names, registered for the length of a test only, and then works through the Python API
(``rfverify.verify(..., kind="toy")``), the command line (``rfverify check toy``, its options generated from the
kind's ``Options``) and the reproduce command of a failure, with nothing else changed.

The toy kind: a function ``total(x) -> float`` claimed equal to ``scale * sum(x)`` for vectors of length ``dim``.
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass
from typing import Any

import numpy as np
import pytest

import rfverify
from rfverify import registry
from rfverify.containment import guard
from rfverify.adapters import load_object
from rfverify.cli import build_parser, main
from rfverify.kinds import KINDS, Kind, catalogue, check_names
from rfverify.kinds.base import CliSpec, KindConfig, parse_int
from rfverify.kinds.options import make_verify, option
from rfverify.registry import BaseContext, CheckSpec, register_check
from rfverify.results import CheckResult

HERE = "tests.test_toy_kind"


# -- 1. the kind's module (rfverify/kinds/<kind>.py): Options, configuration, context, verify_<kind> -----------------
@dataclass(frozen=True)
class ToyOptions:
    """The toy kind's options, declared once."""

    dim: int = option(4, flag="--dim", cli_default="4", help="vector length d (default 4)",
                      parse=lambda text: parse_int(text, "--dim"), render=lambda c: ["--dim", str(c.dim)])
    scale: float = option(1.0, flag="--scale", cli_default="1.0", help="claimed factor (default 1.0)", parse=float,
                          render=lambda c: ["--scale", repr(c.scale)])


class ToyPlugin:
    def __init__(self, implementation: Any, name: str | None) -> None:
        self.spec = implementation if isinstance(implementation, str) else None
        self.obj = load_object(implementation) if isinstance(implementation, str) else implementation
        self.name = name or getattr(self.obj, "__name__", "total")

    def __call__(self, x: np.ndarray) -> float:
        out = guard.call(self.obj, x, plugin=self.name, action=f"total of a vector of length {len(x)}",
                         hint="total(x) returns one number")
        return float(np.asarray(out))


class ToyConfig(KindConfig):
    kind = "toy"
    Options = ToyOptions
    options: ToyOptions
    DIM_RANGE = (1, 64)
    DIM_WHY = "a toy"
    CLI = CliSpec("Verify a function total(x) claimed equal to --scale * sum(x).",
                  examples=(f"rfverify check toy {HERE}:total --dim 3",))

    def _setup(self, implementation: Any, name: str | None) -> None:
        self.dim = self.validate_dim(self.options.dim)
        self.scale = float(self.options.scale)
        self.plugin = ToyPlugin(implementation, name)

    def _context(self, spec: CheckSpec, alpha: float, reproduce: str) -> "ToyContext":
        return ToyContext(spec.name, self.profile, self.seeds, alpha, reproduce, config=self)

    def target(self) -> dict[str, Any]:
        return {"name": f"{self.scale:g} * sum(x)", "params": {"dim": self.dim}}

    def as_dict(self) -> dict[str, Any]:
        return {"dim": self.dim, "scale": self.scale}

    def preflight(self) -> str | None:
        try:
            self.plugin(np.zeros(self.dim))
        except rfverify.PluginError as exc:
            return str(exc)
        return None


@dataclass
class ToyContext(BaseContext[ToyConfig]):
    def rng(self) -> np.random.Generator:
        return self.seeds.rng("toy", self.check, self.config.dim)


verify_toy = make_verify(ToyConfig, "verify_toy", "Verify a toy total(x) against scale * sum(x).")


# -- 2. its property module (properties/<kind>_*.py): checks registered under the kind --------------------------------
def check_toy_sum(ctx: ToyContext) -> CheckResult:
    """Property: total(x) equals scale * sum(x) on random vectors.

    **Test:** 8 vectors from the check's stream, compared at a relative tolerance of 1e-12.
    """
    cfg = ctx.config
    worst = 0.0
    for _ in range(8):
        x = ctx.rng().standard_normal(cfg.dim)
        worst = max(worst, abs(cfg.plugin(x) - cfg.scale * float(np.sum(x))) / max(1.0, float(np.sum(np.abs(x)))))
    if worst > 1e-12:
        return ctx.fail("total(x) is not scale * sum(x)", f"relative error {worst:.3g}", "at most 1e-12")
    return ctx.result("pass", f"relative error {worst:.3g} <= 1e-12", statistic=worst)


# -- the implementations a test verifies: a correct one and a broken twin ----------------------------------------------
def total(x: Any) -> float:
    return float(np.sum(x))


def total_off_by_one(x: Any) -> float:
    return float(np.sum(x)) + 1.0


# -- 3. one row of the kind table (rfverify/kinds/__init__.py), here for the length of a test -------------------------
@pytest.fixture
def toy(monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setitem(registry._REGISTRY, "toy", {})  # the check's registration ends with the test too
    register_check("toy", "toy-sum", statistical=False)(check_toy_sum)
    monkeypatch.setitem(KINDS, "toy", Kind("toy", HERE, "ToyConfig", "verify_toy", (HERE,),
                                           "a function total(x) claimed equal to scale * sum(x)"))
    return "toy"


def test_the_toy_kind_runs_through_the_python_api(toy):
    assert check_names("toy") == ["toy-sum"]
    assert ("toy-sum", "toy", "deterministic", "Property: total(x) equals scale * sum(x) on random vectors.") \
        in catalogue()  # the README's check catalogue is generated from it
    good = rfverify.verify(total, kind="toy", dim=5, profile="quick")
    assert good.exit_code == 0 and good.kind == "toy" and good.target == {"name": "1 * sum(x)", "params": {"dim": 5}}
    bad = rfverify.verify(total_off_by_one, kind="toy", dim=5, profile="quick")["toy-sum"]
    assert bad.status == "fail" and bad.implementation == "total_off_by_one"
    with pytest.raises(TypeError, match="group"):  # its options are its own
        rfverify.verify(total, kind="toy", group="SO")


def test_the_toy_kind_is_a_cli_sub_command_with_its_generated_options(toy, capsys):
    args = build_parser().parse_args(["check", "toy", f"{HERE}:total", "--dim", "3", "--scale", "2.0"])
    config = ToyConfig.from_cli(args)
    assert (config.dim, config.scale) == (3, 2.0)
    assert config.reproduce("toy-sum") == (f"rfverify check toy {HERE}:total --dim 3 --scale 2.0 --seed 20261122 "
                                           "--profile default --check toy-sum")
    assert main(["check", "toy", f"{HERE}:total", "--profile", "quick", "--dim", "3"]) == 0
    assert main(["check", "toy", f"{HERE}:total_off_by_one", "--profile", "quick", "--dim", "3"]) == 1
    out = capsys.readouterr().out
    assert "total(x) is not scale * sum(x)" in out


def test_the_reproduce_command_of_a_toy_failure_reproduces_it(toy, capsys):
    failing = rfverify.verify(f"{HERE}:total_off_by_one", kind="toy", dim=6, scale=1.0, profile="quick")["toy-sum"]
    argv = shlex.split(failing.reproduce)[1:]  # rfverify check toy ...
    assert main(argv) == 1
    assert "total(x) is not scale * sum(x)" in capsys.readouterr().out


def test_without_the_row_there_is_no_toy_kind():
    """The registration above is the only one: the product knows five kinds."""
    assert "toy" not in KINDS and "toy" not in registry._REGISTRY
    with pytest.raises(rfverify.UsageError, match="unknown kind 'toy'"):
        rfverify.verify(total, kind="toy")
