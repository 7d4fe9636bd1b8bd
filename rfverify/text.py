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

__all__ = ["plural", "clean", "plain", "type_name", "strip_paths", "markdown_inline", "markdown_code", "MESSAGE_LIMIT",
           "NAME_LIMIT"]

#: Longest message kept from a plug-in (characters); the rest is cut with a visible marker.
MESSAGE_LIMIT = 4000
#: Longest implementation name kept.
NAME_LIMIT = 200

_ANSI = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]"            # CSI: colours, cursor moves, erase
                   r"|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?"  # OSC: window titles, hyperlinks
                   r"|\x1b[@-Z\\-_]"                       # two-byte escapes
                   r"|\x9b[0-?]*[ -/]*[@-~]")              # 8-bit CSI
_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069]")


#: An absolute path (``/home/me/x.py``, ``/usr/lib/python3/site-packages/y``): only its last part is kept.
_ABS_PATH = re.compile(r"(?<![\w.~:/\\-])/(?:[^\s/'\"<>|:;,()\[\]]+/)+")


def type_name(obj: object, *, is_type: bool = False) -> str:
    """The ``__name__`` of ``obj``'s type (of ``obj`` itself with ``is_type``), read from the type object in C: a
    metaclass property, a ``str`` subclass or anything else a plug-in defines never runs; never raises."""
    try:
        cls = obj if is_type else type(obj)
        name = type.__dict__["__name__"].__get__(cls, type)
        return str.__str__(name) if isinstance(name, str) else "?"
    except BaseException:  # noqa: BLE001 - untrusted
        return "?"


def plain(obj: object, what: str = "__str__") -> str:
    """``str(obj)`` (``what="__repr__"``: ``repr(obj)``) as an exact ``str``, never raising: an exception of any
    kind (a ``BaseException`` too) in the plug-in's ``__str__`` is described instead, and a ``str`` subclass it
    returns is copied into a plain ``str`` in C, so none of its methods ever runs."""
    try:
        text = repr(obj) if what == "__repr__" else str(obj)
        if not isinstance(text, str):
            raise TypeError(f"{what} returned a non-string")
        return str.__str__(text)
    except BaseException as inner:  # noqa: BLE001 - untrusted __str__ / __repr__, whatever it raises
        return f"(its message could not be shown: {what} raised {type_name(inner)})"


def strip_paths(text: str) -> str:
    """``text`` with every absolute path cut to its last part (``…/writing.py``): a message shows no path of the
    machine it ran on (the install prefix, the user's home)."""
    return _ABS_PATH.sub("…/", text) if "/" in text else text


def clean(text: object, limit: int = MESSAGE_LIMIT, *, one_line: bool = False) -> str:
    """``text`` as safe, valid, capped text (see the module doc); ``one_line`` also folds line breaks into
    spaces.  Non-strings are converted with :func:`plain` (an object whose ``__str__`` raises is described)."""
    text = plain(text)
    if not text.isascii() or "\x1b" in text or _CONTROL.search(text):
        text = text.encode("utf-8", "replace").decode("utf-8", "replace")
        text = _CONTROL.sub("", _ANSI.sub("", text.replace("\r\n", "\n").replace("\r", "\n")))
    if one_line:
        text = " ".join(text.split("\n"))
    if len(text) > limit:
        keep = max(0, limit - 32)
        text = text[:keep] + f"… [{len(text) - keep:,} more characters]"
    return text


#: Characters escaped with a backslash by :func:`markdown_inline`: brackets carry links, images and references
#: (``[x](javascript:...)``, ``![i](u)``, ``[x][1]``), a backtick a code span that could swallow what follows, and
#: the backslash itself (so ``\[`` cannot undo the escape).  Emphasis (``*``, ``_``) is harmless and kept readable.
_MD_ESCAPE = re.compile(r"([\\`\[\]!])")


def markdown_inline(text: str) -> str:
    """Untrusted text for inline Markdown (a table cell, a list item): link and image syntax shown as typed, never
    live; no table pipe, line break or raw HTML (``&``, ``<``, ``>`` as entities, so no autolink ``<url>`` either)."""
    text = text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return _MD_ESCAPE.sub(r"\\\1", text).replace("|", "\\|").replace("\n", " ")


def markdown_code(text: str) -> str:
    """Untrusted text as an inline code span: fenced by more backticks than it contains in a row (a backtick in the
    text cannot close the span early), one line, pipes escaped for a table."""
    text = text.replace("\n", " ").replace("|", "\\|")
    run = max((len(m) for m in re.findall("`+", text)), default=0)
    fence = "`" * (run + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def plural(n: int, word: str, many: str | None = None) -> str:
    """``1 check``, ``2 checks``, ``0 checks`` (``many`` for an irregular plural: ``plural(2, "pass", "passes")``)."""
    return f"{n} {word if n == 1 else (many or word + 's')}"
