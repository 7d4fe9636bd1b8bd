"""Each kind declares its options once (a frozen ``Options`` dataclass, :mod:`rfverify.kinds.options`): the command
line, the reproduce command and the Python signature are generated from it and agree with one another."""

from __future__ import annotations

import inspect
import shlex
from dataclasses import dataclass, fields

import pytest

import rfverify
from rfverify.cli import build_parser
from rfverify.errors import UsageError
from rfverify.kinds import KINDS, get_kind
from rfverify.kinds.options import RUN_KEYWORDS, option, public_fields, render

#: A command line per kind that sets most of its options (every reproduce string these give is pinned elsewhere).
COMMANDS = {
    "feature-map": "rfverify.implementations.rff:RandomFourierFeatures --param gamma=0.5 --dim 4 --domain sphere "
                   "--bound 1.5 --biased --bias-bound 0.1 --data-dependent --deterministic --init a=1 --global-seed "
                   "numpy --jit --method transform --width m --feature-scale 1 --n-components 3 --dtype float32 "
                   "--pin d=2 --param-name random_state=",
    "orthogonal": "rfverify.implementations.orthogonal:haar_qr --dim 4 --group SO --pin d=3 --call-kw dtype=float64",
    "transform": "rfverify.implementations.structured:fwht --dim 8 --matrix hadamard-normalized --inplace",
    "quadrature": "rfverify.implementations.quadrature:sr33_haar --dim 4 --degree 3 --biased --deterministic",
    "kernel": "rbf --param gamma=0.5 --dim 4 --domain sphere --not-normalized --not-psd",
}


def _config(kind: str, argv: list[str]):
    args = build_parser().parse_args(["check", kind, *argv])
    if isinstance(args.target, list):
        args.target = args.target[0]
    return get_kind(kind).config_class().from_cli(args)


def _round_trip(kind: str, argv: list[str]) -> tuple[str, str]:
    """The reproduce command of the configuration ``argv`` gives, and that of the configuration it gives."""
    first = _config(kind, argv).reproduce("contract")
    again = shlex.split(first)[3:]  # rfverify check KIND ...
    return first, _config(kind, again).reproduce("contract")


@pytest.mark.parametrize("kind", list(KINDS))
def test_the_reproduce_command_gives_back_the_same_configuration(kind):
    first, second = _round_trip(kind, shlex.split(COMMANDS[kind]))
    assert first == second
    for token in shlex.split(COMMANDS[kind])[1:]:
        if token.startswith("--"):  # every option given is echoed
            assert token in first, (token, first)


@pytest.mark.parametrize("kind", list(KINDS))
def test_the_verify_signature_is_the_options_and_the_runs(kind):
    row = KINDS[kind]
    cls = row.config_class()
    params = inspect.signature(row.verify_function()).parameters
    want = {cls.TARGET, *(f.name for f in public_fields(cls.Options)), "seed", "profile", "name", *RUN_KEYWORDS}
    assert set(params) - {"metrics"} == want
    for f in public_fields(cls.Options):
        assert params[f.name].default == f.default and params[f.name].kind is inspect.Parameter.KEYWORD_ONLY
    with pytest.raises(TypeError, match="no_such_option"):
        row.verify_function()("x", no_such_option=1)


def test_verify_dispatches_on_kind():
    rep = rfverify.verify("rfverify.implementations.orthogonal:haar_qr", kind="orthogonal", dim=4, profile="quick",
                          checks=["orthogonality"])
    assert rep.kind == "orthogonal" and rep.exit_code == 0
    with pytest.raises(UsageError, match="unknown kind"):
        rfverify.verify("x", kind="sampler")
    with pytest.raises(TypeError, match="group"):  # an orthogonal option is not a feature map's
        rfverify.verify("rfverify.implementations.rff:RandomFourierFeatures", group="SO")


def test_an_option_without_its_reproduce_rendering_breaks_the_round_trip():
    """The round trip above fails where a field forgets its part of the reproduce command (a broken twin of the
    orthogonal kind's options: --group is parsed but not rendered), and holds on the kind's own declaration."""
    from rfverify.kinds.orthogonal import OrthogonalConfig, OrthogonalOptions

    @dataclass(frozen=True)
    class Forgetful(OrthogonalOptions):
        group: str = option("O", flag="--group", cli_default="O", choices=["O", "SO"], help="declared group")

    class Broken(OrthogonalConfig):
        Options = Forgetful

    argv = ["rfverify.implementations.orthogonal:haar_qr", "--group", "SO"]
    args = build_parser().parse_args(["check", "orthogonal", *argv])
    good, bad = OrthogonalConfig.from_cli(args), Broken.from_cli(args)
    assert bad.group == good.group == "SO"
    assert "--group SO" in " ".join(render(good)) and "--group" not in " ".join(render(bad))
    assert [f.name for f in fields(Forgetful)] == [f.name for f in fields(OrthogonalOptions)]


def test_every_hook_a_kind_provides_is_abstract():
    """A kind that forgets one of its hooks cannot be instantiated (it would otherwise inherit a hook that does
    nothing and returns None)."""
    from rfverify.kinds.base import KindConfig

    assert KindConfig.__abstractmethods__ == frozenset({"_setup", "_context", "target", "as_dict", "preflight"})


@pytest.mark.parametrize("kind", [k for k in KINDS if "input" in {f.name for f in public_fields(
    get_kind(k).config_class().Options)}])
def test_the_input_and_space_options_read_from_the_command_line(kind):
    """--input: numpy (given or not) is None, another library its name; --space: the caller's narrowing, parsed."""
    cls = get_kind(kind).config_class()
    target = shlex.split(COMMANDS[kind])[:1]

    def read(*argv):
        return cls.cli_options(build_parser().parse_args(["check", kind, *target, *argv]))

    assert read()["input"] is None and read("--input", "numpy")["input"] is None
    assert read("--input", "torch")["input"] == "torch" and read("--input", "jax")["input"] == "jax"
    assert not read()["space"]
    assert read("--space", "d=3:5")["space"] == {"d": (3, 5)}


def test_a_strict_space_is_in_every_context_and_reproduce_command():
    """``strict_space`` (set by the run: --strict-space, ``strict_space=``) reaches each check's context and its
    reproduce command; a check's figures reach its context."""
    config = _config("orthogonal", shlex.split(COMMANDS["orthogonal"]))
    spec = next(s for s in config.checks() if s.name == "explore")
    assert config.context(spec).strict_space is False and "--strict-space" not in config.reproduce("explore")
    config.strict_space = True
    ctx = config.context(spec)
    assert ctx.strict_space is True and "--strict-space" in shlex.split(config.reproduce("explore"))
    drawn = next(s for s in config.checks() if s.figures)
    assert config.context(drawn).figures == drawn.figures != ()
