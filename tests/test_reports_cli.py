"""``rfverify report``: one implementation (MODULE:ATTR with the options of check feature-map) or zoo entries."""

from __future__ import annotations

import html
import json
import re
import shlex
from pathlib import Path

import pytest

from rfverify.cli import build_parser, main

RFF = "rfverify.implementations.rff:RandomFourierFeatures"


def test_report_one_implementation(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "r"
    code = main(["report", RFF, "--param", "gamma=0.5", "--bound", "1.4142135623730951", "--dim", "4",
                 "--profile", "quick", "--check", "contract", "--check", "unbiasedness", "--out", str(out)])
    assert code == 0
    stem = "rfverify.implementations.rff.RandomFourierFeatures"
    assert sorted(p.name for p in out.iterdir()) == sorted(
        ["SUMMARY.md", "index.html", "index.json", f"{stem}.html", f"{stem}.json"])
    doc = json.loads((out / f"{stem}.json").read_text())
    assert [c["check"] for c in doc["checks"]] == ["contract", "unbiasedness"]
    assert doc["config"]["dim"] == 4 and doc["profile"] == "quick"
    index = (out / "index.html").read_text()
    assert f"rfverify report {RFF} --kernel rbf --param gamma=0.5 --dim 4" in index
    # the recorded command is built from the configuration's options, not by editing a check's reproduce command
    command = re.search(r"rfverify report [^<]*", html.unescape(index)).group(0).strip()
    argv = shlex.split(command)
    assert argv[:3] == ["rfverify", "report", RFF] and "--check" not in argv
    assert argv[-4:] == ["--profile", "quick", "--out", str(out)] and argv[argv.index("--seed") + 1] == "20261122"
    again = build_parser().parse_args(argv[1:])
    assert (again.target, again.dim, again.param, again.profile) == (RFF, "4", ["gamma=0.5"], "quick")
    assert json.loads((out / "index.json").read_text())["claims"] is None  # claims only with --all
    err = capsys.readouterr().err
    assert f"[1/1] {RFF} / contract: pass" in err  # per-check progress lines off a terminal
    assert f"[1/1] {RFF}: passed" in err


def test_report_zoo_entry_and_failing_exit_code(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["report", "--only", "rff-cossin", "--profile", "quick", "--out", str(tmp_path)]) == 0
    assert (tmp_path / "rff-cossin.html").exists()
    assert "[1/1] rff-cossin: passed" in capsys.readouterr().err
    code = main(["report", "tests.mutants.rff_mutants:HalfScale", "--param", "gamma=0.5", "--dim", "4", "--profile", "quick",
                 "--check", "unbiasedness", "--out", str(tmp_path / "bad")])
    assert code == 1
    assert 'class="banner failed"' in (tmp_path / "bad" / "tests.mutants.rff_mutants.HalfScale.html").read_text()


@pytest.mark.parametrize("argv,words", [
    (["report"], "say what to report on"),
    (["report", RFF, "--all"], "not both"),
    (["report", "--all", "--check", "contract"], "--check selects checks of MODULE:ATTR"),
    (["report", "--only", "no-such-entry"], "unknown zoo entry"),
])
def test_report_usage_errors(argv: list[str], words: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert words in err and "Traceback" not in err


def test_check_of_any_kind_writes_a_report(tmp_path, capsys):
    from rfverify.cli import build_parser, main

    out = tmp_path / "rep"
    code = main(["check", "transform", "rfverify.implementations.structured:fwht", "--dim", "8",
                 "--matrix", "hadamard", "--profile", "quick", "--report", str(out)])
    assert code == 0, capsys.readouterr()
    pages = sorted(p.name for p in out.iterdir())
    assert "index.html" in pages and any(p.endswith(".html") and p != "index.html" for p in pages)
    assert any(p.endswith(".json") and p != "index.json" for p in pages)


def test_report_only_keeps_every_entry_description_in_the_index(tmp_path: Path) -> None:
    """Two ``--only`` runs into one directory: the index lists both entries, each with its zoo description."""
    for name in ("rff-cossin", "rff-phase"):
        assert main(["report", "--only", name, "--profile", "quick", "--quiet", "--out", str(tmp_path)]) == 0
    entries = {e["name"]: e["description"] for e in json.loads((tmp_path / "index.json").read_text())["reports"]}
    assert set(entries) == {"rff-cossin", "rff-phase"} and all(entries.values()), entries
