"""What the command line says about itself: an example under every ``--help``, the help formatter that keeps
them as typed, headed tables for ``rfverify list``, and a closed stdout handled like other Unix tools.

Core-level (standard library only), kept apart from :mod:`rfverify.cli` (which wires the sub-commands) so the
wording lives in one place;
``tests/test_cli_text.py`` checks that every sub-command has an example and that each example parses.
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import Sequence

__all__ = ["EXAMPLES", "epilog", "HelpFormatter", "table", "stdout_closed", "add_quiet", "EXIT_SIGPIPE"]

#: ``128 + SIGPIPE``: what ``yes | head -1`` reports for ``yes``; a closed stdout ends rfverify the same way.
EXIT_SIGPIPE = 141

#: One or two examples per sub-command; those of ``rfverify check KIND`` are the kind's own
#: (``CliSpec.examples`` in :mod:`rfverify.kinds`), given to :func:`epilog` by the CLI.
EXAMPLES: dict[str, tuple[str, ...]] = {
    "rfverify": ("rfverify check feature-map rfverify.implementations.rff:RandomFourierFeatures --kernel rbf "
                 "--param gamma=0.5",
                 "rfverify report --all                   # every reference implementation -> rfverify-reports/"),
    "check": ("rfverify check feature-map sklearn.kernel_approximation:RBFSampler --kernel rbf --param gamma=0.5",),
    "report": ("rfverify report --all                   # the main job: writes rfverify-reports/ (git-ignored)",
               "rfverify report --all --out reports/    # maintainers: regenerate the committed reports/",
               "rfverify report --only rff-phase --only haar-qr --out /tmp/r"),
    "claims": ("rfverify claims --source cs4787",
               "rfverify claims --format latex --out claims.tex"),
    "tables": ("rfverify tables maxout --out reports/tables",),
    "list": ("rfverify list zoo | head",),
    "bench": ("rfverify bench --quick",),
    "calibrate": ("rfverify calibrate --kind orthogonal --fa-seeds 20     # false alarms of the reference samplers",
                  "rfverify calibrate --mutants my_bugs.py --no-references   # power against your library of Mutants",
                  "rfverify calibrate --mutants tests.mutants --jobs 2       # rfverify's developers: its own library"),
}


def epilog(command: str, examples: Sequence[str] = ()) -> str:
    """The ``example:`` block shown at the end of ``rfverify COMMAND --help`` (``examples``: a kind's own)."""
    lines = tuple(examples) or EXAMPLES[command]
    return ("example:" if len(lines) == 1 else "examples:") + "\n" + "\n".join("  " + x for x in lines)


class HelpFormatter(argparse.HelpFormatter):
    """argparse's formatter, but a paragraph whose lines are indented (the examples) is kept as typed."""

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        out = []
        for para in text.split("\n\n"):
            lines = para.splitlines()
            if len(lines) > 1 and all(x.startswith("  ") for x in lines[1:]):
                out.append("\n".join(indent + x for x in lines))
            else:
                out.append(super()._fill_text(para, width, indent))
        return "\n\n".join(out)


def table(headers: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    """A plain aligned table with a header and a rule (the last column is not padded)."""
    widths = [max([len(h)] + [len(r[i]) for r in rows]) for i, h in enumerate(headers)]
    lines = ["  ".join(h.ljust(w) for h, w in zip(headers, widths)).rstrip(),
             "  ".join("-" * (w if i < len(widths) - 1 else len(headers[-1])) for i, w in enumerate(widths))]
    lines += ["  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip() for r in rows]
    return "\n".join(lines)


def markdown_table(headers: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    """A Markdown (GitHub) table; ``|`` inside a cell is escaped."""
    def row(cells: Sequence[str]) -> str:
        return "| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |"

    return "\n".join([row(headers), "|" + "---|" * len(headers)] + [row(r) for r in rows])


def stdout_closed(exc: BaseException) -> bool:
    """Was ``exc`` raised because stdout's reader went away (``rfverify list zoo | head``)?

    If so, stdout is pointed at /dev/null so that the interpreter's final flush stays quiet.  A broken pipe of
    anything else (a worker's pipe) is not this and is reported as an error.
    """
    if not isinstance(exc, BrokenPipeError):
        return False
    try:
        sys.stdout.flush()
    except BrokenPipeError:
        pass
    except (OSError, ValueError):
        return False
    else:
        if not _stdout_is_broken():
            return False
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError, AttributeError):
        pass
    return True


def _stdout_is_broken() -> bool:
    """A zero-byte probe cannot tell; a pipe whose reader closed reports POLLERR on its write end."""
    import select

    try:
        fd = sys.stdout.fileno()
        poller = select.poll()
        poller.register(fd, select.POLLOUT)
        return any(ev & (select.POLLERR | select.POLLHUP) for _, ev in poller.poll(0))
    except (OSError, ValueError, AttributeError):
        return False


def add_quiet(p: argparse.ArgumentParser) -> None:
    """``-q/--quiet``: every long-running command takes it."""
    p.add_argument("-q", "--quiet", action="store_true", help="no progress on stderr")
