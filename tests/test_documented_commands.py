"""Every command of docs/ecosystem.md (where the README's plug-in section points) does what the page says: each is
preceded by ``# exit N: TEXT`` (run here: the exit status is N and TEXT is in its output) or by ``# not run by the
tests: WHY``.  Commands whose libraries are in the ``thirdparty`` extra (scikit-learn, rfflearn) run in CI, except
those in :data:`SLOW` (the page says which); the others (scikit-learn-extra, fht: source builds) run where installed,
in the slow tests."""

from __future__ import annotations

import importlib.util
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PAGE = ROOT / "docs" / "ecosystem.md"
ANNOTATION = re.compile(r"^# (?:exit (?P<code>\d+): (?P<text>.+)|not run by the tests: (?P<why>.+))$")
#: The import each documented target needs, and whether the thirdparty extra (CI) has it.
THIRDPARTY = {"sklearn", "rfflearn", "fht_cpu", "scipy"}
#: Commands CI could run that are in the slow tests instead, and what in CI covers them (docs/ecosystem.md names them).
SLOW = {
    "rfverify ecosystem --only rfflearn-orf":
        "the default-profile table run of one entry; rfflearn's ORF defect at the default profile is the ORFPCA "
        "check command (its expected failure must fail), the ecosystem command's table at quick is "
        "tests/test_ecosystem.py",
}


def documented_commands() -> list[tuple[str, int | None, str]]:
    """``(command, exit code or None when not run, expected text or why not)`` of every sh block's rfverify line."""
    out, lines = [], []
    for block in re.findall(r"```sh\n(.*?)```", PAGE.read_text(encoding="utf-8"), re.S):
        lines = block.replace("\\\n", " ").splitlines()
        note = None
        for line in lines:
            line = line.strip()
            m = ANNOTATION.match(line)
            if m:
                note = m
                continue
            if re.match(r"^(nice -n \d+ )?rfverify ", line):
                cmd = line.split("  #")[0].strip()
                assert note is not None, f"docs/ecosystem.md: {cmd!r} has no '# exit N: TEXT' or '# not run' line"
                out.append((cmd, int(note["code"]) if note["code"] else None, note["text"] or note["why"]))
                note = None
    return out


COMMANDS = documented_commands()


def _needs(cmd: str) -> set[str]:
    args = shlex.split(cmd)
    mods = {a.split(":")[0].split(".")[0] for a in args if re.match(r"^[\w.]+:[\w.]+$", a)}
    if "ecosystem" in args and "--list" not in args and "--light" not in args:
        mods.add("rfflearn")
    return mods


def _params() -> list:
    params = []
    for cmd, code, text in COMMANDS:
        marks = []
        needs = _needs(cmd)
        if code is None:
            marks.append(pytest.mark.skip(reason=f"documented as not run: {text}"))
        elif needs - THIRDPARTY or cmd in SLOW:
            marks.append(pytest.mark.slow)
        params.append(pytest.param(cmd, code, text, needs, marks=marks, id=cmd[:80]))
    return params


def test_the_page_documents_commands():
    assert len(COMMANDS) >= 8
    assert any("Nystroem" in c for c, _, _ in COMMANDS) and any("Fastfood" in c for c, _, _ in COMMANDS)


def test_each_command_moved_to_the_slow_tests_is_documented_and_named_so_on_the_page():
    commands = {c for c, _, _ in COMMANDS}
    page = " ".join(PAGE.read_text(encoding="utf-8").split())
    for cmd in SLOW:
        assert cmd in commands, f"{cmd!r} is no longer a command of docs/ecosystem.md: remove it from SLOW"
        assert f"`{cmd}` in the slow tests" in page, f"docs/ecosystem.md does not say {cmd!r} runs in the slow tests"


@pytest.mark.parametrize("cmd,code,text,needs", _params())
def test_documented_command_does_what_the_page_says(cmd, code, text, needs, tmp_path):
    for mod in needs:
        if importlib.util.find_spec(mod) is None:
            pytest.skip(f"{mod} is not installed: the command needs it (docs/ecosystem.md says how to install it)")
    args = shlex.split(cmd)
    args = args[args.index("rfverify") + 1:]
    out = subprocess.run([sys.executable, "-m", "rfverify.cli", *args], cwd=tmp_path, capture_output=True, text=True,
                         timeout=1800)
    assert out.returncode == code, f"{cmd}\nexit {out.returncode}\n{out.stdout[-3000:]}\n{out.stderr[-2000:]}"
    assert text in out.stdout, f"{cmd}: {text!r} not in its output:\n{out.stdout[-3000:]}"
