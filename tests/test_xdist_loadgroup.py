"""``--dist loadgroup`` keeps all checks of one implementation on one pytest-xdist worker.

Verified with the releases pip installs today (pytest 9.0, pytest-xdist 3.8): ``parametrize_with_checks`` marks
each item ``xdist_group("rfverify:<label>")`` and xdist's LoadGroupScheduling sends a group to one worker.
pytest-xdist#1386 (groups split across workers) was reported against pytest's development branch; it does
not affect the released pytest 9.0.x (this test ran green on it), so no upper pin is needed.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

pytest.importorskip("xdist", reason="pytest-xdist is in the test extra: pip install -e '.[test]'")

BODY = """
import sys
sys.path.insert(0, {root!r})
from rfverify.implementations.structured import fwht
from rfverify.implementations.orthogonal import haar_qr, haar_householder
from rfverify.pytest_plugin import parametrize_with_checks

@parametrize_with_checks([fwht], kind="transform", dim=8)
def test_transforms(rfverify_case):
    rfverify_case()

@parametrize_with_checks([haar_qr, haar_householder], kind="orthogonal", dim=4, checks=["orthogonality",
                         "haar-determinant"])
def test_samplers(rfverify_case):
    rfverify_case()
"""


def _workers(stdout: str) -> dict[str, set[str]]:
    """implementation label -> the workers that ran its items, from ``-v`` lines ``[gw0] [ 50%] PASSED ...``."""
    out: dict[str, set[str]] = {}
    for m in re.finditer(r"\[(gw\d+)\][^\n]*?(?:PASSED|FAILED|SKIPPED|ERROR|XFAIL)[^\n]*?::\w+\[(\w+)\[", stdout):
        out.setdefault(m.group(2), set()).add(m.group(1))
    return out


def test_loadgroup_keeps_an_implementation_on_one_worker(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(BODY.format(root=str(Path(__file__).resolve().parent.parent)))
    result = pytester.runpytest_subprocess("-n", "2", "--dist", "loadgroup", "-v", "-p", "no:cacheprovider",
                                           "-p", "no:randomly", "--rfverify-profile", "quick")
    text = result.stdout.str()
    workers = _workers(text)
    assert set(workers) == {"fwht", "haar_qr", "haar_householder"}, text[-2000:]
    split = {label: sorted(w) for label, w in workers.items() if len(w) != 1}
    assert not split, f"--dist loadgroup split an implementation's checks over workers: {split}"
    assert len(set().union(*workers.values())) == 2, "the implementations were not spread over both workers"
    outcomes = result.parseoutcomes()
    assert outcomes.get("passed", 0) >= 6 and not outcomes.get("failed"), outcomes


def test_the_worker_parser_sees_a_split() -> None:
    """The twin: lines where one implementation ran on two workers are reported as a split."""
    lines = ("[gw0] [ 25%] PASSED test_x.py::test_t[fwht[transform-exactness]]\n"
             "[gw1] [ 50%] PASSED test_x.py::test_t[fwht[transform-contract]]\n")
    assert _workers(lines) == {"fwht": {"gw0", "gw1"}}
