"""HTML, plots, JSON documents and Markdown of the correctness reports (rfverify.report.html, .plots, .reporting).

Fast: synthetic reports for rendering, one quick-profile verification for the byte-identity test.
"""

from __future__ import annotations

import io
import json
import re
from pathlib import Path

import pytest

from rfverify import verify
from rfverify.report.html import page_filename, render_index_page, render_report_page
from rfverify.report.plots import figure_to_svg, plots_for, register_plotter, PLOTTERS
from rfverify.progress import Progress
from rfverify.report.writing import INDEX_SCHEMA_VERSION, provenance, write_reports
from rfverify.results import SCHEMA_VERSION, CheckResult, Effect, Report

EVIL = "<script>alert(1)</script>"
PROV = {"rfverify": "0", "numpy": "0", "scipy": "0", "python": "3", "platform": "test"}


def _report(name: str = "impl", kind: str = "feature-map", results: tuple[CheckResult, ...] = ()) -> Report:
    return Report(implementation=name, kind=kind, target={"name": "rbf", "params": {"gamma": 0.5}}, seed=1,
                  profile="quick", config={"dim": 4}, results=results, version="0")


def _result(check: str, status: str = "pass", message: str = "ok", figures: tuple[str, ...] = (),
            **details: object) -> CheckResult:
    return CheckResult(check=check, implementation="impl", status=status, message=message, statistic=1.5,
                       pvalue=0.25, threshold=1e-3, alpha=1e-3,
                       effect=Effect("bias", 0.01, -0.02, 0.04, 0.999, 0.03, 0.99), seed=1,
                       reproduce=f"rfverify check feature-map m:A --check {check}", details=details, figures=figures)


def test_untrusted_text_is_escaped_everywhere(tmp_path: Path) -> None:
    res = _result("contract", "fail", message=f"bad {EVIL} & <img src=x onerror=alert(2)>", note=EVIL)
    rep = _report(EVIL, results=(res,))
    page = render_report_page(EVIL, rep, provenance=PROV, doc=EVIL)
    index = render_index_page([(EVIL, rep)], seed=1, profile="quick", provenance=PROV, docs={EVIL: EVIL},
                              claims=[{"id": "c", "source": EVIL, "location": "Thm 1", "statement": EVIL,
                                       "method": "m", "verdict": "holds", "evidence": EVIL}])
    for html in (page, index):
        assert "<script" not in html, "an untrusted name reached the page unescaped"
        assert "<img src=x" not in html
        assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html
        assert "script-src" not in html and "default-src 'none'" in html  # CSP: no script may ever run
    write_reports(tmp_path, [(EVIL, rep)], seed=1, profile="quick")
    summary = (tmp_path / "SUMMARY.md").read_text()
    assert "<script>" not in summary and "&lt;script&gt;" in summary
    assert [p.name for p in tmp_path.iterdir() if p.suffix == ".html" and p.name != "index.html"] == \
        ["script_alert_1_script.html"]


def test_page_shows_every_number_of_every_check() -> None:
    rep = _report(results=(_result("unbiasedness"), _result("contract", "skip", "does not apply")))
    page = render_report_page("impl", rep, provenance=PROV)
    assert 'class="banner passed"' in page
    for text in ("1.5", "0.25", "0.001", "[-0.02, 0.04]", "0.03", "at power 0.99",
                 "rfverify check feature-map m:A --check unbiasedness", 'id="check-unbiasedness"'):
        assert text in page, f"{text!r} missing from the page"
    failed = render_report_page("impl", _report(results=(_result("x", "fail"),)), provenance=PROV)
    assert 'class="banner failed"' in failed


def test_feature_map_plots_from_details() -> None:
    exact = [1.0, 0.5, 0.1]
    det = {"exact": exact, "mean": [1.0, 0.51, 0.09], "half_width": [0.02, 0.02, 0.02], "labels": ["a", "b", "c"],
           "target_bias": 0.01, "m": [16, 64, 256], "mse": [0.1, 0.025, 0.006], "slope": -1.0,
           "intercept": 0.5, "mse_se_log": [0.05, 0.05, 0.05],
           "tails": [{"eps": 0.2, "bound": 0.1, "frequencies": [0.0, 0.01, 0.02]},
                     {"eps": 0.3, "bound": 0.01, "frequencies": [0.0, 0.0, 0.0]}], "bound_C": 1.41, "m_out": 256}
    declared = ("kernel-scatter", "bias", "error-rate", "tails")
    keys = [p.key for p in plots_for(det, declared, salt="t")]
    assert keys == ["kernel-scatter", "bias", "error-rate", "tails"]
    assert plots_for({"note": "nothing to plot"}, declared, salt="t") == []


def test_generic_details_of_other_kinds_render() -> None:
    """Haar histograms, quadrature exactness, benchmark tables — and malformed details never break a page."""
    hist = {"histograms": [{"label": "eigenvalue angle", "edges": [0, 1, 2, 3], "counts": [5, 10, 5],
                            "x": [0, 1.5, 3], "pdf": [0.1, 0.5, 0.1]}]}
    quad = {"degrees": [0, 1, 2, 3, 4], "errors": [0, 1e-16, 2e-16, 1e-16, 0.3], "tolerance": 1e-14,
            "claimed_degree": 3}
    bench = {"benchmarks": [{"name": "fwht", "d": 1024, "seconds": 1e-4}, {"name": "dense", "d": 1024, "seconds": 2e-3}]}
    bad = {"exact": "abc", "mean": [1, 2], "m": [0, -1], "mse": [1], "tails": [1, 2], "histograms": [{"edges": [0]}]}
    rep = _report(kind="orthogonal", results=(_result("haar", figures=("histograms",), **hist),
                                              _result("exactness", figures=("exactness",), **quad),
                                              _result("speed", **bench), _result("odd", **bad)))
    page = render_report_page("q", rep, provenance=PROV)
    assert [p.key for p in plots_for(hist, ("histograms",), salt="h")] == ["histograms"]
    assert [p.key for p in plots_for(quad, ("exactness",), salt="q")] == ["exactness"]
    assert plots_for(bad, (), salt="b") == []  # declares no plot: its odd details are tables only
    assert page.count('<svg ') == 2
    assert "<th>seconds</th>" in page and "fwht" in page


def test_registered_plotter_and_unique_svg_ids() -> None:
    from matplotlib.figure import Figure

    def plot(d):  # a kind's own plotter
        if "curve" not in d:
            return None
        fig = Figure(figsize=(2, 2))
        fig.add_subplot().plot(d["curve"])
        return fig

    register_plotter("test-curve", "Curve", "a test", plot)
    try:
        page = render_report_page("p", _report(results=(_result("a", figures=("test-curve",), curve=[1, 2, 3]),
                                                        _result("b", figures=("test-curve",), curve=[3, 2, 1]))),
                                  provenance=PROV)
    finally:
        PLOTTERS.pop("test-curve")
    ids = re.findall(r' id="([^"]+)"', page)
    assert len(ids) == len(set(ids)), "duplicate element ids between inline SVGs"
    refs = set(re.findall(r'href="#([^"]+)"', page)) - {i for i in ids}
    assert not {r for r in refs if not r.startswith("check-")}, f"dangling SVG references {refs}"


def test_svg_is_byte_stable() -> None:
    from matplotlib.figure import Figure

    def svg() -> str:
        fig = Figure(figsize=(2, 2))
        fig.add_subplot().plot([1, 3, 2])
        return figure_to_svg(fig, "s")

    a, b = svg(), svg()
    assert a == b
    assert "<dc:date>" not in a and a.startswith("<svg")


def test_written_files_are_byte_identical_for_the_same_seed(tmp_path: Path) -> None:
    """Two independent verifications at the same seed and profile write the same bytes (JSON, HTML, MD)."""
    from rfverify.implementations.rff import RandomFourierFeatures

    def run(out: Path) -> dict[str, bytes]:
        rep = verify(RandomFourierFeatures, kernel="rbf", kernel_params={"gamma": 0.5}, bound=2 ** 0.5,
                     dim=4, profile="quick", seed=7, checks=["contract", "unbiasedness", "error-rate"])
        write_reports(out, [("rff", rep)], seed=7, profile="quick", claims=[])
        return {p.name: p.read_bytes() for p in sorted(out.iterdir())}

    first, second = run(tmp_path / "a"), run(tmp_path / "b")
    assert sorted(first) == ["SUMMARY.md", "index.html", "index.json", "rff.html", "rff.json"]
    for name in first:
        assert first[name] == second[name], f"{name} differs between two runs with the same seed"
    doc = json.loads(first["rff.json"])
    assert doc["schema_version"] == SCHEMA_VERSION
    assert doc["provenance"] == provenance()
    assert list(doc)[:3] == ["schema_version", "rfverify_version", "provenance"]
    assert {"seed": 7, "profile": "quick"}.items() <= doc.items()
    index = json.loads(first["index.json"])
    assert index["schema_version"] == INDEX_SCHEMA_VERSION and index["claims"] == []
    assert index["reports"][0] == {"name": "rff", "implementation": doc["implementation"], "kind": "feature-map",
                                   "verdict": "passed", "exit_code": 0, "json": "rff.json", "html": "rff.html",
                                   "checks": {"contract": "pass", "unbiasedness": "pass", "error-rate": "pass"},
                                   "description": ""}
    assert first["rff.html"].count(b"<svg ") == 3  # scatter, bias, error rate


def test_page_filename() -> None:
    assert page_filename("rff-phase") == "rff-phase"
    assert page_filename("pkg.mod:Cls") == "pkg.mod.Cls"
    assert page_filename("../../etc/passwd") == "etc_passwd"


def test_progress_lines_and_bar() -> None:
    rep = _report(results=(_result("contract"),))
    for interactive in (False, True):
        buf = io.StringIO()
        p = Progress(2, stream=buf, interactive=interactive)
        with p.entry(1, "rff"):
            from rfverify.runner import CHECK_HOOK

            hook = CHECK_HOOK.get()
            hook("contract", 0, 1, None)
            hook("contract", 0, 1, rep.results[0])
        p.done(rep)
        p.finish()
        text = buf.getvalue()
        assert "[1/2] rff: passed" in text
        if interactive:  # rich's live bar: redrawn in place with control sequences, gone at the end
            assert "\x1b[" in text and "1/2 implementations done (last: rff)" in text
        else:
            assert "[1/2] rff / contract: pass" in text and "\r" not in text and "\x1b" not in text
    from rfverify.runner import CHECK_HOOK

    assert CHECK_HOOK.get() is None


@pytest.mark.parametrize("status,word", [("error", "error"), ("xfail", "passed")])
def test_verdict_words(status: str, word: str) -> None:
    page = render_report_page("i", _report(results=(_result("c", status),)), provenance=PROV)
    assert f'class="banner {word}"' in page
