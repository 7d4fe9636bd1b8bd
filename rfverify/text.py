"""Untrusted text (anything a plug-in controls: names, reprs, exception messages, printed output) made safe
for every output.

:func:`clean` is applied where such text enters a result (:class:`rfverify.errors.PluginError`,
:class:`rfverify.results.CheckResult`, :class:`rfverify.results.Report`), so the terminal table, JSON,
Markdown and HTML all receive text that is

* valid UTF-8: lone surrogates (``surrogateescape`` bytes) and undecodable bytes become U+FFFD, so a strict
  UTF-8 stream never raises ``UnicodeEncodeError``;
* free of ANSI escape sequences (CSI, OSC, single escapes) and of control characters other than newline
  and tab (C0, DEL, C1), and of Unicode bidirectional overrides, which can make a terminal or a rendered
  page show something other than what the bytes say;
* at most ``limit`` characters, the cut marked visibly (``… [N more characters]``).

HTML escaping stays the HTML renderer's job (:mod:`rfverify.report.html`), Markdown escaping the Markdown
writer's.
"""

from __future__ import annotations

import re
from typing import Any

__all__ = ["plural", "clean", "MESSAGE_LIMIT", "NAME_LIMIT"]

#: Longest message kept from a plug-in (characters); the rest is cut with a visible marker.
MESSAGE_LIMIT = 4000
#: Longest implementation name kept.
NAME_LIMIT = 200

_ANSI = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]"            # CSI: colours, cursor moves, erase
                   r"|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?"  # OSC: window titles, hyperlinks
                   r"|\x1b[@-Z\\-_]"                       # two-byte escapes
                   r"|\x9b[0-?]*[ -/]*[@-~]")              # 8-bit CSI
_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def clean(text: Any, limit: int = MESSAGE_LIMIT, *, one_line: bool = False) -> str:
    """``text`` as safe, valid, capped text (see the module doc); ``one_line`` also folds line breaks into
    spaces.  Non-strings are converted with ``str`` (an object whose ``__str__`` raises is named by type)."""
    if not isinstance(text, str):
        try:
            text = str(text)
        except Exception:  # noqa: BLE001 - untrusted __str__
            text = f"<{type(text).__name__} whose __str__ raised>"
    if not text.isascii() or "\x1b" in text or _CONTROL.search(text):
        text = text.encode("utf-8", "replace").decode("utf-8", "replace")
        text = _CONTROL.sub("", _ANSI.sub("", text.replace("\r\n", "\n").replace("\r", "\n")))
    if one_line:
        text = " ".join(text.split("\n"))
    if len(text) > limit:
        keep = max(0, limit - 32)
        text = text[:keep] + f"… [{len(text) - keep:,} more characters]"
    return text


def plural(n: int, word: str, many: str | None = None) -> str:
    """``1 check``, ``2 checks``, ``0 checks`` (``many`` for an irregular plural: ``plural(2, "pass", "passes")``)."""
    return f"{n} {word if n == 1 else (many or word + 's')}"
