"""Nothing a plug-in does can turn a failure into a pass (tests/hostile_forgers.py): the verdict is computed in the
harness from the arrays the plug-in's process sends (:mod:`rfverify.containment.host`, :mod:`rfverify.containment.remote`).

Each forger is the 0.8 x biased map: ``unbiasedness`` fails (exit 1) through the CLI, the pytest plugin and
``rfverify.verify`` although it patches scipy's t (at import or in fit), rfverify's result type, the channel's send,
or returns an array-like that runs code and lies about its length; its correct twin passes.  A plug-in that writes on
the channel is an ``error`` (exit 2), never a pass.  Forgers are run in fresh processes (a subprocess per run): one
that patched the test process would poison every later test.
"""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest

from tests.test_hostile import ROOT, _checks_of, _cli, _env

FORGERS = ["tests.hostile_forge_import:HBiasedT", "tests.hostile_forgers:HSetsTSf",
           "tests.hostile_forgers:HPatchesResult", "tests.hostile_forgers:HWrapsSend",
           "tests.hostile_forgers:HArrayLies"]
IDS = [f.split(":")[1] for f in FORGERS]

_API = """
import json, sys
import rfverify
from tests.test_hostile import _verify
target = sys.argv[1]
if sys.argv[2] == "object":  # a live object: its module imported here (not for the import-time forger)
    import importlib
    mod, attr = target.split(":")
    target = getattr(importlib.import_module(mod), attr)
report = _verify(target, checks=sys.argv[3].split(","), time_limit=60)
import scipy.stats
print(json.dumps({"exit": report.exit_code, "checks": {r.check: [r.status, r.message] for r in report.results},
                  "imported": sys.argv[1].split(":")[0] in sys.modules,
                  "t_patched": type(scipy.stats.t).__module__ != "scipy.stats._continuous_distns"}))
"""


def _api(target, how="spec", checks=("unbiasedness",)):
    proc = subprocess.run([sys.executable, "-c", _API, target, how, ",".join(checks)], capture_output=True, text=True,
                          cwd=ROOT, env=_env(), timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("target", FORGERS, ids=IDS)
def test_a_forger_fails_on_the_cli(target, tmp_path):
    proc, _ = _cli(target, tmp_path, checks=["unbiasedness"], limit=60)
    assert proc.returncode == 1, (proc.returncode, proc.stderr[-2000:])
    by = _checks_of(tmp_path)
    assert by["unbiasedness"]["status"] == "fail", by["unbiasedness"]["message"][:600]
    assert by["unbiasedness"]["pvalue"] < 1e-10 <= by["unbiasedness"]["alpha"]


@pytest.mark.parametrize("target", FORGERS, ids=IDS)
def test_a_forger_fails_through_the_api(target):
    how = "spec" if "forge_import" in target else "object"
    got = _api(target, how)
    assert got["checks"]["unbiasedness"][0] == "fail", got
    assert got["exit"] == 1


def test_an_array_like_lying_about_its_shape_is_an_error_never_a_pass(tmp_path):
    """The same forger whose output's ``shape`` says (1, 1): refused where it is converted (the plug-in's error,
    exit 2), its scipy patch never reaching the verdict."""
    proc, _ = _cli("tests.hostile_forgers:HShapeLies", tmp_path, checks=["unbiasedness"], limit=60)
    assert proc.returncode == 2, (proc.returncode, proc.stderr[-2000:])
    by = _checks_of(tmp_path)
    assert by["unbiasedness"]["status"] == "error" and "shape says (1, 1)" in by["unbiasedness"]["message"]


def test_a_plugin_writing_into_its_input_is_reported_as_in_one_process(tmp_path):
    """The plug-in's process writes into the input it was handed: the harness's array changes too, so ``explore``
    names the in-place change (as the earlier protocol, whole checks in one process, does)."""
    proc, _ = _cli("tests.hostile_forgers:HWritesInput", tmp_path, checks=["explore"], limit=120)
    by = _checks_of(tmp_path)
    assert proc.returncode == 1 and by["explore"]["status"] == "fail", (proc.returncode, by["explore"]["message"])
    assert "modified its input array in place" in by["explore"]["message"]


def test_a_plugin_named_by_string_is_never_imported_by_the_harness():
    """The import-time forger named ``MODULE:ATTR``: its module is imported in the plug-in's process only — the
    harness's ``sys.modules`` never holds it and its scipy is untouched."""
    got = _api("tests.hostile_forge_import:HBiasedT", "spec")
    assert got["imported"] is False and got["t_patched"] is False, got
    assert got["checks"]["unbiasedness"][0] == "fail"
    live = _api("tests.hostile_forge_import:HBiasedT", "object")  # the twin: a live object's module is the caller's
    assert live["imported"] is True and live["t_patched"] is True, live


def test_the_correct_twin_passes_in_the_same_harness():
    got = _api("tests.hostile_plugins:Features", "object")
    assert got["checks"]["unbiasedness"][0] == "pass" and got["exit"] == 0, got


PYTEST_FILE = """
import sys
sys.path.insert(0, {root!r})
from rfverify.pytest_plugin import parametrize_with_checks
{imports}

@parametrize_with_checks([{names}], kernel="rbf", kernel_params={{"gamma": 0.5}}, dim=4, checks=["unbiasedness"])
def test_forgers(rfverify_case):
    rfverify_case()
"""


def test_forgers_fail_under_the_pytest_plugin(pytester):
    """Live classes (and the import-time forger by name: its module is never imported by the test process) fail;
    the correct twin passes."""
    objects = [t for t in FORGERS if "forge_import" not in t]
    imports = "\n".join(f"from {t.split(':')[0]} import {t.split(':')[1]}" for t in objects)
    names = [t.split(":")[1] for t in objects] + [repr("tests.hostile_forge_import:HBiasedT"), "Features"]
    pytester.makepyfile(PYTEST_FILE.format(root=str(ROOT), imports=imports + "\nfrom tests.hostile_plugins import "
                                           "Features", names=", ".join(names)))
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "--rfverify-profile", "quick",
                                           "--rfverify-time-limit", "60", timeout=900)
    result.assert_outcomes(failed=len(FORGERS), passed=1)
    assert result.stdout.str().count("FAIL") >= len(FORGERS)
    assert "forged" not in result.stdout.str()


def test_garbage_on_the_channel_is_the_plugins_error_and_the_rest_still_runs(tmp_path):
    """A plug-in writing a forged reply on the channel: that check is an ``error`` naming the protocol, the next check
    (a fresh process) still fails the biased map; the run exits 2 (CLI) — never 0."""
    proc, _ = _cli("tests.hostile_forgers:HRepliesGarbage", tmp_path, checks=["contract", "unbiasedness"], limit=60)
    assert proc.returncode == 2, (proc.returncode, proc.stderr[-2000:])
    by = _checks_of(tmp_path)
    assert by["contract"]["status"] == "error" and "does not fit rfverify's protocol" in by["contract"]["message"]
    assert by["unbiasedness"]["status"] == "fail"
    got = _api("tests.hostile_forgers:HRepliesGarbage", "object", ("contract", "unbiasedness"))
    assert got["checks"]["contract"][0] == "error" and got["checks"]["unbiasedness"][0] == "fail", got


# ---------------------------------------------------------------------------------------------------------------
# the wire itself: what does not fit is refused, what fits is read back exactly
# ---------------------------------------------------------------------------------------------------------------
class _Table:
    def __init__(self):
        self.objs = []

    def new(self, obj):
        return all(o is not obj for o in self.objs)

    def add(self, obj):
        self.objs.append(obj)
        return len(self.objs)


def _roundtrip(value):
    from rfverify.adapters import to_numpy
    from rfverify.containment.remote import decode, encode

    (tag, out), _ = decode(encode(value, _Table(), to_numpy), lambda h, t, c: ("handle", h, t))
    assert tag == "v"
    return out


def test_data_round_trips_exactly_and_objects_stay_behind():
    A = np.arange(12, dtype=np.float32).reshape(3, 4)
    out = _roundtrip({"A": A, "t": (1, 2.5, None, True, "x", 1 + 2j), "l": [np.float64(3.0)], "o": object()})
    assert out["A"].dtype == np.float32 and np.array_equal(out["A"], A) and out["A"].flags.writeable
    assert out["t"] == (1, 2.5, None, True, "x", 1 + 2j) and type(out["l"][0]) is np.float64
    assert out["o"][0] == "handle" and out["o"][2] == "object"
    strings = _roundtrip(np.array(["a", "b"]))
    assert strings.dtype.kind == "U"
    objects = _roundtrip(np.array([object()], dtype=object))
    assert objects.dtype == object and type(objects[0]).__name__ == "object"


@pytest.mark.parametrize("mangle,needle", [
    (lambda b: b[:-8], "fewer bytes than the arrays declare"),
    (lambda b: b + b"x", "more bytes than the arrays declare"),
    (lambda b: b"\xff\xff\xff\x7f" + b[4:], "header longer"),
    (lambda b: b[:4] + b[4:].replace(b'"<f8"', b'"|O8"'), "dtype"),
    (lambda b: b[:4] + b[4:].replace(b'"a":[[', b'"x":1,"a":[['), "header fields"),
], ids=["short", "long", "header-size", "object-dtype", "extra-field"])
def test_a_reply_that_does_not_fit_is_refused(mangle, needle):
    from rfverify.adapters import to_numpy
    from rfverify.containment.remote import ProtocolError, decode, encode

    good = encode(np.ones((2, 3)), _Table(), to_numpy)
    assert np.array_equal(decode(good, None)[0][1], np.ones((2, 3)))  # the twin is read
    bad = mangle(good)
    if bad[4:].count(b"|O8") or b'"x":1' in bad:  # the header grew: fix its length so only the content is wrong
        head = bad[4:].split(b"]]}", 1)[0] + b"]]}"
        bad = len(head).to_bytes(4, "little") + bad[4:]
    with pytest.raises(ProtocolError, match=needle):
        decode(bad, None)


class _BufferTable(_Table):
    def __init__(self):
        super().__init__()
        self.keys = {}

    def root_key(self, buf):
        return self.keys.setdefault(id(buf), len(self.keys) + 1)


def test_a_workspace_returned_again_changes_what_was_received_before():
    """A plug-in returning views of one workspace: what the harness received earlier changes when the workspace is
    written anew, as in one process (the stateful check's ReturnsWorkspace mutant); its buffer is mirrored, bounds
    checked."""
    from rfverify.adapters import to_numpy
    from rfverify.containment.remote import ProtocolError, decode, encode

    table, mirrors, ws = _BufferTable(), {}, np.zeros((4, 3))
    ws[:] = 1.0
    first = decode(encode(ws[:2], table, to_numpy), None, mirrors=mirrors)[0][1]
    ws[:] = 2.0
    second = decode(encode(ws[:3], table, to_numpy), None, mirrors=mirrors)[0][1]
    assert np.all(first == 2.0) and np.all(second == 2.0) and first.shape == (2, 3)
    fresh = decode(encode(np.ones((2, 3)), table, to_numpy), None, mirrors=mirrors)[0][1]  # its own memory
    assert np.all(fresh == 1.0) and np.all(first == 2.0)
    good = encode(ws[:2], table, to_numpy)
    head_len = int.from_bytes(good[:4], "little")
    header = good[4:4 + head_len]
    assert b",96,0,[24,8]]" in header
    bad_header = header.replace(b",96,0,[24,8]]", b",96,80,[24,8]]")
    bad = len(bad_header).to_bytes(4, "little") + bad_header + good[4 + head_len:]
    with pytest.raises(ProtocolError, match="outside its buffer"):
        decode(bad, None, mirrors={})


def test_the_whole_checks_switch_is_read_once_and_keeps_the_earlier_protocol(monkeypatch):
    """``RFVERIFY_WHOLE_CHECKS=1`` (for measuring the judge's cost) gives a configuration without a plug-in process
    (whole checks in the child); unset, the plug-in is hosted — and a value set after the settings were read
    changes nothing."""
    from rfverify.containment import supervise
    from rfverify.kinds.feature_map import FeatureMapConfig

    monkeypatch.setattr(supervise, "_FROZEN", {"RFVERIFY_INPROCESS": "", "RFVERIFY_WHOLE_CHECKS": "1"})
    whole = FeatureMapConfig("tests.hostile_plugins:Features", kernel="rbf", kernel_params={"gamma": 0.5})
    assert whole.host is None
    monkeypatch.setattr(supervise, "_FROZEN", {"RFVERIFY_INPROCESS": "", "RFVERIFY_WHOLE_CHECKS": ""})
    monkeypatch.setenv("RFVERIFY_WHOLE_CHECKS", "1")  # after the reading: no effect
    judged = FeatureMapConfig("tests.hostile_plugins:Features", kernel="rbf", kernel_params={"gamma": 0.5})
    try:
        assert judged.host is not None and judged.plugin.obj._rf_remote
    finally:
        judged.host.close()
