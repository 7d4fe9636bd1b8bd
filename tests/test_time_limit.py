"""The time limit counts CPU time, not wall time.

At load 14 on the 2-core machine, ``arccos-deep-3``'s unbiasedness check reached the default profile's 600 s
wall-clock limit after 129 s of CPU and was reported ``error``: the verdict depended on the load.  The limit is
now the CPU time of the thread running the check; what uses no CPU is still ended: a **hang** (the process used
less than ``STALL_SHARE`` of a core by the time the wall clock reaches the limit) and, whatever the CPU use, the
**wall-clock backstop** at ``WALL_FACTOR`` times the limit.

A starved process is simulated by a duty cycle (busy 10 ms of CPU, then asleep 40 ms): from the CPU clock's point
of view that is exactly a process the scheduler runs a fifth of the time (load 10 on 2 cores).  Each rule has a
broken twin, the old wall-clock rule (``STALL_SHARE = 1``: anything short of a full core is "stalled"), which the
tests show failing.  No test asserts a wall-clock duration.
"""

from __future__ import annotations

import time

import pytest

import rfverify
from rfverify.containment import guard
from rfverify.errors import PluginError
from rfverify.containment.guard import Limits, guarded
from rfverify.containment.sentinel import cpu_seconds as _cpu_seconds
from rfverify.containment.supervise import GRACE, _overran
from tests import faulty_plugins as fp


def _duty_cycle(seconds: float, busy: float = 0.010, asleep: float = 0.040) -> None:
    """``busy`` s of this thread's CPU, then ``asleep`` s of sleep, for ``seconds`` of wall time."""
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        t = time.thread_time()
        while time.thread_time() - t < busy:
            pass
        time.sleep(asleep)


def _starved(limit: float) -> None:
    with guarded("starved", "check starved", Limits(time=limit, memory=None)):
        _duty_cycle(4 * limit)  # about 0.8 x limit of CPU over 4 x limit of wall time


# ---------------------------------------------------------------------------------- in the process (guard)
def test_a_starved_cpu_bound_check_is_not_ended_early():
    _starved(0.5)  # 2 s of wall time, about 0.4 s of CPU: within the limit of 0.5 s


def test_the_wall_clock_twin_ends_the_starved_check(monkeypatch):
    monkeypatch.setattr(guard, "STALL_SHARE", 1.0)  # the old rule: the limit counts wall time
    with pytest.raises(PluginError, match="did not finish within the time limit of 0.5 s"):
        _starved(0.5)


def test_a_sleeping_plugin_is_ended_as_a_hang():
    with pytest.raises(PluginError, match=r"time limit of 0.3 s .*a hang \(sleeping, waiting or deadlocked\)"):
        with guarded("sleeper", "check sleep", Limits(time=0.3, memory=None)):
            time.sleep(60)


def test_a_busy_plugin_is_ended_by_its_cpu_time():
    with pytest.raises(PluginError, match="the limit counts CPU time") as err:
        with guarded("spinner", "check spin", Limits(time=0.3, memory=None)):
            end = time.thread_time() + 120
            while time.thread_time() < end:
                pass
    used = float(str(err.value).split("it used ")[1].split(" s of CPU")[0])
    assert used >= 0.3, str(err.value)


def test_a_polling_plugin_is_ended_by_the_wall_clock_backstop(monkeypatch):
    """Neither CPU-bound nor idle (5 ms of CPU every 50 ms): ended at WALL_FACTOR x the limit of wall time."""
    monkeypatch.setattr(guard, "STALL_SHARE", 0.001)  # 10% of a core is never a hang here, whatever the load
    monkeypatch.setattr(guard, "WALL_FACTOR", 4.0)
    with pytest.raises(PluginError, match="wall-clock backstop at 4 times the limit"):
        with guarded("poller", "check poll", Limits(time=0.5, memory=None)):
            _duty_cycle(120, busy=0.005, asleep=0.045)  # 0.2 s of CPU in the backstop's 2 s


# ---------------------------------------------------------------------------------- outside (supervisor)
@pytest.mark.parametrize("cpu,process_cpu,wall,ended", [
    (3.0 + GRACE + 0.1, 3.5 + GRACE, 5.0 + GRACE, True),     # CPU over the limit (+ grace)
    (2.0, 2.0, 14.0, False),                                 # starved (14% of a core), within the CPU limit
    (0.0, 0.0, 3.0 + GRACE + 0.1, True),                     # a hang: no CPU once past the limit in wall time
    (0.0, 0.0, 3.0 + GRACE - 0.1, False),                    # not yet past the limit in wall time
    (0.0, 1.0, 3.0 + GRACE + 0.1, False),                    # the main thread waits on busy plug-in threads
    (2.0, 2.0, guard.WALL_FACTOR * 3.0 + GRACE + 0.1, True),  # the wall-clock backstop
    (None, None, 3.0 + GRACE + 0.1, True),                   # no /proc: the wall-clock limit, as before
])
def test_the_supervisor_applies_the_same_rules(cpu, process_cpu, wall, ended):
    assert _overran(3.0, cpu, process_cpu, wall) is ended


def test_the_supervisor_reads_cpu_time_from_proc():
    import os

    if _cpu_seconds(os.getpid()) is None:
        pytest.skip(reason="no /proc on this platform: the supervisor falls back to wall time")
    a, t = _cpu_seconds(os.getpid(), True), time.thread_time()
    while time.thread_time() - t < 0.3:
        pass
    assert _cpu_seconds(os.getpid(), True) - a >= 0.2  # clock ticks: 10 ms resolution


class FMStarvedOnce(fp.Features):
    """The first transform of the contract check (its single-row call) runs a duty cycle (a fifth of a core) for
    2 s of wall time: about 0.4 s of CPU, once per process."""

    done: set[int] = set()

    def transform(self, X):
        import os

        if X.shape[0] == 1 and os.getpid() not in self.done:
            self.done.add(os.getpid())
            _duty_cycle(2.0)
        return super().transform(X)


def _verify_starved():
    return rfverify.verify(FMStarvedOnce, kernel="rbf", kernel_params={"gamma": 0.5}, dim=4, profile="quick",
                           checks=["contract"], time_limit=1)


def test_a_starved_check_in_the_supervised_child_passes():
    report = _verify_starved()
    assert report["contract"].status == "pass", report["contract"].explain()


def test_the_wall_clock_twin_ends_it_in_the_child(monkeypatch):
    monkeypatch.setattr(guard, "STALL_SHARE", 1.0)  # inherited by the forked child
    report = _verify_starved()
    assert report["contract"].status == "error" and "time limit of 1 s" in report["contract"].message
