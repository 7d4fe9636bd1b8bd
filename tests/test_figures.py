"""Every figure of the reports is fit to paste: each axes has an x and a y label, the palette is Okabe–Ito's,
log axes where the data span orders of magnitude, and every caption's colour and element words match what the
figure draws ("vermillion crosses" only when vermillion crosses are drawn, "band" only when a band is).

The details come from the committed reports (one check of each kind and plot) and from synthetic details that
reach the branches a correct implementation never does (rejected pairs, tolerances exceeded).  A deliberately
wrong caption is caught (the broken twin).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any, Mapping

import pytest
from matplotlib.colors import to_hex
from matplotlib.figure import Figure

from rfverify.report.plots import COLOUR_NAMES, PLOTTERS, figures_for

REPORTS = Path(__file__).resolve().parent.parent / "reports"
NAMES = {k.lower(): v for k, v in COLOUR_NAMES.items()}
COLOUR_WORDS = ("red", "blue", "sky blue", "orange", "green", "vermillion", "grey", "gray", "black", "purple",
                "yellow", "pink")
MARKERS = {"dots": {"o", "."}, "circles": {"o"}, "squares": {"s"}, "crosses": {"X", "x", "+"},
           "triangles": {"v", "^"}}
LINESTYLES = {"dashed": {"--", "dashed"}, "dotted": {":", "dotted"}, "solid": {"-", "solid"}}


def _declared(kind: str, check: str) -> tuple[str, ...]:
    """The plots check ``check`` of ``kind`` declared at registration (what a report draws for it)."""
    from rfverify.kinds import checks_for

    return next((spec.figures for spec in checks_for(kind) if spec.name == check), ())


def _committed_details() -> list[tuple[str, Mapping[str, Any], tuple[str, ...]]]:
    """One example per (plot key, shape of details) from the committed reports, with the check's declared plots."""
    out: list[tuple[str, Mapping[str, Any], tuple[str, ...]]] = []
    seen: set[tuple[str, ...]] = set()
    for path in sorted(REPORTS.glob("*.json")):
        doc = json.loads(path.read_text(encoding="utf-8"))
        for c in doc.get("checks", []) if isinstance(doc, dict) else []:
            det = c.get("details") or {}
            figs = _declared(doc.get("kind", ""), c["check"])
            keys = tuple(sorted(k for k, *_ in figures_for(det, figs)))
            sig = (doc.get("kind", ""), c["check"], *keys)
            if keys and sig not in seen:
                seen.add(sig)
                out.append((f"{path.stem}/{c['check']}", det, figs))
    return out


SYNTHETIC: list[tuple[str, Mapping[str, Any], tuple[str, ...]]] = [
    ("bias-rejected", {"exact": [1.0, 0.5, 0.2], "mean": [1.0, 0.4, 0.2], "half_width": [0.01, 0.01, 0.01],
                       "labels": ["equal", "corr=+0.5 pair", "far"], "target_bias": 0.02}, ("kernel-scatter", "bias")),
    ("bias-no-band", {"expected": [0.0, 1.0], "mean": [0.01, 0.99], "half_width": [0.05, 0.05],
                      "moments": ["tr Q", "tr Q^2"]}, ("bias",)),
    ("tails-some-positive", {"tails": [{"eps": 0.1, "bound": 0.5, "frequencies": [0.01, 0.0, 0.02]},
                                       {"eps": 0.2, "bound": 0.1, "frequencies": [0.0, 0.0, 0.001]}],
                             "bound_C": 1.4, "m_out": 256}, ("tails",)),
    ("exactness-bad", {"degrees": [0, 1, 2, 3, 4], "errors": [0, 1e-16, 2e-16, 1e-16, 0.3], "tolerance": 1e-14,
                       "claimed_degree": 3}, ("exactness",)),
    ("histograms-three", {"histograms": [{"edges": [0, 1, 2, 3], "counts": [5, 10, 5], "label": f"h{i}, 20 draws"}
                                         for i in range(3)]}, ("histograms",)),
    ("error-rate-no-fit", {"m": [16, 32, 64], "mse": [0.1, 0.05, 0.025]}, ("error-rate",)),
    ("quadrature-integrands", {"integrands": ["cos(w.a) |a|=1", "w1^4"], "exact": [0.6, 3.0], "mean": [0.61, 3.2],
                               "half_width": [0.02, 0.05]}, ("kernel-scatter", "bias")),
]
CASES = _committed_details() + SYNTHETIC


def _drawn(fig: Figure) -> dict[str, set[str]]:
    """Colour names, marker and line-style words, and elements (band, histogram, error bars) a figure draws."""
    from matplotlib.collections import PathCollection, PolyCollection
    from matplotlib.lines import Line2D
    from matplotlib.patches import Polygon, Rectangle, StepPatch

    colours: set[str] = set()
    words: set[str] = set()

    def colour(c: Any) -> None:
        try:
            hexa = to_hex(c, keep_alpha=False).lower()
            colours.add(NAMES.get(hexa, hexa))
        except (ValueError, TypeError):
            pass

    for ax in fig.axes:
        for line in ax.get_lines():
            if not isinstance(line, Line2D) or not line.get_visible() or len(line.get_xdata()) == 0:
                continue
            if line.get_label() == "_nolegend_" and line in ax.get_xgridlines() + ax.get_ygridlines():
                continue
            colour(line.get_color())
            colour(line.get_markerfacecolor()) if line.get_markerfacecolor() not in ("none", "white") else None
            marker = str(line.get_marker())
            for word, ms in MARKERS.items():
                if marker in ms:
                    words.add(word)
            if line.get_linestyle() not in ("None", "none", ""):
                words.add("line")
                for word, ls in LINESTYLES.items():
                    if line.get_linestyle() in ls:
                        words.add(word)
        for coll in ax.collections:
            for c in coll.get_facecolors():
                colour(c)
            for c in coll.get_edgecolors():
                colour(c)
            if isinstance(coll, PathCollection):
                words.add("dots")
            if isinstance(coll, PolyCollection):
                words.add("band")
        for patch in ax.patches:
            if isinstance(patch, StepPatch):
                words.add("histogram")
                colour(patch.get_facecolor() if patch.get_fill() else patch.get_edgecolor())
            elif isinstance(patch, (Rectangle, Polygon)):
                words.add("band")
                colour(patch.get_facecolor())
        if ax.containers:
            words.add("interval")
    return {"colours": colours, "words": words}


def caption_problems(caption: str, fig: Figure) -> list[str]:
    """What the caption says that the figure does not draw (colours, markers, line styles, band, histogram)."""
    drawn = _drawn(fig)
    text = re.sub(r"least[- ]squares", "", caption.lower())  # the fit, not square markers
    problems = []
    for word in COLOUR_WORDS:
        if re.search(rf"\b{word}\b", text) and not (word == "blue" and re.search(r"sky blue", text)):
            if word not in drawn["colours"]:
                problems.append(f"caption says {word!r}; the figure draws {sorted(drawn['colours'])}")
    for word in (*MARKERS, *LINESTYLES, "band", "histogram"):
        if re.search(rf"\b{word}\b", text) and word not in drawn["words"]:
            problems.append(f"caption mentions {word!r}; the figure draws {sorted(drawn['words'])}")
    return problems


@pytest.mark.parametrize("name,details,declared", CASES, ids=[c[0] for c in CASES])
def test_every_figure_has_labelled_axes_and_an_honest_caption(name: str, details: Mapping[str, Any],
                                                             declared: tuple[str, ...]) -> None:
    figs = figures_for(details, declared)
    assert figs, f"{name}: no figure drawn"
    for key, title, caption, fig in figs:
        assert caption and title, f"{name}/{key}: no caption or title"
        for ax in fig.axes:
            assert ax.get_xlabel().strip(), f"{name}/{key}: an axes without an x label"
            assert ax.get_ylabel().strip(), f"{name}/{key}: an axes without a y label"
            for text in (t.get_text() for t in ax.texts):
                assert "$" not in text, f"{name}/{key}: unrendered TeX {text!r}"
            legend = ax.get_legend()
            assert legend is None, f"{name}/{key}: a legend inside the axes (it can cover the data)"
        problems = caption_problems(caption, fig)
        assert not problems, f"{name}/{key}: caption {caption!r} does not match the figure: {problems}"
        assert "red" not in caption.lower().split(), f"{name}/{key}: 'red' is not in the palette"


def test_colours_come_from_the_okabe_ito_palette() -> None:
    for name, details, declared in CASES:
        for key, _, _, fig in figures_for(details, declared):
            off = {c for c in _drawn(fig)["colours"] if c.startswith("#")}
            assert not off, f"{name}/{key}: colours outside the palette: {off}"


def test_single_panel_figures_share_one_size() -> None:
    sizes = {tuple(fig.get_size_inches()) for _, d, declared in CASES for _, _, _, fig in figures_for(d, declared) if len(fig.axes) == 1}
    assert len(sizes) == 1, sizes


def test_log_axes_where_the_data_span_orders_of_magnitude() -> None:
    for name, details, declared in CASES:
        for key, _, _, fig in figures_for(details, declared):
            if key in ("tails", "error-rate", "exactness", "adapted"):
                assert fig.axes[0].get_yscale() == "log", f"{name}/{key}: a linear axis for data over decades"


def test_a_wrong_caption_is_caught() -> None:
    """The broken twin: captions that name colours or elements the figure does not draw."""
    details = dict(SYNTHETIC[1][1])  # bias without a band and with no rejected pair
    [(_, _, caption, fig)] = [f for f in figures_for(details, ("bias",)) if f[0] == "bias"]
    assert caption_problems(caption, fig) == []
    assert caption_problems(caption + " Red: the interval excludes 0.", fig)
    assert caption_problems(caption + " Vermillion crosses: rejected.", fig)
    assert caption_problems(caption + " The band is the bias the check detects.", fig)
    assert caption_problems("Orange dashed line: theory.", fig)


def test_quadrature_integrands_are_not_called_kernel_pairs() -> None:
    details, declared = next((dict(d), f) for n, d, f in SYNTHETIC if n == "quadrature-integrands")
    for key, title, caption, fig in figures_for(details, declared):
        labels = " ".join(ax.get_xlabel() + " " + ax.get_ylabel() for ax in fig.axes) + f" {caption} {title}"
        assert "kernel" not in labels and "pair" not in labels, (key, labels)


def test_every_registered_plotter_is_exercised() -> None:
    keys = {k for _, d, declared in CASES for k, *_ in figures_for(d, declared)}
    assert keys == set(PLOTTERS), set(PLOTTERS) - keys


def test_every_declared_figure_has_a_plotter_and_every_plotter_a_check() -> None:
    """The registry's ``figures=`` and the plotters agree: a check cannot declare a plot that does not exist, and no
    plotter waits for details no check declares."""
    from rfverify.kinds import KINDS, checks_for

    declared = {f: (kind, spec.name) for kind in KINDS for spec in checks_for(kind) for f in spec.figures}
    assert set(declared) <= set(PLOTTERS), set(declared) - set(PLOTTERS)
    assert set(PLOTTERS) <= set(declared), set(PLOTTERS) - set(declared)


def test_only_declared_figures_are_drawn_and_a_broken_plotter_is_not_hidden() -> None:
    """Details that would feed a plotter draw nothing unless the check declared it (no guessing); a declared plotter
    that raises on its own check's details raises (a bug to see, not a plot silently missing)."""
    details = dict(SYNTHETIC[0][1])
    assert [k for k, *_ in figures_for(details, ("bias",))] == ["bias"]
    assert figures_for(details, ()) == []
    assert figures_for({"exact": [1.0, 0.5], "mean": "not numbers"}, ("bias",)) == []  # no data: no plot

    from rfverify.report.plots import register_plotter

    def broken(d: Mapping[str, Any]) -> Figure:
        return d["missing"]  # a plotter bug: the key its check writes is spelt differently

    register_plotter("test-broken", "Broken", "a plotter with a bug", broken)
    try:
        with pytest.raises(KeyError, match="missing"):
            figures_for(details, ("bias", "test-broken"))
    finally:
        PLOTTERS.pop("test-broken")
    with pytest.raises(KeyError):
        figures_for(details, ("no-such-plot",))
