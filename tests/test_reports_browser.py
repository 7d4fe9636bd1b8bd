"""The HTML reports in a real browser: headless Chromium renders them with no console errors and every
image and plot loads.  Skipped (with the reason) when Chromium is not installed
(`apt-get install -y chromium`; `.ci/run` installs it where it can).

Set ``RFVERIFY_SCREENSHOTS=DIR`` to keep full-page screenshots of the pages checked.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.cdp_client import Browser, find_chromium
from rfverify.report.html import render_index_page, render_report_page
from rfverify.results import CheckResult, Effect, Report

REPO = Path(__file__).resolve().parent.parent
CHROMIUM = find_chromium()
pytestmark = pytest.mark.skipif(
    CHROMIUM is None, reason="Chromium is not installed (apt-get install -y chromium); browser rendering not checked")

PROV = {"rfverify": "0", "numpy": "0", "scipy": "0", "python": "3", "platform": "test"}
PAGE_STATE = """JSON.stringify({
  images: Array.from(document.images).map(i => ({src: i.src.slice(0, 60), ok: i.complete && i.naturalWidth > 0})),
  plots: Array.from(document.querySelectorAll('svg.plot')).map(s => {
    const r = s.getBoundingClientRect(); return {w: r.width, h: r.height, paths: s.querySelectorAll('path').length};
  }),
  banner: (document.querySelector('.banner .word') || {}).textContent || null,
  title: document.title,
  overflow: document.documentElement.scrollWidth > window.innerWidth + 1,
})"""


def _synthetic_page(tmp: Path) -> Path:
    """A page of another kind with every generic plot, an untrusted name and a failing check."""
    hist = {"histograms": [{"label": "angle", "edges": [0, 1, 2, 3], "counts": [5, 10, 5], "x": [0, 1.5, 3],
                            "pdf": [0.1, 0.5, 0.1]}]}
    quad = {"degrees": [0, 1, 2, 3, 4], "errors": [0, 1e-16, 2e-16, 1e-16, 0.3], "tolerance": 1e-14}
    results = tuple(CheckResult(check=c, implementation="x", status=s, message=f"<b>{c}</b> message",
                                statistic=1.0, pvalue=0.5, threshold=1e-3,
                                effect=Effect("e", 0.1, 0.0, 0.2, 0.99, 0.05, 0.99), reproduce="rfverify check x",
                                details=d, figures=(f,))
                    for c, s, d, f in (("haar", "pass", hist, "histograms"), ("exactness", "fail", quad, "exactness")))
    rep = Report(implementation="<script>alert(1)</script>", kind="quadrature", target={"name": "gauss"}, seed=1,
                 profile="quick", config={}, results=results, version="0")
    page = tmp / "synthetic.html"
    page.write_text(render_report_page("<script>alert(1)</script>", rep, provenance=PROV), encoding="utf-8")
    (tmp / "index.html").write_text(render_index_page([("synthetic", rep)], seed=1, profile="quick", provenance=PROV),
                                    encoding="utf-8")
    return page


def _check(browser: Browser, path: Path, shots: Path | None) -> dict:
    import json

    browser.open(path.resolve().as_uri())
    state = json.loads(browser.evaluate(PAGE_STATE))
    errors = browser.errors()
    assert not errors, f"{path.name}: the browser reported errors: {errors}"
    assert all(i["ok"] for i in state["images"]), f"{path.name}: images that did not load: {state['images']}"
    for p in state["plots"]:
        assert p["w"] > 150 and p["h"] > 100 and p["paths"] > 10, f"{path.name}: a plot did not render: {p}"
    assert not state["overflow"], f"{path.name}: the page is wider than a 1200 px window"
    if shots is not None:
        browser.screenshot(shots / (path.stem + ".png"))
    return state


def test_pages_render_in_chromium(tmp_path: Path) -> None:
    shots = Path(os.environ["RFVERIFY_SCREENSHOTS"]) if os.environ.get("RFVERIFY_SCREENSHOTS") else None
    if shots:
        shots.mkdir(parents=True, exist_ok=True)
    synthetic = _synthetic_page(tmp_path)
    committed = REPO / "reports"
    pages = [synthetic, tmp_path / "index.html"]
    if (committed / "index.html").exists():
        pages += [committed / "index.html", *sorted(committed.glob("*.html"))[:2]]
    with Browser(CHROMIUM) as browser:  # type: ignore[arg-type]
        states = {p: _check(browser, p, shots) for p in pages}
        assert states[synthetic]["banner"] == "FAILED"
        assert len(states[synthetic]["plots"]) == 2
        assert "<script>" in states[synthetic]["title"]  # shown as text, never run
        # the checker itself catches a broken image (negative control)
        broken = tmp_path / "broken.html"
        broken.write_text('<!DOCTYPE html><html><body><img src="missing.png"></body></html>', encoding="utf-8")
        with pytest.raises(AssertionError):
            _check(browser, broken, None)
