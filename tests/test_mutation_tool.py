"""The mutation-testing tool (.ci/mutation.py) and its report's place in the index.

Cheap parts only: module names, mutant enumeration, the forked runner on a tiny mutant, classification
against the equivalents list (a survivor not listed fails ``check``, a listed one that is now killed is
stale), and the index/SUMMARY link to ``mutation.md``.  The full run is ``python .ci/mutation.py run``.
"""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
pytest.importorskip("mutmut", reason="the `mutation` extra (mutmut 2.x) is not installed")


@pytest.fixture(scope="module")
def tool():
    spec = importlib.util.spec_from_file_location("rfverify_ci_mutation", ROOT / ".ci" / "mutation.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_configuration_names_existing_modules_and_tests(tool):
    cfg = tool.load_config()
    assert set(cfg["fast"]) <= set(cfg["modules"])
    for path, args in cfg["modules"].items():
        assert (ROOT / path).is_file(), path
        for a in args:
            assert (ROOT / a.split("::")[0]).is_file(), a
    data = json.loads((ROOT / cfg["equivalents"]).read_text())
    for e in data["equivalent"]:
        assert set(e) == {"module", "line", "mutant", "reason"} and e["reason"].strip(), e
        assert e["module"] in cfg["modules"], e
        line = e["line"].split(" (")[0] if e["line"].startswith("@") else e["line"]  # "@decorator (def f...)"
        assert line in [ln.strip() for ln in (ROOT / e["module"]).read_text().splitlines()], \
            f"equivalent mutant's line no longer in {e['module']}: {e['line']!r} (remove the entry)"


def test_module_names_follow_package_dir(tool):
    assert tool.module_name("rfverify/stats.py") == "rfverify.stats"
    assert tool.module_name("properties/haar.py") == "rfverify.properties.haar"
    assert tool.module_name("rfverify/kinds/__init__.py") == "rfverify.kinds"
    assert tool.module_name("implementations/rff.py") == "rfverify.implementations.rff"


def test_mutants_are_mutmuts_one_change_each(tool):
    ms = tool.mutants("rfverify/seeding.py")
    assert len(ms) > 10
    for m in ms:
        assert m["line"] != m["mutant"] or m["mutant"] == "<multi-line mutation>"
        assert m["source"] != (ROOT / "rfverify/seeding.py").read_text()
    assert any(m["line"].startswith("DEFAULT_SEED") for m in ms)


def test_forked_runner_kills_a_mutant_and_passes_the_original(tool):
    """The runner's verdict on one real mutant (DEFAULT_SEED changed) and on the unmutated module."""
    args = ["tests/test_seeding.py::test_default_seed"]
    assert tool._run_one(None, None, None, args, None)[0] == "passed"
    m = next(m for m in tool.mutants("rfverify/seeding.py") if m["line"].startswith("DEFAULT_SEED"))
    assert tool._run_one("rfverify.seeding", "rfverify/seeding.py", m["source"], args, 120)[0] == "failed"
    # the working tree is never written
    assert "DEFAULT_SEED = 20261122" in (ROOT / "rfverify/seeding.py").read_text()


def test_the_calls_of_each_test_are_recorded_in_forked_children_too(tool, tmp_path):
    """The in-session phase runs per mutant only the tests that called a function it changes: the recording
    names each top-level function once per test, in the process and in the forks the checks run in (nested
    code under its outermost function: a swap replaces that one)."""
    import os
    import sys
    import threading

    import rfverify.seeding as seeding

    out = os.open(tmp_path / "calls.tsv", os.O_WRONLY | os.O_APPEND | os.O_CREAT)
    seen: set = set()
    try:
        tool._profile_calls(seeding.__file__, seen, 3, out)
        seeding.stable_words(1)
        seeding.stable_words(2)  # a second call in the same test: no second line
        pid = os.fork()
        if pid == 0:
            seeding.SeedSource(7).rng("k")
            os._exit(0)
        os.waitpid(pid, 0)
        tool._profile_calls(seeding.__file__, seen, 4, out)
        t = threading.Thread(target=seeding.SeedSource, args=(1,))  # a thread the test starts
        t.start()
        t.join()
    finally:
        sys.setprofile(None)
        threading.setprofile(None)
        os.close(out)
    lines = (tmp_path / "calls.tsv").read_text().splitlines()
    # (a dataclass's generated __init__ is compiled from "<string>": not the module's code, never swapped)
    assert sorted(lines) == sorted(["3\tstable_words", "3\tSeedSource.rng", "3\tSeedSource.sequence",
                                    "3\tSeedSource.__post_init__", "4\tSeedSource.__post_init__"]), lines
    assert tool._outermost("f.<locals>.g.<locals>.<lambda>") == "f" and tool._outermost("C.m") == "C.m"


def _results(statuses):
    return {"modules": {"rfverify/stats.py": {"tests": ["t"], "seconds": 1.0, "baseline_seconds": 0.1, "mutants": [
        {"line_number": i + 1, "line": f"x = {i}", "index": 0, "mutant": f"x = {i + 1}", "status": s, "seconds": 0.1}
        for i, s in enumerate(statuses)]}}}


def test_classify_check_and_stale_equivalents(tool, monkeypatch, capsys):
    listed = {("rfverify/stats.py", "x = 1", "x = 2"): "why 1", ("rfverify/stats.py", "x = 2", "x = 3"): "why 2"}
    monkeypatch.setattr(tool, "equivalents", lambda: listed)
    c = tool.classify(_results(["killed", "survived", "timeout", "survived"]))["rfverify/stats.py"]
    assert (c["total"], c["killed"], c["timeouts"]) == (4, 2, 1)
    assert [m["line"] for m, _ in c["equivalent"]] == ["x = 1"]
    assert [m["line"] for m in c["survived"]] == ["x = 3"]
    assert c["stale"] == [("rfverify/stats.py", "x = 2", "x = 3")]  # listed, but the tests kill it now
    assert c["score"] == pytest.approx(2 / 3)
    monkeypatch.setattr(tool, "load_results", lambda: _results(["killed", "survived", "killed", "killed"]))
    assert tool.cmd_check(None) == 1  # x = 2 is listed as equivalent but killed: stale
    monkeypatch.setattr(tool, "equivalents", lambda: {("rfverify/stats.py", "x = 1", "x = 2"): "why"})
    assert tool.cmd_check(None) == 0
    monkeypatch.setattr(tool, "load_results", lambda: _results(["survived", "survived"]))
    assert tool.cmd_check(None) == 1  # x = 0 survived, unexplained
    out = capsys.readouterr().out
    assert "SURVIVED rfverify/stats.py:1: x = 0  ->  x = 1" in out and "STALE" in out


def test_index_and_summary_link_the_mutation_report(tmp_path):
    from rfverify.report.writing import mutation_summary, write_reports
    from rfverify.results import CheckResult, Report

    res = (CheckResult(check="contract", implementation="x", status="pass", message="ok", seed=1, reproduce="r"),)
    rep = Report(implementation="x", kind="feature-map", target={}, seed=1, profile="quick", config={},
                 results=res, version="0")
    write_reports(tmp_path, [("x", rep)], seed=1, profile="quick")
    assert mutation_summary(tmp_path) is None
    assert "mutation.md" not in (tmp_path / "index.html").read_text()
    (tmp_path / "mutation.md").write_text("# M\n\nTotal: **10 mutants, 9 killed, 1 equivalent, 0 survived — "
                                          "score 100.0%** (target >= 95%).\n")
    write_reports(tmp_path, [("x", rep)], seed=1, profile="quick")
    assert mutation_summary(tmp_path)["headline"].startswith("10 mutants, 9 killed")
    html = (tmp_path / "index.html").read_text()
    assert 'href="mutation.md"' in html and "10 mutants, 9 killed" in html
    assert "[mutation.md](mutation.md)" in (tmp_path / "SUMMARY.md").read_text()


def test_results_are_stored_per_module_and_merged(tool, tmp_path, monkeypatch):
    """``run --module M`` replaces M's rows only; ``merge`` folds a parallel worker's file in; one mutant a line."""
    main, other = tmp_path / "results.json", tmp_path / "worker.json"
    monkeypatch.setenv(tool.RESULTS_ENV, str(main))
    a = {**_results(["killed", "survived"])["modules"]["rfverify/stats.py"], "module": "rfverify/stats.py"}
    tool.store_modules([a])
    b = {**a, "module": "rfverify/seeding.py", "mutants": a["mutants"][:1]}
    tool.store_modules([b], other)
    assert tool.cmd_merge(type("A", (), {"files": [str(other)]})()) == 0
    got = tool.load_results()["modules"]
    assert list(got) == ["rfverify/stats.py", "rfverify/seeding.py"]  # the configuration's order
    assert got["rfverify/stats.py"]["mutants"] == a["mutants"] and got["rfverify/seeding.py"]["mutants"] == b["mutants"]
    a2 = {**a, "mutants": a["mutants"][:1]}  # a rerun of stats.py replaces its rows, keeps seeding.py's
    tool.store_modules([a2])
    got = tool.load_results()["modules"]
    assert len(got["rfverify/stats.py"]["mutants"]) == 1 and len(got["rfverify/seeding.py"]["mutants"]) == 1
    text = main.read_text()
    assert text.count('"status"') == 2 and all(ln.count('"status"') <= 1 for ln in text.splitlines())


def test_committed_report_is_generated_from_the_committed_results(tool, tmp_path, monkeypatch):
    """reports/mutation.md is exactly what ``report`` writes from reports/mutation-results.json (nothing hand-edited,
    nothing lost: every unexplained survivor is in its "Surviving mutants" table) and no listed equivalent is stale.
    The score against the issue's target (95% after equivalents) is the report's headline, per module in its table."""
    monkeypatch.delenv(tool.RESULTS_ENV, raising=False)
    cfg = tool.load_config()
    assert (ROOT / cfg["results"]).is_file(), "the per-mutant results behind reports/mutation.md are not committed"
    out = tmp_path / "mutation.md"
    assert tool.cmd_report(type("A", (), {"out": str(out)})()) == 0
    assert out.read_text() == (ROOT / cfg["report"]).read_text(), \
        "reports/mutation.md is stale: run `python .ci/mutation.py report`"
    cls = tool.classify(tool.load_results())
    assert not [k for c in cls.values() for k in c["stale"]], "a listed equivalent is killed now: remove it"


def test_recheck_follows_an_edited_module(tool, monkeypatch):
    """``run --recheck`` after the module was edited: a survivor is found by its line's text where its number
    moved, a killed mutant keeps its verdict untested, a mutant of a new line is tested, a gone one is dropped."""
    prev = _results(["survived", "killed", "survived"])
    prev["modules"]["rfverify/stats.py"]["module"] = "rfverify/stats.py"
    now = [  # a line inserted at the top: every old line moved down by one; "x = 2" was deleted
        {"line_number": 1, "line": "y = 0", "index": 0, "mutant": "y = 1", "source": "new"},
        {"line_number": 2, "line": "x = 0", "index": 0, "mutant": "x = 1", "source": "s0"},
        {"line_number": 3, "line": "x = 1", "index": 0, "mutant": "x = 2", "source": "s1"},
    ]
    tested = []
    monkeypatch.setattr(tool, "load_results", lambda: prev)
    monkeypatch.setattr(tool, "mutants", lambda path: [dict(m) for m in now])
    monkeypatch.setattr(tool, "_run_one", lambda *a: ("passed", 1.0))
    monkeypatch.setattr(tool, "_run_fresh", lambda name, path, source, args, base: (
        tested.append(source) or ("failed" if source == "s0" else "passed", 2.0)))
    got = tool.recheck_survivors("rfverify/stats.py", ["t"], log=lambda *a: None)
    assert tested == ["new", "s0"]  # the new mutant and the old survivor; the killed one is not re-run
    assert [(m["line_number"], m["line"], m["status"]) for m in got["mutants"]] == [
        (1, "y = 0", "survived"), (2, "x = 0", "killed"), (3, "x = 1", "killed")]
    assert all("source" not in m for m in got["mutants"])
    assert {k: got["rechecked"][k] for k in ("survivors", "new", "dropped")} == {"survivors": 1, "new": 1, "dropped": 1}


def test_an_interrupted_run_keeps_what_it_decided(tool, monkeypatch):
    """``run_module`` checkpoints: after the in-session phase and during the fresh one, the results so far are
    stored with every undecided mutant counted as a pending survivor (``run --recheck`` decides those)."""
    found = [{"line_number": i + 1, "line": f"x = {i}", "index": 0, "mutant": f"x = {i + 1}", "source": f"s{i}"}
             for i in range(3)]
    monkeypatch.setattr(tool, "mutants", lambda path: [dict(m) for m in found])
    monkeypatch.setattr(tool, "CHECKPOINT_EVERY", 0.0)

    def session(args, plugins):  # the in-session phase: mutant 0 killed, 1 and 2 passed (to confirm afresh)
        plugins[0].baseline = 1.0
        plugins[0].outcomes = {0: ("failed", 0.5), 1: ("passed", 1.0), 2: ("passed", 1.0)}
        return 0

    import pytest as _pytest

    monkeypatch.setattr(_pytest, "main", session)
    monkeypatch.setattr(tool, "_run_one", lambda *a: ("passed", 1.0))
    monkeypatch.setattr(tool, "_run_fresh", lambda name, path, source, args, base: (
        ("failed" if source == "s1" else "passed"), 2.0))
    parts = []
    done = tool.run_module("rfverify/stats.py", ["t"], log=lambda *a: None, checkpoint=lambda p: parts.append(
        [(m["status"], bool(m.get("pending"))) for m in p["mutants"]]))
    assert parts[0] == [("killed", False), ("survived", True), ("survived", True)]  # before the fresh phase
    assert parts[-1] == [("killed", False), ("killed", False), ("survived", True)]  # mutant 2 not yet decided
    assert [(m["status"], bool(m.get("pending"))) for m in done["mutants"]] == [
        ("killed", False), ("killed", False), ("survived", False)]


def test_a_resumed_run_does_not_rerun_its_kills_and_checkpoints_in_session(tool, monkeypatch):
    """``run --resume``: the interrupted run's killed mutants (matched by line text) are preset, so the in-session
    phase skips them; a mutant that survived the session goes straight to the fresh phase; the other pending ones
    are tested again.  The in-session phase checkpoints too."""
    found = [{"line_number": i + 1, "line": f"x = {i}", "index": 0, "mutant": f"x = {i + 1}", "source": f"s{i}"}
             for i in range(3)]
    monkeypatch.setattr(tool, "mutants", lambda path: [dict(m) for m in found])
    monkeypatch.setattr(tool, "CHECKPOINT_EVERY", 0.0)
    resume = {"mutants": [{**{k: v for k, v in found[0].items() if k != "source"}, "line_number": 7,
                           "status": "killed", "seconds": 0.5},
                          {**{k: v for k, v in found[1].items() if k != "source"}, "status": "survived",
                           "pending": True, "seconds": 0.0},
                          {**{k: v for k, v in found[2].items() if k != "source"}, "status": "survived",
                           "pending": True, "in_session": "passed", "seconds": 1.5}]}
    preset = {}

    def session(args, plugins):
        plugin = plugins[0]
        preset.update(plugin.outcomes)
        plugin.baseline = 1.0
        plugin.progress()  # a checkpoint mid-way through the in-session phase
        plugin.outcomes[1] = ("failed", 0.3)
        return 0

    import pytest as _pytest

    monkeypatch.setattr(_pytest, "main", session)
    monkeypatch.setattr(tool, "_run_one", lambda *a: ("passed", 1.0))
    fresh = []
    monkeypatch.setattr(tool, "_run_fresh", lambda name, path, source, args, base: (fresh.append(source), ("passed", 2.0))[1])
    parts = []
    done = tool.run_module("rfverify/stats.py", ["t"], log=lambda *a: None, resume=resume, checkpoint=lambda p: parts.append(
        [(m["status"], bool(m.get("pending")), m.get("in_session")) for m in p["mutants"]]))
    # the earlier kill, found by its line's text (its number moved); the session's survivor goes to the fresh phase
    assert preset == {0: ("failed", 0.5), 2: ("passed", 1.5)}
    assert parts[0] == [("killed", False, None), ("survived", True, None), ("survived", True, "passed")]
    assert fresh == ["s2"] and [m["status"] for m in done["mutants"]] == ["killed", "killed", "survived"]
    assert not any("in_session" in m for m in done["mutants"])  # a decided row carries no marker


_TOY = '''
import os, time
import rfverify.seeding as seeding

LOG = {log!r}
SEEN = []


def _ran(name):
    with open(LOG, "a") as f:
        f.write(name + "\\n")


def test_slow():
    time.sleep(0.3)
    _ran("slow")
    SEEN.append(1)
    assert seeding.stable_words("a") == {words!r}


def test_fast():
    _ran("fast")
    seeding.stable_words("b")
    assert SEEN or not {needs_slow!r}
'''


@pytest.mark.parametrize("needs_slow", [False, True])
def test_in_session_tests_run_fastest_first_only_if_they_pass_in_that_order(tool, tmp_path, monkeypatch, needs_slow):
    """A mutant's selected tests run fastest first (the killing test comes sooner) when the unmutated tests pass in
    that order; a test that needs an earlier one's side effect keeps collection order (no false kill)."""
    from rfverify.seeding import stable_words

    log = tmp_path / "ran.txt"
    test = tmp_path / f"test_toy_{needs_slow}.py"  # a basename per case: the nested sessions share sys.modules
    test.write_text(_TOY.format(log=str(log), words=stable_words("a"), needs_slow=needs_slow))
    m = next(m for m in tool.mutants("rfverify/seeding.py") if "digest_size=17" in m["mutant"])
    monkeypatch.setattr(tool, "mutants", lambda path: [dict(m)])
    monkeypatch.setattr(tool, "_run_fresh", lambda *a: pytest.fail("the mutant is killed in the session"))
    lines = []
    done = tool.run_module("rfverify/seeding.py", [str(test)], log=lines.append)
    assert [r["status"] for r in done["mutants"]] == ["killed"]
    ran = log.read_text().split()
    # baseline and recording in collection order, then the order check, then the mutant
    assert ran[:4] == ["slow", "fast", "slow", "fast"], ran
    if needs_slow:
        assert ran[4:] == ["fast", "slow"], ran  # the order check fails at "fast"; the mutant runs as collected
        assert any("collection order kept" in x for x in lines), lines
    else:
        assert ran[4:] == ["fast", "slow", "fast", "slow"], ran
        assert any("pass in that order too" in x for x in lines), lines


def test_a_run_is_marked_stale_once_its_module_changed(tool):
    """The report says which rows measure the code as it is now: a run's mutants are the module's current ones (the
    same number, each on a line that still reads the same), else the row is marked as describing older code."""
    path = "rfverify/exit_status.py"
    now = [{k: m[k] for k in ("line_number", "line", "mutant")} for m in tool.mutants(path)]
    assert tool.measured_source_is_current(path, now) is True
    moved = [dict(m, line_number=m["line_number"] + 1) for m in now]
    assert tool.measured_source_is_current(path, moved) is False  # the module gained a line above them
    assert tool.measured_source_is_current(path, now[:-1]) is False  # a mutant more (or fewer) than the run had
    assert tool.measured_source_is_current("rfverify/no_such_module.py", now) is False
