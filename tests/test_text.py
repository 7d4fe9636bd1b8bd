"""rfverify.text.clean: untrusted plug-in text made safe for the terminal, JSON, Markdown and HTML."""

from __future__ import annotations

import pytest

from rfverify.errors import PluginError
from rfverify.results import CheckResult
from rfverify.text import clean


@pytest.mark.parametrize("raw,expected", [
    ("plain text", "plain text"),
    ("a\x1b[31mred\x1b[0m b", "ared b"),                       # CSI colours
    ("x\x1b]0;title\x07y", "xy"),                               # OSC window title
    ("x\x1b]8;;http://evil\x1b\\link\x1b]8;;\x1b\\y", "xlinky"),  # OSC hyperlink, ST-terminated
    ("bell\x07 nul\x00 bs\x08 del\x7f c1\x9b", "bell nul bs del c1"),
    ("keep\ttab\nand newline", "keep\ttab\nand newline"),
    ("cr\r\nlf\rx", "cr\nlf\nx"),
    ("bidi \u202egnp.exe", "bidi gnp.exe"),
    ("bad \udcff bytes", "bad ? bytes"),                        # lone surrogate (surrogateescape)
])
def test_clean(raw, expected):
    assert clean(raw) == expected


def test_clean_caps_with_a_visible_marker_and_folds_lines():
    out = clean("x" * 10_000, 100)
    assert len(out) <= 100 and out.endswith("more characters]") and "9,932" in out
    assert clean("a\nb", one_line=True) == "a b"


def test_clean_output_encodes_strictly():
    clean("\udcff\ud800 text \x1b[2J").encode("utf-8", "strict")


def test_a_str_that_raises_is_named():
    class Bad:
        def __str__(self):
            raise RuntimeError

    assert clean(Bad()) == "(its message could not be shown: __str__ raised RuntimeError)"


def test_results_and_plugin_errors_are_cleaned_where_text_enters():
    err = PluginError("name\x1b[2J", "did \x1b[31mthis\x1b[0m", "fix \x00it")
    assert str(err) == "name: did this — fix it"
    r = CheckResult("contract", "impl\x1b[1m" + "n" * 500, "error", "m\x1b[0m" + "e" * 10_000)
    assert "\x1b" not in r.message + r.implementation
    assert len(r.implementation) <= 200 and len(r.message) <= 4000 and r.message.endswith("more characters]")
