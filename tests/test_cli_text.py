"""The command line explains itself: an example under every --help (and each example parses), headed
listings with a kind column, the check table's separate alpha and tolerance columns with skip reasons,
singular and plural, and a closed stdout ending the run like other Unix tools (exit 141, nothing on stderr)."""

from __future__ import annotations

import os
import shlex
import subprocess
import sys

import pytest

from rfverify.cli import build_parser, main
from rfverify.cli_text import EXAMPLES, EXIT_SIGPIPE, markdown_table, table
from rfverify.kinds import KINDS
from rfverify.results import CheckResult, Report

COMMANDS = ["check", *(f"check {k}" for k in KINDS), "report", "claims", "tables", "list", "bench", "calibrate"]


def _help(words: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    with pytest.raises(SystemExit) as exc:
        main([*words, "--help"])
    assert exc.value.code == 0
    return capsys.readouterr().out


@pytest.mark.parametrize("command", COMMANDS)
def test_every_help_shows_an_example_that_parses(command: str, capsys: pytest.CaptureFixture[str]) -> None:
    text = _help(command.split(), capsys)
    assert "example:" in text or "examples:" in text, f"rfverify {command} --help has no example"
    assert "%%" not in text, f"rfverify {command} --help prints a doubled percent sign"
    kind = command.split()[1] if command.startswith("check ") else None
    for line in KINDS[kind].config_class().CLI.examples if kind else EXAMPLES[command]:
        assert "  " + line in text, f"the example is re-wrapped in rfverify {command} --help: {line}"
        argv = shlex.split(line.split(" #")[0].split(" | ")[0])[1:]
        build_parser().parse_args(argv)  # an example that does not parse would raise SystemExit


def test_calibrate_help_says_95_percent(capsys: pytest.CaptureFixture[str]) -> None:
    text = "".join(_help(["calibrate"], capsys).split())  # argparse may wrap at the hyphen
    assert "95%Clopper-Pearson" in text and "99%ofseeds" in text


@pytest.mark.parametrize("what,header", [("zoo", ["name", "kind", "implementation"]),
                                         ("kernels", ["name", "kind", "parameters"]),
                                         ("checks", ["check", "kind", "decided"])])
def test_every_list_has_a_header_and_a_kind_column(what: str, header: list[str],
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["list", what]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split()[:3] == header and set(lines[1].replace(" ", "")) == {"-"}
    kinds = {line.split()[1] for line in lines[2:]}
    assert kinds <= set(KINDS) | {"kernel"} and kinds, kinds


def test_list_checks_markdown_is_a_table_with_escaped_bars(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["list", "checks", "--format", "markdown"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "| check | kind | decided by | what it verifies |" and lines[1] == "|---|---|---|---|"
    assert all(line.count("|") - line.count("\\|") == 5 for line in lines), "an unescaped | splits a row"
    assert any("\\|" in line for line in lines)  # orthogonality's max|Q^T Q - I|
    assert markdown_table(("a",), [("x|y",)]).splitlines()[-1] == "| x\\|y |"


def test_list_format_markdown_is_for_checks_only(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["list", "zoo", "--format", "markdown"]) == 2
    assert "--format markdown is for `rfverify list checks`" in capsys.readouterr().err


def test_table_aligns_columns() -> None:
    text = table(("a", "bb"), [("xxx", "y"), ("z", "long text")])
    assert text.splitlines() == ["a    bb", "---  --", "xxx  y", "z    long text"]


def _report(*results: CheckResult) -> Report:
    return Report(implementation="impl", kind="feature-map", target={"name": "rbf"}, seed=1, profile="quick",
                  config={}, results=results, version="0")


def test_check_table_separates_alpha_from_tolerance_and_says_why_skipped() -> None:
    rep = _report(CheckResult("contract", "impl", "pass", "ok", statistic=1e-16, threshold=9e-14),
                  CheckResult("unbiasedness", "impl", "pass", "ok", statistic=1.0, pvalue=0.5, threshold=3e-4,
                              alpha=3e-4),
                  CheckResult("concentration", "impl", "skip", "no bound C declared; declare it (--bound C)"))
    lines = rep.table().splitlines()
    head = lines[2].split()
    assert head[:6] == ["check", "status", "statistic", "adj.", "p", "alpha"] and "tolerance" in head
    cols = {name: lines[2].index(name) for name in ("alpha", "tolerance")}
    contract = next(x for x in lines if x.startswith("contract"))
    unbiased = next(x for x in lines if x.startswith("unbiasedness"))
    assert contract[cols["tolerance"]:].startswith("9e-14") and contract[cols["alpha"]:cols["tolerance"]].strip() == ""
    assert unbiased[cols["alpha"]:].startswith("0.0003") and not unbiased[cols["tolerance"]:].strip()
    assert "no bound C declared" in next(x for x in lines if x.startswith("concentration"))
    assert lines[-1] == "PASSED: 3 checks, 0 failed, 0 errors"


def test_singular_and_plural() -> None:
    one = _report(CheckResult("contract", "impl", "error", "broken"))
    assert one.table().splitlines()[-1] == "ERROR: 1 check, 0 failed, 1 error"


def test_closed_stdout_exits_quietly_like_unix_tools() -> None:
    """`rfverify list zoo | head`: the reader is gone before rfverify writes (deterministic: closed up front)."""
    read, write = os.pipe()
    os.close(read)
    try:
        proc = subprocess.run([sys.executable, "-m", "rfverify.cli", "list", "zoo"], stdout=write,
                              stderr=subprocess.PIPE, text=True, timeout=120)
    finally:
        os.close(write)
    assert proc.returncode == EXIT_SIGPIPE and proc.stderr == "", (proc.returncode, proc.stderr)


def test_a_real_error_is_still_reported(capsys: pytest.CaptureFixture[str]) -> None:
    """Only a closed stdout is quiet: another broken pipe stays an error with exit 2 (the twin of the test above)."""
    from rfverify.cli_text import stdout_closed

    assert stdout_closed(ValueError("x")) is False
    assert stdout_closed(BrokenPipeError("a worker's pipe")) is False  # stdout (pytest's capture) is fine


def test_the_main_job_writes_an_ignored_folder() -> None:
    """A fresh clone stays clean: `rfverify report --all` writes rfverify-reports/, which git ignores."""
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent
    args = build_parser().parse_args(["report", "--all"])
    assert args.out == "rfverify-reports"
    assert "rfverify-reports/" in (root / ".gitignore").read_text().splitlines()
    if (root / ".git").exists():
        proc = subprocess.run(["git", "-C", str(root), "check-ignore", "-q", "rfverify-reports/index.html"])
        assert proc.returncode == 0, "git does not ignore rfverify-reports/"
