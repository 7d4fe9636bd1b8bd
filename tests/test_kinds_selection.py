"""The kinds' check selection and alpha split, pinned (mutation testing of rfverify/kinds).

Every statistical check's alpha is ``profile.family_alpha / statistical_count(kind)``, fixed by the kind
table and the registry — never by the selection or the order — and the checks come in the table's order.
"""

from __future__ import annotations

import numpy as np
import pytest

from rfverify.errors import UsageError
from rfverify.implementations.orthogonal import haar_qr
from rfverify.kinds import KINDS, check_names, checks_for, get_kind, statistical_count
from rfverify.kinds.base import KindConfig, parse_int
from rfverify.kinds.orthogonal import OrthogonalConfig, verify_orthogonal
from rfverify.profiles import PROFILES

CHECKS = {
    "feature-map": ["contract", "reproducibility", "explore", "stateful", "unbiasedness", "concentration", "error-rate",
                    "adapted-approximation"],
    "orthogonal": ["orthogonality", "haar-determinant", "haar-entries", "haar-trace-moments", "haar-eigenangles",
                   "haar-invariance", "haar-screen", "explore", "stateful"],
    "transform": ["transform-exactness", "transform-linearity", "transform-input", "transform-dimension", "explore",
                  "stateful"],
    "quadrature": ["rule-contract", "exactness", "rule-unbiasedness", "efficiency", "explore", "stateful"],
    "kernel": ["kernel-symmetry", "kernel-psd", "kernel-normalisation", "kernel-composition", "explore"],
}
STATISTICAL = {"feature-map": 3, "orthogonal": 6, "transform": 0, "quadrature": 1, "kernel": 1}


def test_kind_table_order_and_rows():
    import dataclasses

    assert list(KINDS) == list(CHECKS)
    with pytest.raises(dataclasses.FrozenInstanceError):
        KINDS["kernel"].checks = ()  # type: ignore[misc]
    for name, kind in KINDS.items():
        assert kind.name == name
        assert kind.config_class().kind == name
        assert kind.verify_function().__name__ == kind.verify
        assert kind.load().__name__ == kind.module


@pytest.mark.parametrize("kind", list(CHECKS))
def test_checks_in_table_order_and_statistical_count(kind):
    assert [s.name for s in checks_for(kind)] == CHECKS[kind]
    assert check_names(kind) == CHECKS[kind]
    assert statistical_count(kind) == STATISTICAL[kind]
    assert check_names() == CHECKS["feature-map"]


@pytest.mark.parametrize("bad", ["nope", None, 3, "Feature-Map"])
def test_unknown_kind_is_a_usage_error(bad):
    with pytest.raises(UsageError, match=r"^unknown kind .*; use one of feature-map, orthogonal, transform, "
                                         r"quadrature, kernel$"):
        get_kind(bad)


@pytest.mark.parametrize("profile", list(PROFILES))
def test_alpha_is_the_family_share_of_each_statistical_check(profile):
    prof = PROFILES[profile]
    cfg = OrthogonalConfig(haar_qr, dim=4, profile=profile)
    assert cfg.alpha() == pytest.approx(prof.family_alpha / 6, rel=1e-15)
    for spec in checks_for("orthogonal"):
        assert cfg.context(spec).alpha == cfg.alpha()


def test_alpha_of_a_kind_without_statistical_checks_is_the_family_alpha():
    from rfverify.kinds.transform import TransformConfig
    from rfverify.implementations.structured import fwht

    assert TransformConfig(fwht, dim=8, profile="quick").alpha() == PROFILES["quick"].family_alpha


def test_verdict_and_alpha_do_not_depend_on_the_selection():
    one = verify_orthogonal(haar_qr, dim=4, profile="quick", checks=["haar-entries"])["haar-entries"]
    many = verify_orthogonal(haar_qr, dim=4, profile="quick",
                             checks=["haar-invariance", "haar-entries", "haar-determinant"])["haar-entries"]
    assert one.alpha == many.alpha == pytest.approx(1e-3 / 6)
    assert (one.status, one.statistic, one.pvalue) == (many.status, many.statistic, many.pvalue)


def test_reproduce_command_and_header():
    cfg = OrthogonalConfig(haar_qr, dim=4, profile="quick", seed=7)
    assert cfg.reproduce("haar-entries") == ("rfverify check orthogonal rfverify.implementations.orthogonal:haar_qr "
                                            + " ".join(cfg.reproduce_options())
                                            + " --seed 7 --profile quick --check haar-entries").replace("  ", " ")
    h = cfg.header()
    assert (h["kind"], h["seed"], h["profile"]) == ("orthogonal", 7, "quick")
    assert h["implementation"] == cfg.label == "rfverify.implementations.orthogonal:haar_qr"
    # a sampler is held to a group, not a kernel: the header says "target" (the report keeps its JSON key)
    assert h["target"] == cfg.target() == {"name": "Haar on O(4)", "params": {}} and "kernel" not in h
    assert h["config"] == cfg.as_dict()
    from rfverify.runner import report_of

    rep = report_of(h, (), None)
    assert rep.target == rep.kernel == cfg.target() and rep.to_dict()["target"] == cfg.target()
    unnamed = OrthogonalConfig(lambda d, rng: haar_qr(d, rng), dim=4, profile="quick")
    assert unnamed.reproduce("orthogonality").startswith("rfverify check orthogonal <MODULE:ATTR> ")  # unquoted


@pytest.mark.parametrize("dim", [0, -1, 1025, 2.0, True, "4", None])
def test_dimension_rule(dim):
    with pytest.raises(UsageError, match=r"^dim must be an integer in \[1, 1024\], got "):
        OrthogonalConfig.validate_dim(dim)


def test_dimension_rule_accepts_the_ends():
    assert OrthogonalConfig.validate_dim(1) == 1 and OrthogonalConfig.validate_dim(1024) == 1024
    assert OrthogonalConfig.validate_dim(np.int64(8)) == 8
    assert KindConfig.validate_dim(4096, "d") == 4096 and KindConfig.validate_dim(1, "d") == 1
    assert KindConfig.DIM_RANGE == (1, 4096)
    with pytest.raises(UsageError, match=r"^d must be"):
        KindConfig.validate_dim(4097, "d")


def test_parse_int():
    assert parse_int("12", "--n") == 12
    with pytest.raises(UsageError, match=r"^--n must be an integer, got 'x'$"):
        parse_int("x", "--n")
    with pytest.raises(UsageError):
        parse_int(None, "--n")


def test_cli_specs():
    """One target per invocation, named MODULE:ATTR, unless a kind says otherwise (feature maps take several)."""
    from rfverify.kinds.base import CliSpec

    spec = CliSpec("d")
    assert (spec.description, spec.metavar, spec.many) == ("d", "MODULE:ATTR", False)
    for name, kind in KINDS.items():
        cli = kind.config_class().CLI
        assert cli.many is (name == "feature-map")
        if name in ("orthogonal", "transform", "quadrature"):
            assert cli.metavar == "MODULE:ATTR"


def test_label_is_the_target_spec_else_the_plugins_name():
    from rfverify.implementations.orf import OrthogonalRandomFeatures
    from rfverify.kinds.feature_map import FeatureMapConfig

    assert FeatureMapConfig(OrthogonalRandomFeatures(), dim=4).label == "OrthogonalRandomFeatures"
    spec = "rfverify.implementations.orf:OrthogonalRandomFeatures"
    assert FeatureMapConfig(spec, dim=4).label == spec

    from dataclasses import dataclass

    @dataclass(frozen=True)
    class NoOptions:
        pass

    class Bare(KindConfig):
        kind = "kernel"
        Options = NoOptions
        _setup = _context = target = as_dict = preflight = lambda self, *a: None  # type: ignore[assignment]

    assert Bare(0, profile="quick").label == "implementation" and Bare(0, profile="quick").target_spec is None


def test_a_kind_is_an_abstract_config_implementing_the_runners_protocol():
    """A kind that forgets a hook cannot be instantiated (TypeError naming it), and every kind's configuration is a
    RunnableConfig, the protocol the runner relies on."""
    from rfverify.registry import RunnableConfig

    class Forgetful(KindConfig):
        kind = "kernel"

    with pytest.raises(TypeError, match="abstract method.*_context"):
        Forgetful(0, "quick")
    for name, kind in KINDS.items():
        cls = kind.config_class()
        assert issubclass(cls, KindConfig) and not getattr(cls, "__abstractmethods__", None), name
    from rfverify.kinds.feature_map import FeatureMapConfig

    assert isinstance(FeatureMapConfig("rfverify.implementations.rff:RandomFourierFeatures", dim=4), RunnableConfig)


@pytest.mark.parametrize("kind", list(KINDS))
def test_a_context_carries_its_configuration_and_names_the_plugin_as_it_does(kind):
    """Every kind's check context carries the configuration it was made from, and its ``name`` (the name in every
    result) is the configuration's ``plugin_name``, which the runner uses without building a context."""
    from tests.test_kind_options import COMMANDS, _config

    import shlex

    cfg = _config(kind, shlex.split(COMMANDS[kind])[:1])
    for spec in cfg.checks():
        ctx = cfg.context(spec)
        assert ctx.config is cfg and ctx.name == cfg.plugin_name


def test_the_check_catalogue_has_its_columns_and_is_the_readmes(capsys):
    """``rfverify list checks --format markdown`` prints the catalogue under its four headers; the README holds it."""
    from pathlib import Path

    from rfverify.cli import main

    assert main(["list", "checks", "--format", "markdown"]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[0] == "| check | kind | decided by | what it verifies |"
    assert out.strip() in (Path(__file__).resolve().parent.parent / "README.md").read_text(encoding="utf-8")


def _kind_configs(plugin_of):
    from rfverify.implementations import quadrature, structured
    from rfverify.kinds.quadrature import QuadratureConfig
    from rfverify.kinds.transform import TransformConfig

    return {"orthogonal": OrthogonalConfig(plugin_of(haar_qr), dim=4, profile="quick"),
            "quadrature": QuadratureConfig(plugin_of(quadrature.sr33_haar), dim=4, degree=3, profile="quick"),
            "transform": TransformConfig(plugin_of(structured.fwht), dim=8, profile="quick")}


def test_every_kind_names_an_importable_plug_in_in_its_reproduce_command_and_nothing_else():
    """A function or a module-level instance passed as an object (the pytest plug-in's way, and the Python API's)
    is named MODULE:ATTR in the reproduce command when importing that gives it back; a lambda, which no command
    can name, is not."""
    named = _kind_configs(lambda f: f)
    expected = {"orthogonal": "rfverify.implementations.orthogonal:haar_qr",
                "quadrature": "rfverify.implementations.quadrature:sr33_haar",  # an instance
                "transform": "rfverify.implementations.structured:fwht"}
    for kind, cfg in named.items():
        assert cfg.target_spec == cfg.label == expected[kind], kind
        assert cfg.reproduce("explore").startswith(f"rfverify check {kind} {expected[kind]} "), kind
    for kind, cfg in _kind_configs(lambda f: (lambda *a, **k: f(*a, **k))).items():
        assert cfg.target_spec is None and f" {kind} <MODULE:ATTR> " in cfg.reproduce("explore"), kind
