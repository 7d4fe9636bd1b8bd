"""Bad input from users, fuzzed with hypothesis over the CLI and the Python API.

The CLI must answer every wrong command with exactly one line on stderr, ``rfverify: error: ...``, exit
code 2 and no traceback; the Python API (``verify``, ``verify_orthogonal``, ``verify_transform``,
``verify_quadrature``) with a one-line :class:`UsageError`.  Each test corrupts one option of an otherwise
valid, cheap command (quick profile, one fast check, the small correct plug-ins of tests/faulty_plugins.py)
with strategies that mostly generate invalid values plus a few valid ones; a valid value must give a
normal run (exit 0 or 1, a Report).  Module names made up by the fuzzer are only used when no such module
exists (nothing real is imported).  Deterministic (``derandomize=True``) and modest (``max_examples``
below) so CI is neither slow nor flaky.
"""

from __future__ import annotations

import re

import contextlib
import importlib.util
import io
import string

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from rfverify.cli import main
from rfverify.errors import UsageError
from rfverify.kinds.orthogonal import verify_orthogonal
from rfverify.kinds.quadrature import verify_quadrature
from rfverify.results import Report
from rfverify.kinds.feature_map import verify
from rfverify.kinds.transform import verify_transform

FUZZ = settings(max_examples=30, derandomize=True, deadline=None, database=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])

# A valid, cheap command per kind; the fuzzer replaces one option (or the target) at a time.
BASE = {
    "feature-map": ("tests.faulty_plugins:Features", {"--param": "gamma=0.5", "--dim": "3", "--domain": "gaussian",
                                                "--check": "contract"}),
    "orthogonal": ("tests.faulty_plugins:orthogonal", {"--dim": "3", "--group": "O", "--check": "orthogonality"}),
    "transform": ("tests.faulty_plugins:hadamard", {"--dim": "4", "--matrix": "hadamard", "--check": "transform-input"}),
    "quadrature": ("tests.faulty_plugins:mc_rule", {"--dim": "3", "--degree": "0", "--check": "rule-contract"}),
}
COMMON = {"--seed": "7", "--profile": "quick"}


def _missing_module(name: str) -> bool:
    top = name.split(".")[0]
    try:
        return importlib.util.find_spec(top) is None
    except (ImportError, ValueError):
        return True


IDENT = st.text(string.ascii_letters + "_", min_size=1, max_size=6).filter(str.isidentifier)
#: MODULE:ATTR specs: malformed text, absent modules, and real modules with missing or unusable attributes.
SPECS = st.one_of(
    st.text(max_size=12),
    st.builds(lambda m, a: f"{m}:{a}", st.text(max_size=8), st.text(max_size=8)),
    st.builds(lambda m, a: f"rfv_fuzz_absent_{m}:{a}", IDENT, IDENT),
    st.builds(lambda m, a: f"{m}:{a}", st.sampled_from(["math", "os.path", "tests.faulty_plugins", "rfverify.kernels"]),
              st.one_of(IDENT, st.sampled_from(["pi", "sqrt", "join", "SAFETY_CAP", "MAX_DIM", "__name__"]))),
).filter(lambda s: ":" not in s or s.count(":") != 1 or _missing_module(s.split(":")[0])
         or s.split(":")[0] in ("math", "os.path", "tests.faulty_plugins", "rfverify.kernels"))

TEXT = st.text(max_size=10)
INTS = st.one_of(st.integers(-10, 0), st.integers(10**5, 10**30)).map(str)
NUMBERS = st.one_of(st.floats(allow_nan=True, allow_infinity=True).map(repr), st.integers(-10**6, 10**6).map(str))

#: Strategies for the value of each option: mostly invalid, with a few valid values mixed in.
OPTION_VALUES = {
    "--dim": st.one_of(TEXT, INTS, st.sampled_from(["2", "4", "1.0", "0x10", " 3"])),
    "--seed": st.one_of(TEXT, st.integers(-10**9, -1).map(str), NUMBERS, st.sampled_from(["0", "123"])),
    "--profile": st.one_of(TEXT, st.sampled_from(["quick", "Quick", "fast", ""])),
    "--param": st.one_of(TEXT, st.builds(lambda k, v: f"{k}={v}", st.one_of(IDENT, TEXT),
                                         st.one_of(TEXT, NUMBERS)),
                         st.sampled_from(["gamma=0.5", "gamma=-1", "gamma=nan", "gamma", "=1", "gamma=1j"])),
    "--domain": st.one_of(TEXT, SPECS, st.sampled_from(["sphere", "cube", "tests.faulty_plugins:mc_rule"])),
    "--kernel": st.one_of(TEXT, SPECS, st.sampled_from(["rbf", "laplacian", "gauss", "math:sqrt"])),
    "--bound": st.one_of(TEXT, NUMBERS, st.sampled_from(["1.5", "-1", "0", "inf", "1e400"])),
    "--check": st.one_of(TEXT, st.sampled_from(["contract", "haar", "exactness", "unbiasedness "])),
    "--time-limit": st.one_of(TEXT, NUMBERS, st.sampled_from(["600", "0", "-5", "1e-9", "nan"])),
    "--memory-limit": st.one_of(TEXT, NUMBERS, st.sampled_from(["4G", "0", "1K", "12X", "-1G", "1e3T"])),
    "--group": st.one_of(TEXT, st.sampled_from(["O", "SO", "U", "o"])),
    "--matrix": st.one_of(TEXT, SPECS, st.sampled_from(["hadamard", "hadamard-normalized", "dct",
                                                        "tests.faulty_plugins:hadamard", "math:pi"])),
    "--degree": st.one_of(TEXT, INTS, st.sampled_from(["0", "-1", "12", "3.5"])),
}
KIND_OPTIONS = {
    "feature-map": ["--dim", "--seed", "--profile", "--param", "--domain", "--kernel", "--bound", "--check",
                    "--time-limit", "--memory-limit"],
    "orthogonal": ["--dim", "--group", "--seed", "--profile", "--check", "--time-limit"],
    "transform": ["--dim", "--matrix", "--seed", "--check", "--memory-limit"],
    "quadrature": ["--dim", "--degree", "--seed", "--profile", "--check"],
}


def run_cli(argv: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(argv)
    return code, out.getvalue(), err.getvalue()


def assert_clean(argv: list[str], code: int, out: str, err: str) -> None:
    """Exit 2 with one 'rfverify: error:' line on stderr, or a normal run (0/1); never a traceback."""
    assert "Traceback" not in out + err, (argv, err)
    if code == 2:  # progress lines ("[1/1] name / check: error (1.2 s)") may come first on a slow run
        lines = [x for x in err.strip().splitlines() if not re.match(r"\[\d+/\d+\] ", x)]
        assert len(lines) == 1 and lines[0].startswith("rfverify: error: "), (argv, err)
    else:
        assert code in (0, 1) and ("PASSED" in out or "FAILED" in out), (argv, code, out, err)


def _argv(kind: str, target: str, options: dict[str, str]) -> list[str]:
    argv = ["check", kind, target]
    for opt, value in {**COMMON, **options}.items():
        argv += [opt, value]
    return argv


@pytest.mark.parametrize("kind", list(BASE))
@FUZZ
@given(data=st.data())
def test_cli_one_bad_option(kind, data):
    target, options = BASE[kind]
    option = data.draw(st.sampled_from(KIND_OPTIONS[kind]), label="option")
    value = data.draw(OPTION_VALUES[option], label="value")
    assume(not value.startswith("-"))  # argparse would read it as an option: see test_cli_option_like_values
    argv = _argv(kind, target, {**options, option: value})
    assert_clean(argv, *run_cli(argv))


@pytest.mark.parametrize("kind", list(BASE))
@FUZZ
@given(spec=SPECS)
def test_cli_bad_module_attr(kind, spec):
    assume(not spec.startswith("-"))
    argv = _argv(kind, spec, BASE[kind][1])
    assert_clean(argv, *run_cli(argv))


@pytest.mark.parametrize("argv", [
    ["check", "feature-map", "tests.faulty_plugins:Features", "--dim", "-3"],
    ["check", "feature-map", "tests.faulty_plugins:Features", "--seed", "-1"],
    ["check", "orthogonal", "tests.faulty_plugins:orthogonal", "--time-limit", "-5"],
    ["check", "feature-map", "-x"],
    ["check", "feature-map", "tests.faulty_plugins:Features", "--no-such-option"],
    ["check"], ["check", "nope", "x:y"], ["nope"], [], ["report"], ["report", "--only", "no-such-entry"],
    ["report", "--all", "--time-limit", "5"], ["list", "everything"],
    ["check", "feature-map", "tests.faulty_plugins:Features", "--check", "contract", "--json", "/nonexistent/dir/r.json"],
    ["check", "transform", "tests.faulty_plugins:hadamard", "--dim", "12"],
    ["check", "transform", "tests.faulty_plugins:hadamard", "--dim", "4", "--matrix", "tests.faulty_plugins:Features"],
    ["check", "feature-map", "tests.faulty_plugins:Features", "--kernel", "math:sqrt", "--check", "contract"],
    ["check", "feature-map", "tests.faulty_plugins:Features", "--param", "gamma=1", "--param", "gamma=x"],
])
def test_cli_option_like_values_and_bad_commands(argv):
    assert_clean(argv, *run_cli(argv))
    assert run_cli(argv)[0] == 2


# ---------------------------------------------------------------------------------------------------
# Python API
# ---------------------------------------------------------------------------------------------------
JUNK = st.one_of(st.none(), st.booleans(), st.integers(-10**20, 10**20), st.floats(), TEXT,
                 st.lists(st.integers(), max_size=3), st.dictionaries(TEXT, st.integers(), max_size=2),
                 st.binary(max_size=4), st.just(np.zeros(2)), st.just(object()))

API = {
    "verify": (verify, "tests.faulty_plugins:Features", {"kernel_params": {"gamma": 0.5}, "dim": 3, "checks": ["contract"]},
               ["kernel", "kernel_params", "dim", "domain", "bound", "unbiased", "bias_bound", "seed", "profile",
                "checks", "xfail", "name", "time_limit", "memory_limit"]),
    "verify_orthogonal": (verify_orthogonal, "tests.faulty_plugins:orthogonal", {"dim": 3, "checks": ["orthogonality"]},
                          ["dim", "group", "seed", "profile", "checks", "xfail", "name", "time_limit"]),
    "verify_transform": (verify_transform, "tests.faulty_plugins:hadamard", {"dim": 4, "checks": ["transform-input"]},
                         ["dim", "matrix", "inplace", "seed", "profile", "checks", "xfail", "name", "memory_limit"]),
    "verify_quadrature": (verify_quadrature, "tests.faulty_plugins:mc_rule", {"dim": 3, "checks": ["rule-contract"]},
                          ["dim", "degree", "unbiased", "seed", "profile", "checks", "xfail", "name"]),
}
#: Valid values mixed into the API fuzz, per keyword.
VALID = {"dim": st.integers(1, 4), "seed": st.integers(0, 10**6), "profile": st.just("quick"),
         "unbiased": st.booleans(), "inplace": st.booleans(), "group": st.sampled_from(["O", "SO"]),
         "degree": st.integers(0, 1), "name": IDENT, "time_limit": st.just(600), "memory_limit": st.just("4G"),
         "kernel": st.sampled_from(["rbf", "laplacian"]), "matrix": st.just("hadamard")}


def call_api(fn, target, kwargs):
    try:
        report = fn(target, **kwargs)
    except UsageError as exc:
        assert "\n" not in str(exc) and str(exc).strip(), repr(str(exc))
        return None
    assert isinstance(report, Report)
    return report


@pytest.mark.parametrize("api", list(API))
@FUZZ
@given(data=st.data())
def test_api_one_bad_argument(api, data):
    fn, target, base, keys = API[api]
    key = data.draw(st.sampled_from(keys), label="keyword")
    value = data.draw(st.one_of(JUNK, VALID.get(key, JUNK)), label="value")
    call_api(fn, target, {"profile": "quick", **base, key: value})


@pytest.mark.parametrize("api", list(API))
@FUZZ
@given(target=st.one_of(SPECS, JUNK))
def test_api_bad_implementation(api, target):
    fn, _, base, _ = API[api]
    report = call_api(fn, target, {"profile": "quick", **base})
    if report is not None:  # a real callable that is not a plug-in: its calls fail, the harness does not
        assert report.exit_code in (0, 1, 2)


@pytest.mark.parametrize("fn,kwargs,needle", [
    (verify, {"unbiased": "no"}, "unbiased must be True or False"),
    (verify, {"checks": "contract"}, "checks=['contract']"),
    (verify, {"xfail": ["contract"]}, "xfail must be a mapping"),
    (verify, {"kernel_params": {1: 2}}, "keys must be parameter names"),
    (verify, {"bound": True}, "bound must be a positive number"),
    (verify_transform, {"inplace": "yes"}, "inplace must be True or False"),
    (verify_transform, {"matrix": np.array([["a"]])}, "must hold real numbers"),
    (verify_quadrature, {"unbiased": 1}, "unbiased must be True or False"),
    (verify_orthogonal, {"name": ""}, "name must be a non-empty string"),
])
def test_api_bad_values_found_by_the_fuzzer(fn, kwargs, needle):
    target = {verify: "tests.faulty_plugins:Features", verify_transform: "tests.faulty_plugins:hadamard",
              verify_quadrature: "tests.faulty_plugins:mc_rule", verify_orthogonal: "tests.faulty_plugins:orthogonal"}[fn]
    with pytest.raises(UsageError, match=None) as info:
        fn(target, profile="quick", **kwargs)
    assert needle in str(info.value)
