"""Mathematics on the HTML pages (rfverify.report.mathtext): $...$ spans become inline SVG formulas with an
accessible plain form, the same bytes on every run; terminals get plain Unicode; untrusted text stays escaped."""

from __future__ import annotations

import re

import pytest

from rfverify.report.html import render_index_page
from rfverify.report.mathtext import MATH, formula_svg, math_html, plain
from rfverify.results import CheckResult, Report
from rfverify.studies.zoo import ZOO

PROV = {"rfverify": "0", "numpy": "0", "scipy": "0", "python": "3", "platform": "test"}


@pytest.mark.parametrize("tex,text", [
    (r"$\sqrt{2/m}\,\cos(Wx + b)$", "√(2/m) cos(Wx + b)"),
    (r"$W \sim \mathcal{N}(0, 2\gamma I)$", "W ~ N(0, 2γ I)"),
    (r"$SR^{3,3}$ eq. 5", "SR^{3,3} eq. 5"),
    (r"$\frac{1}{\pi}\|x\|^n$", "1/π‖x‖^n"),
    (r"a $\rho_j$ and $\sqrt{d}$", "a ρ_j and √d"),
    ("no maths, a lone $ sign", "no maths, a lone $ sign"),
])
def test_plain(tex: str, text: str) -> None:
    assert plain(tex) == text


def test_formula_is_inline_svg_with_its_plain_name() -> None:
    svg = formula_svg(r"SR^{3,3}")
    assert svg.startswith("<svg") and 'class="math"' in svg and 'aria-label="SR^{3,3}"' in svg
    assert "<title>SR^{3,3}</title>" in svg and re.search(r"vertical-align:-[\d.]+em", svg)
    assert "<path" in svg and "<text" not in svg  # glyphs as paths: no font needed in the browser
    formula_svg.cache_clear()
    assert formula_svg(r"SR^{3,3}") == svg  # deterministic bytes


def test_ids_differ_between_formulas() -> None:
    ids = [set(re.findall(r'id="([^"]+)"', formula_svg(t))) for t in (r"\sqrt{d}", r"\rho_j")]
    assert ids[0] and ids[1] and not ids[0] & ids[1]


def test_text_around_the_maths_is_escaped() -> None:
    html = str(math_html(r"<b>bold</b> $\rho$ & <i>"))
    assert "&lt;b&gt;bold&lt;/b&gt;" in html and "&amp; &lt;i&gt;" in html and html.count("<svg") == 1


def test_unparsable_maths_falls_back_to_plain_text() -> None:
    html = str(math_html(r"bad $\frac{1}{$ and $\undefinedcommand{x}$"))
    assert "<svg" not in html or "undefinedcommand" in html  # never an exception, never raw TeX markup
    assert "$" not in html.replace("&#36;", "")


def test_every_zoo_formula_renders() -> None:
    for e in ZOO:
        for m in MATH.finditer(e.doc):
            formula_svg(m.group(1))  # raises ValueError if mathtext cannot parse it


def test_the_index_shows_formulas_not_tex() -> None:
    rep = Report(implementation="x", kind="quadrature", target={}, seed=1, profile="quick", config={},
                 results=(CheckResult("exactness", "x", "pass", "ok"),), version="0")
    page = render_index_page([("rule-sr33-haar", rep)], seed=1, profile="quick", provenance=PROV,
                             docs={"rule-sr33-haar": r"$SR^{3,3}$ eq. 5, Haar $Q$"})
    assert 'aria-label="SR^{3,3}"' in page and "$SR" not in page
