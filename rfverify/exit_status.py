"""How check statuses become exit codes (CLI) and test outcomes (pytest plugin): the decision in one place.

Kept apart from rendering (``results.py``) and argument handling (``cli.py``) so that mutation testing
(``.ci/mutation.py``) mutates exactly the code that decides an exit status, and its tests
(``tests/test_exit_status.py``) pin it directly.

* A check is *ok* when its status is ``pass``, ``skip`` or ``xfail`` (an expected failure that failed).
* One implementation's exit code: 2 if any check errored (the plug-in could not be exercised), else 1 if
  any check failed, else 0.
* Several implementations (``rfverify check`` with several targets, ``rfverify report``): the worst code,
  0 when there is none.
* The pytest plugin: ``pass`` returns, ``skip`` and ``xfail`` become pytest's skip and xfail, anything else
  (``fail``, ``error``) fails the test.
"""

from __future__ import annotations

from collections.abc import Iterable

__all__ = ["OK_STATUSES", "is_ok", "report_exit_code", "worst_exit_code", "plugin_outcome"]

#: Statuses that do not make a run fail.
OK_STATUSES = frozenset({"pass", "skip", "xfail"})


def is_ok(status: str) -> bool:
    """True for a status that does not fail the run (pass, skip, xfail)."""
    return status in OK_STATUSES


def report_exit_code(statuses: Iterable[str]) -> int:
    """0 all ok, 1 a check failed, 2 a check errored (an error outranks a failure)."""
    seen = set(statuses)
    if "error" in seen:
        return 2
    if "fail" in seen:
        return 1
    return 0


def worst_exit_code(codes: Iterable[int]) -> int:
    """The exit code of several reports: the worst one (2 > 1 > 0); 0 for none."""
    return max(codes, default=0)


def plugin_outcome(status: str) -> str:
    """What the pytest plugin does with a check's status: ``pass``, ``skip``, ``xfail`` or ``fail``."""
    if status in ("pass", "skip", "xfail"):
        return status
    return "fail"
