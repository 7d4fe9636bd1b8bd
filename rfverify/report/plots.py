"""Plots of a check's ``details``, as deterministic inline SVG (matplotlib, no pyplot).

Rendering is generic: every registered *plotter* looks at a check's
``details`` mapping and either draws a figure or returns ``None`` when the
keys it needs are absent, so any plug-in kind gets plots by using the
documented detail keys (``docs/reports.md``) and nothing breaks when they are
missing.  Built-in plotters:

==================  =====================================================================
plotter             detail keys
==================  =====================================================================
``kernel-scatter``  ``exact`` + ``mean`` (or ``estimates``: trials x pairs): estimate vs exact
``bias``            ``exact`` (or ``expected``), ``mean``, ``half_width`` [, ``labels`` or
                    ``moments``, ``target_bias``] — also Haar moment tests
``error-rate``      ``m`` + ``mse`` or ``variance`` [, ``slope``, ``intercept``, ``mse_se_log``]
``tails``           ``tails``: [{``eps``, ``bound``, ``frequencies``}] [, ``bound_C``, ``m_out``]
``histograms``      ``histograms`` (or ``histogram``): [{``edges``, ``density`` or ``counts``
                    [, ``x``, ``pdf``, ``label``]}] — e.g. Haar diagnostics vs exact densities
``exactness``       ``degrees`` + ``errors`` [, ``tolerance`` or ``tolerances``] — quadrature
                    exactness error by polynomial degree
``adapted``         ``m_adapted``, ``error_adapted``, ``m_reference``, ``error_reference`` — held-out
                    error of an adapted basis and its random reference against m (alber2017 Fig. 1)
==================  =====================================================================

Other kinds add their own with :func:`register_plotter`.  SVG output is
byte-stable: a fixed ``svg.hashsalt`` (salted per figure so element ids never
collide inside one HTML page), no ``Date`` metadata, glyphs as paths.
"""

from __future__ import annotations

import io
import math
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable, Mapping, Sequence, Union

import matplotlib
import numpy as np
from matplotlib.figure import Figure

from rfverify.results import JSONRecord

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.axis import Axis
    from matplotlib.typing import RcKeyType

__all__ = ["Plot", "register_plotter", "plots_for", "figures_for", "figure_to_svg", "PLOTTERS", "COLOUR_NAMES"]

#: One plotter: ``details -> Figure | None`` (None: the keys it needs are not there).
Plotter = Callable[[JSONRecord], "Figure | None"]


@dataclass(frozen=True)
class Plot:
    """A rendered plot: a title, a caption and the SVG markup (no XML prologue)."""

    key: str
    title: str
    caption: str
    svg: str


#: A caption: fixed text, or a function of the check's ``details`` (so it names only what is drawn).
Caption = Union[str, Callable[[JSONRecord], str]]

#: name -> (title, caption, plotter), in display order.
PLOTTERS: dict[str, tuple[Caption, Caption, Plotter]] = {}

# Palette: Okabe & Ito (2008), "Color Universal Design", safe for the common colour-vision deficiencies; shared
# with the HTML stylesheet.  Captions name colours with COLOUR_NAMES (tests/test_figures.py holds them to it).
BLUE, ORANGE, GREEN, VERMILLION, SKY = "#0072B2", "#E69F00", "#009E73", "#D55E00", "#56B4E9"
GREY, INK = "#8a8f98", "#1f2328"
COLOUR_NAMES = {BLUE: "blue", ORANGE: "orange", GREEN: "green", VERMILLION: "vermillion", SKY: "sky blue",
                GREY: "grey", INK: "black"}
_RC: dict[RcKeyType, object] = {
    "font.family": "DejaVu Sans",
    "mathtext.fontset": "dejavusans",
    "font.size": 9,
    "axes.titlesize": 9,
    "axes.labelsize": 9,
    "axes.edgecolor": "#59606b",
    "axes.linewidth": 0.7,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "axes.grid": True,
    "grid.color": "#e3e6ea",
    "grid.linewidth": 0.6,
    "xtick.labelsize": 8,
    "ytick.labelsize": 8,
    "xtick.color": "#3b4048",
    "ytick.color": "#3b4048",
    "legend.fontsize": 8,
    "legend.frameon": False,
    "svg.fonttype": "path",
    "path.simplify": False,
}
#: Every single-panel figure has this size (inches), so the cards of a page line up; legends sit below the axes.
FIGSIZE = (4.8, 3.6)


def register_plotter(name: str, title: Caption, caption: Caption, fn: Plotter) -> None:
    """Add (or replace) a plotter; it receives a check's ``details`` and returns a Figure or None.  ``title`` and
    ``caption`` are strings or functions of ``details`` (name only what the figure draws for these details)."""
    PLOTTERS[name] = (title, caption, fn)


def figure_to_svg(fig: Figure, salt: str) -> str:
    """The figure as SVG markup for inlining: deterministic bytes, ids unique per ``salt``."""
    buf = io.StringIO()
    rc: dict[RcKeyType, object] = {"svg.hashsalt": f"rfverify-{salt}", **_RC}
    with matplotlib.rc_context(rc):
        fig.savefig(buf, format="svg", metadata={"Date": None})
    text = buf.getvalue()
    text = text[text.index("<svg"):]  # drop the XML prologue and DOCTYPE: this goes inside HTML
    # Glyph ids (DejaVuSans-41) are shared by every figure; give each figure its own so that the
    # page never holds duplicate ids (content would agree, but duplicate ids are invalid HTML).
    prefix = re.sub(r"[^A-Za-z0-9]", "", salt)[:24] or "f"
    text = re.sub(r'id="([A-Za-z][\w.-]*)"', lambda m: f'id="{prefix}-{m.group(1)}"', text)
    text = re.sub(r'(xlink:href|href)="#([A-Za-z][\w.-]*)"', lambda m: f'{m.group(1)}="#{prefix}-{m.group(2)}"', text)
    text = re.sub(r"url\(#([A-Za-z][\w.-]*)\)", lambda m: f"url(#{prefix}-{m.group(1)})", text)
    # Size by CSS (max-width), keep the intrinsic aspect ratio.
    text = re.sub(r'<svg ([^>]*?)width="([\d.]+)pt" height="([\d.]+)pt"',
                  lambda m: f'<svg {m.group(1)}width="{m.group(2)}pt" height="{m.group(3)}pt" '
                  f'role="img" class="plot"', text, count=1)
    return text


def figures_for(details: JSONRecord, figures: Sequence[str]) -> list[tuple[str, str, str, Figure]]:
    """``(key, title, caption, figure)`` for each plot a check declared (``figures``, its registration's names, in
    that order) that its ``details`` have data for: a plotter returns None when they have none (a skipped check,
    a run without the optional measurement).  A declared name no plotter has is a ``KeyError``; a plotter that
    raises on the details of the check it serves is a bug and is not hidden."""
    out: list[tuple[str, str, str, Figure]] = []
    if not isinstance(details, Mapping):
        return out
    for key in figures:
        title, caption, fn = PLOTTERS[key]
        with matplotlib.rc_context(_RC):
            fig = fn(details)
            if fig is None:
                continue
            text = caption(details) if callable(caption) else caption
            title = title(details) if callable(title) else title
        out.append((key, title, text, fig))
    return out


def plots_for(details: JSONRecord, figures: Sequence[str], *, salt: str) -> list[Plot]:
    """The plots a check declared (``figures``) that its ``details`` have data for, in declared order."""
    return [Plot(key, title, caption, figure_to_svg(fig, f"{salt}-{key}"))
            for key, title, caption, fig in figures_for(details, figures)]


# --------------------------------------------------------------------------- helpers


def _arr(details: JSONRecord, *keys: str) -> np.ndarray | None:
    for k in keys:
        v = details.get(k)
        if v is None:
            continue
        try:
            a = np.asarray(v, dtype=float)
        except (TypeError, ValueError):
            continue
        if a.size:
            return a
    return None


def _plain_log_ticks(axis: Axis, subs: tuple[float, ...]) -> None:
    """Log-axis ticks labelled as plain numbers (16, 0.002) at 1, 2, 5 x 10^k, no crowded minor labels."""
    from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter

    axis.set_major_locator(LogLocator(base=10.0 if subs != (1.0,) else 2.0, subs=subs))
    axis.set_major_formatter(FuncFormatter(lambda v, _pos: f"{v:g}"))
    axis.set_minor_formatter(NullFormatter())


def _new(figsize: tuple[float, float] = FIGSIZE) -> tuple[Figure, Axes]:
    fig = Figure(figsize=figsize, dpi=100, layout="constrained")
    ax = fig.add_subplot(1, 1, 1)
    return fig, ax


def _legend(fig: Figure, ax: Axes, ncols: int = 2) -> None:
    """The legend below the axes (never over the data)."""
    handles, labels = ax.get_legend_handles_labels()
    if handles:  # two columns while they fit the figure's width, else one
        ncols = ncols if max(len(x) for x in labels) <= 30 else 1
        fig.legend(handles, labels, loc="outside lower center", ncols=min(ncols, len(handles)))


# --------------------------------------------------------------------------- built-in plotters


def _kernel_scatter(d: JSONRecord) -> Figure | None:
    exact = _arr(d, "exact")
    if exact is None or exact.ndim != 1:
        return None
    est = _arr(d, "estimates")
    mean = _arr(d, "mean")
    if mean is None and est is None:
        return None
    fig, ax = _new()
    lo = float(np.nanmin(exact))
    hi = float(np.nanmax(exact))
    if est is not None and est.ndim == 2 and est.shape[1] == exact.size:
        xs = np.broadcast_to(exact, est.shape).ravel()
        ax.scatter(xs, est.ravel(), s=4, color=GREY, alpha=0.25, linewidths=0, label="single estimates")
        lo, hi = min(lo, float(np.nanmin(est))), max(hi, float(np.nanmax(est)))
    if mean is not None and mean.shape == exact.shape:
        seeds = f" over {d['trials']} seeds" if "trials" in d else ""
        ax.scatter(exact, mean, s=16, color=BLUE, zorder=3, linewidths=0, label=f"mean estimate{seeds}")
        lo, hi = min(lo, float(np.nanmin(mean))), max(hi, float(np.nanmax(mean)))
    pad = 0.05 * (hi - lo or 1.0)
    ax.plot([lo - pad, hi + pad], [lo - pad, hi + pad], color=INK, lw=0.8, ls="--", label="identity (exact)", zorder=2)
    ax.set_xlim(lo - pad, hi + pad)
    ax.set_ylim(lo - pad, hi + pad)
    ax.set_aspect("equal")
    if _is_quadrature(d):
        ax.set_xlabel(r"exact integral $E\,f(w)$")
        ax.set_ylabel(r"rule's estimate $\sum_i w_i f(x_i)$")
    else:
        ax.set_xlabel(r"exact kernel $k(x, y)$ (dimensionless)")
        ax.set_ylabel(r"estimate $\hat{k}(x, y)$")
    _legend(fig, ax)
    return fig


def _is_quadrature(d: JSONRecord) -> bool:
    """Details of a quadrature rule's unbiasedness: integrands, not kernel pairs."""
    return isinstance(d.get("integrands"), Sequence) and not isinstance(d.get("integrands"), str)


def _kernel_scatter_caption(d: JSONRecord) -> str:
    single = "grey dots: single estimates; " if _arr(d, "estimates") is not None else ""
    where = "integrand" if _is_quadrature(d) else "designed input pair"
    return (f"Blue dots: the mean estimate for each {where}; {single}on the dashed black identity line "
            "the estimate is exact.")


def _bias(d: JSONRecord) -> Figure | None:
    exact, mean, hw = _arr(d, "exact", "expected"), _arr(d, "mean"), _arr(d, "half_width")
    if exact is None or mean is None or hw is None or not (exact.shape == mean.shape == hw.shape):
        return None
    is_kernel = "exact" in d
    bias = mean - exact
    idx = np.arange(bias.size)
    fig, ax = _new()
    target = _target(d)
    if target is not None:
        ax.axhspan(-target, target, color=GREEN, alpha=0.15, lw=0, label=f"±{target:.3g}: bias the check detects")
    ax.axhline(0.0, color=INK, lw=0.8)
    # an interval that excludes 0 is a rejected pair (the intervals are the test's, Bonferroni-adjusted)
    rejected = np.abs(bias) > hw
    for mask, colour, marker, label in ((~rejected, BLUE, "o", "interval covers 0"),
                                        (rejected, VERMILLION, "X", "interval excludes 0 (rejected)")):
        if np.any(mask):
            ax.errorbar(idx[mask], bias[mask], yerr=hw[mask], fmt=marker, ms=4 if marker == "o" else 6,
                        color=colour, ecolor=colour,
                        elinewidth=1.0, capsize=1.8, label=label)
    labels = d.get("labels", d.get("moments", d.get("integrands")))
    if isinstance(labels, Sequence) and len(labels) == bias.size:
        ax.set_xticks(idx)
        if bias.size <= 6:
            ax.set_xticklabels([_short_label(str(s)) for s in labels], fontsize=8)
        else:
            ax.set_xticklabels([_short_label(str(s)) for s in labels], rotation=60, ha="right", fontsize=6.5)
    ax.set_xlim(-0.7, bias.size - 0.3)
    ax.set_xlabel("integrand" if _is_quadrature(d) else "designed input pair" if is_kernel else "statistic")
    ax.set_ylabel("mean estimate − exact integral" if _is_quadrature(d) else r"bias: mean $\hat{k} - k$" if is_kernel
                  else "mean − expected value")
    ax.grid(axis="x", visible=False)
    _legend(fig, ax)
    return fig


def _target(d: JSONRecord) -> float | None:
    target = d.get("target_bias")
    return float(target) if isinstance(target, (int, float)) and math.isfinite(target) and target > 0 else None


def _bias_caption(d: JSONRecord) -> str:
    exact, mean, hw = _arr(d, "exact", "expected"), _arr(d, "mean"), _arr(d, "half_width")
    where = "integrand" if _is_quadrature(d) else "designed input pair" if "exact" in d else "statistic"
    text = (f"Mean minus exact value at each {where}, with the test's simultaneous (Bonferroni-adjusted) interval: "
            "blue dots where the interval covers 0")
    if exact is not None and mean is not None and hw is not None and np.any(np.abs(mean - exact) > hw):
        text += ", vermillion crosses where it excludes 0 (rejected)"
    text += "."
    if _target(d) is not None:
        text += " The green band is the bias the check is sized to detect."
    return text


def _short_label(s: str) -> str:
    s = s.replace("corr=", "ρ ").replace(" pair", "")
    return s if len(s) <= 14 else s[:13] + "…"


def _error_rate(d: JSONRecord) -> Figure | None:
    m = _arr(d, "m")
    quantity = str(d.get("quantity", "MSE"))
    y = _arr(d, "mse", "variance")
    if m is None or y is None or m.ndim != 1 or m.shape != y.shape or np.any(m <= 0):
        return None
    fig, ax = _new()
    se = _arr(d, "mse_se_log")
    pos = y > 0
    if se is not None and se.shape == y.shape:
        lo, hi = y * (1 - np.exp(-2 * se)), y * (np.exp(2 * se) - 1)
        ax.errorbar(m[pos], y[pos], yerr=[lo[pos], hi[pos]], fmt="o", ms=3.5, color=BLUE, elinewidth=1,
                    capsize=2, label=f"observed {quantity} (±2 se)", zorder=3)
    else:
        ax.plot(m[pos], y[pos], "o", ms=3.5, color=BLUE, label=f"observed {quantity}", zorder=3)
    grid = np.geomspace(m.min(), m.max(), 50)
    slope, intercept = d.get("slope"), d.get("intercept")
    if isinstance(slope, (int, float)) and isinstance(intercept, (int, float)):
        ax.plot(grid, np.exp(intercept + slope * np.log(grid)), color=BLUE, lw=1, label=f"fit: slope {slope:.3f}")
        # the theoretical 1/m line through the fit at the geometric centre of the grid
        xc = math.exp(float(np.mean(np.log(m))))
        yc = math.exp(intercept + slope * math.log(xc))
    elif np.any(pos):
        xc, yc = float(m[pos][0]), float(y[pos][0])
    else:
        return None
    ax.plot(grid, yc * (grid / xc) ** -1.0, color=ORANGE, lw=1.2, ls="--", label="theory: slope −1")
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    _plain_log_ticks(ax.xaxis, subs=(1.0,))
    _plain_log_ticks(ax.yaxis, subs=(1.0, 2.0, 5.0))
    ax.set_xlabel("number of features m (log scale)")
    ax.set_ylabel(quantity + r" of $\hat{k}$ (log scale)")
    _legend(fig, ax)
    return fig


def _error_rate_caption(d: JSONRecord) -> str:
    fitted = isinstance(d.get("slope"), (int, float)) and isinstance(d.get("intercept"), (int, float))
    text = "Blue dots: the observed error at each m, on log–log axes"
    if fitted:
        text += "; solid blue line: the weighted least-squares fit on log MSE"
    return text + "; dashed orange line: Monte Carlo theory's slope −1" + (" through the fit's centre." if fitted
                                                                           else " through the first point.")


def _tails(d: JSONRecord) -> Figure | None:
    tails = d.get("tails")
    if not isinstance(tails, Sequence) or not tails or not all(isinstance(t, Mapping) for t in tails):
        return None
    eps = np.array([float(t["eps"]) for t in tails])
    bound = np.array([float(t["bound"]) for t in tails])
    freqs = [np.asarray(t.get("frequencies", [t.get("max_frequency", np.nan)]), dtype=float) for t in tails]
    positive = np.concatenate([f[f > 0] for f in freqs] + [bound[bound > 0]])
    floor = float(np.min(positive)) / 5 if positive.size else 1e-4  # observed zeros are drawn here (log axis)
    fig, ax = _new()
    C, m = d.get("bound_C"), d.get("m_out", d.get("m"))
    if isinstance(C, (int, float)) and isinstance(m, (int, float)) and C > 0:
        g = np.linspace(0.7 * eps.min(), 1.15 * eps.max(), 200)
        ax.plot(g, np.minimum(1.0, 2 * np.exp(-m * g * g / (2 * C**4))), color=ORANGE, lw=1.2,
                label=f"Hoeffding bound (C = {C:.4g}, m = {int(m)})")
    ax.plot(eps, bound, "s", ms=4.5, color=ORANGE, mfc="white", label="bound at tested ε")
    width = 0.012 * (eps.max() - eps.min() or eps.max())
    seen_pos = seen_zero = False
    for i, f in enumerate(freqs):
        jitter = (np.arange(f.size) - (f.size - 1) / 2) * width / max(1, f.size - 1) * 2
        pos = f > 0
        if np.any(pos):
            ax.plot(eps[i] + jitter[pos], f[pos], "o", ms=2.6, color=BLUE, alpha=0.6,
                    label=None if seen_pos else "observed frequency, each pair")
            seen_pos = True
        if np.any(~pos):
            ax.plot(eps[i] + jitter[~pos], np.full(int((~pos).sum()), floor), "v", ms=3, color=GREY,
                    label=None if seen_zero else "observed 0 (drawn at the floor)")
            seen_zero = True
    ax.set_yscale("log")
    ax.set_ylim(bottom=floor / 2, top=1.5)
    ax.set_xlabel(r"$\varepsilon$: absolute kernel error $|\hat{k} - k|$")
    ax.set_ylabel(r"$P(|\hat{k} - k| \geq \varepsilon)$ (log scale)")
    _legend(fig, ax)
    return fig


def _tails_caption(d: JSONRecord) -> str:
    tails = d.get("tails") or []
    freqs = [np.asarray(t.get("frequencies", [t.get("max_frequency", np.nan)]), dtype=float) for t in tails]
    has_pos = any(np.any(f > 0) for f in freqs)
    has_zero = any(np.any(~(f > 0)) for f in freqs)
    parts = []
    if has_pos:
        parts.append("blue dots: the observed frequency of |estimate − k| ≥ ε at each designed pair")
    if has_zero:
        parts.append("grey triangles: pairs where |estimate − k| ≥ ε never happened, drawn at the floor of "
                     "the log axis")
    text = "; ".join(parts).capitalize() + "; "
    C = d.get("bound_C")
    curve = "orange line: " if isinstance(C, (int, float)) and C > 0 else ""
    return text + f"{curve}the Hoeffding bound 2·exp(−mε²/(2C⁴)), with orange squares at the tested ε."


def _histograms(d: JSONRecord) -> Figure | None:
    hs = _histogram_list(d)
    if hs is None:
        return None
    cols = min(3, len(hs))
    rows = math.ceil(len(hs) / cols)
    size = FIGSIZE if len(hs) == 1 else (2.6 * cols + 0.4, 2.3 * rows + 0.6)
    fig = Figure(figsize=size, dpi=100, layout="constrained")
    first = None
    for i, h in enumerate(hs):
        ax = fig.add_subplot(rows, cols, i + 1)
        edges = np.asarray(h.get("edges", h.get("bin_edges")), dtype=float)
        if "density" in h:
            dens = np.asarray(h["density"], dtype=float)
        else:
            counts = np.asarray(h["counts"], dtype=float)
            dens = counts / max(1.0, counts.sum()) / np.diff(edges)
        if edges.ndim != 1 or dens.shape != (edges.size - 1,):
            return None
        ax.stairs(dens, edges, fill=True, color=BLUE, alpha=0.35, label="observed (histogram)")
        ax.stairs(dens, edges, color=BLUE, lw=0.8)
        if "pdf" in h:
            x = np.asarray(h.get("x", 0.5 * (edges[1:] + edges[:-1])), dtype=float)
            ax.plot(x, np.asarray(h["pdf"], dtype=float), color=ORANGE, lw=1.3, label="exact density")
        label = str(h.get("label", "statistic"))
        name, _, extra = label.partition(", ")
        ax.set_xlabel(f"value of {name}" + (f" ({extra})" if extra else ""))
        ax.set_ylabel("probability density")
        first = first or ax
    assert first is not None  # hs is not empty
    _legend(fig, first)
    return fig


def _histogram_list(d: JSONRecord) -> list[JSONRecord] | None:
    hs = d.get("histograms", d.get("histogram"))
    if isinstance(hs, Mapping):
        hs = [hs]
    if not isinstance(hs, Sequence) or not hs or not all(isinstance(h, Mapping) for h in hs):
        return None
    return list(hs)[:6]


def _histograms_caption(d: JSONRecord) -> str:
    hs = _histogram_list(d) or []
    exact = any("pdf" in h for h in hs)
    what = "the diagnostic statistic" if len(hs) == 1 else f"each of the {len(hs)} diagnostic statistics"
    return (f"Observed distribution of {what} (blue histogram)" + (" with its exact density (orange line)." if exact
                                                                   else "."))


def _exactness(d: JSONRecord) -> Figure | None:
    deg = _arr(d, "degrees")
    err = _arr(d, "errors", "exactness_errors")
    if deg is None or err is None or deg.shape != err.shape or deg.ndim != 1:
        return None
    fig, ax = _new()
    from matplotlib.ticker import MaxNLocator

    tol = _tolerances(d, err)
    bad = err > tol if tol is not None else np.zeros(err.shape, bool)
    err = np.abs(err)
    positive = np.concatenate([err[err > 0], tol[tol > 0] if tol is not None else []])
    floor = float(np.min(positive)) / 10 if positive.size else 1e-17  # exact zeros are drawn here
    zero = err == 0
    if np.any(~bad & ~zero):
        ax.plot(deg[~bad & ~zero], err[~bad & ~zero], "o", ms=4, color=BLUE, label="|error| within tolerance")
    if np.any(zero):
        ax.plot(deg[zero], np.full(int(zero.sum()), floor), "v", ms=4, color=GREEN, label="exactly 0 (at the floor)")
    if np.any(bad):
        ax.plot(deg[bad], np.abs(err[bad]), "X", ms=5, color=VERMILLION, label="|error| above tolerance")
    if tol is not None:
        ax.step(deg, tol, where="mid", color=ORANGE, lw=1.2, ls="--", label="round-off tolerance")
    claimed = d.get("claimed_degree")
    if isinstance(claimed, (int, float)):
        ax.axvline(claimed + 0.5, color=GREY, lw=0.8, ls=":", label=f"claimed degree {claimed:g}")
    ax.set_yscale("log")
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_xlabel("polynomial degree")
    ax.set_ylabel("|quadrature − exact| / tolerance (log scale)" if d.get("error_unit") == "tolerance"
                  else "|quadrature − exact| (log scale)")
    _legend(fig, ax)
    return fig


def _tolerances(d: JSONRecord, err: np.ndarray) -> np.ndarray | None:
    tol = _arr(d, "tolerances")
    if tol is None and isinstance(d.get("tolerance"), (int, float)):
        tol = np.full(err.shape, float(d["tolerance"]))
    return tol if tol is not None and tol.shape == err.shape else None


def _exactness_caption(d: JSONRecord) -> str:
    err = _arr(d, "errors", "exactness_errors")
    tol = _tolerances(d, err) if err is not None else None
    parts = []
    if err is not None:
        bad = err > tol if tol is not None else np.zeros(err.shape, bool)
        if np.any(~bad & (err != 0)):
            parts.append("blue dots within the tolerance")
        if np.any(err == 0):
            parts.append("green triangles exactly 0 (drawn at the floor of the log axis)")
        if np.any(bad):
            parts.append("vermillion crosses above it")
    text = "Quadrature error on polynomials of each degree: " + ", ".join(parts) + "."
    if tol is not None:
        text += " Dashed orange line: the round-off tolerance."
    if isinstance(d.get("claimed_degree"), (int, float)):
        text += " Dotted grey line: the claimed degree; up to it the error must be round-off."
    return text


register_plotter("kernel-scatter", lambda d: ("Rule's estimate against the exact integral" if _is_quadrature(d)
                                            else "Kernel estimate against the exact kernel"),
                 _kernel_scatter_caption, _kernel_scatter)
register_plotter("bias", "Bias with simultaneous intervals", _bias_caption, _bias)
register_plotter("error-rate", "Mean squared error against m (log–log)", _error_rate_caption, _error_rate)
register_plotter("tails", "Tail frequencies against the Hoeffding bound", _tails_caption, _tails)
register_plotter("histograms", "Histogram against the exact density",
                 _histograms_caption, _histograms)
register_plotter("exactness", "Exactness error by polynomial degree", _exactness_caption, _exactness)


def _adapted(d: JSONRecord) -> Figure | None:
    ma, ea = _arr(d, "m_adapted"), _arr(d, "error_adapted")
    mr, er = _arr(d, "m_reference"), _arr(d, "error_reference")
    if ma is None or ea is None or mr is None or er is None:
        return None
    if any(a.ndim != 1 for a in (ma, ea, mr, er)) or ma.shape != ea.shape or mr.shape != er.shape:
        return None
    if np.any(ma <= 0) or np.any(mr <= 0) or np.any(ea <= 0) or np.any(er <= 0):
        return None
    fig, ax = _new()
    ax.plot(mr, er, "o--", ms=3.5, color=BLUE, lw=1.2, label="reference random basis")
    ax.plot(ma, ea, "s-", ms=3.5, color=ORANGE, lw=1.2, label="adapted basis")
    target = d.get("savings_target_error")
    if isinstance(target, (int, float)) and target > 0:
        ax.axhline(float(target), color=GREY, lw=0.8, ls=":", label="error for the savings factor")
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    _plain_log_ticks(ax.xaxis, subs=(1.0,))
    _plain_log_ticks(ax.yaxis, subs=(1.0, 2.0, 5.0))
    ax.set_xlabel("number of features (log scale)")
    ax.set_ylabel(r"held-out $\|K-\hat K\|_F/\|K\|_F$ (log scale)")
    _legend(fig, ax)
    return fig


def _adapted_caption(d: JSONRecord) -> str:
    text = ("Relative Frobenius error on points the map was not fitted to, mean over seeds (alber2017 Fig. 1, "
            "log–log): "
            "blue circles on a dashed line for the random basis it is compared with, orange squares on a solid line "
            "for the adapted basis.")
    target = d.get("savings_target_error")
    if isinstance(target, (int, float)) and target > 0:
        text += " Dotted grey line: the error at which the savings factor is read."
    return text


register_plotter("adapted", "Held-out kernel approximation error against the number of features", _adapted_caption,
                 _adapted)
