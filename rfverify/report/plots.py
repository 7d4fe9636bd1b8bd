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
from typing import Any, Callable, Mapping, Sequence

import matplotlib
import numpy as np
from matplotlib.figure import Figure

__all__ = ["Plot", "register_plotter", "plots_for", "figure_to_svg", "PLOTTERS"]

#: One plotter: ``details -> Figure | None`` (None: the keys it needs are not there).
Plotter = Callable[[Mapping[str, Any]], "Figure | None"]


@dataclass(frozen=True)
class Plot:
    """A rendered plot: a title, a caption and the SVG markup (no XML prologue)."""

    key: str
    title: str
    caption: str
    svg: str


#: name -> (title, caption, plotter), in display order.
PLOTTERS: dict[str, tuple[str, str, Plotter]] = {}

# Palette (colour-blind safe, Okabe–Ito) shared with the HTML stylesheet.
BLUE, ORANGE, GREEN, RED, GREY, INK = "#0072B2", "#E69F00", "#009E73", "#D55E00", "#8a8f98", "#1f2328"
_RC = {
    "font.size": 8.5,
    "axes.titlesize": 9,
    "axes.labelsize": 8.5,
    "axes.edgecolor": "#59606b",
    "axes.linewidth": 0.7,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "axes.grid": True,
    "grid.color": "#e3e6ea",
    "grid.linewidth": 0.6,
    "xtick.labelsize": 7.5,
    "ytick.labelsize": 7.5,
    "xtick.color": "#3b4048",
    "ytick.color": "#3b4048",
    "legend.fontsize": 7.5,
    "legend.frameon": False,
    "svg.fonttype": "path",
    "path.simplify": False,
}
FIGSIZE = (4.6, 3.1)


def register_plotter(name: str, title: str, caption: str, fn: Plotter) -> None:
    """Add (or replace) a plotter; it receives a check's ``details`` and returns a Figure or None."""
    PLOTTERS[name] = (title, caption, fn)


def figure_to_svg(fig: Figure, salt: str) -> str:
    """The figure as SVG markup for inlining: deterministic bytes, ids unique per ``salt``."""
    buf = io.StringIO()
    with matplotlib.rc_context({"svg.hashsalt": f"rfverify-{salt}", **_RC}):
        fig.savefig(buf, format="svg", metadata={"Date": None}, bbox_inches="tight", pad_inches=0.04)
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


def plots_for(details: Mapping[str, Any], *, salt: str) -> list[Plot]:
    """Every plot the registered plotters can draw from ``details`` (in registry order)."""
    out: list[Plot] = []
    if not isinstance(details, Mapping):
        return out
    for key, (title, caption, fn) in PLOTTERS.items():
        with matplotlib.rc_context(_RC):
            try:
                fig = fn(details)
            except (KeyError, TypeError, ValueError, IndexError):
                fig = None  # details of an unexpected shape: skip this plot, never the page
        if fig is None:
            continue
        out.append(Plot(key, title, caption, figure_to_svg(fig, f"{salt}-{key}")))
    return out


# --------------------------------------------------------------------------- helpers


def _arr(details: Mapping[str, Any], *keys: str) -> np.ndarray | None:
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


def _plain_log_ticks(axis: Any, subs: tuple[float, ...]) -> None:
    """Log-axis ticks labelled as plain numbers (16, 0.002) at 1, 2, 5 x 10^k, no crowded minor labels."""
    from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter

    axis.set_major_locator(LogLocator(base=10.0 if subs != (1.0,) else 2.0, subs=subs))
    axis.set_major_formatter(FuncFormatter(lambda v, _pos: f"{v:g}"))
    axis.set_minor_formatter(NullFormatter())


def _new(figsize: tuple[float, float] = FIGSIZE) -> tuple[Figure, Any]:
    fig = Figure(figsize=figsize, dpi=100)
    ax = fig.add_subplot(1, 1, 1)
    return fig, ax


# --------------------------------------------------------------------------- built-in plotters


def _kernel_scatter(d: Mapping[str, Any]) -> Figure | None:
    exact = _arr(d, "exact")
    if exact is None or exact.ndim != 1:
        return None
    est = _arr(d, "estimates")
    mean = _arr(d, "mean")
    if mean is None and est is None:
        return None
    fig, ax = _new((3.4, 3.1))
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
    ax.plot([lo - pad, hi + pad], [lo - pad, hi + pad], color=INK, lw=0.8, ls="--", label="identity", zorder=2)
    ax.set_xlim(lo - pad, hi + pad)
    ax.set_ylim(lo - pad, hi + pad)
    ax.set_aspect("equal")
    ax.set_xlabel(r"exact kernel $k(x, y)$")
    ax.set_ylabel(r"estimate $\hat{k}(x, y)$")
    ax.legend(loc="upper left")
    return fig


def _bias(d: Mapping[str, Any]) -> Figure | None:
    exact, mean, hw = _arr(d, "exact", "expected"), _arr(d, "mean"), _arr(d, "half_width")
    if exact is None or mean is None or hw is None or not (exact.shape == mean.shape == hw.shape):
        return None
    is_kernel = "exact" in d
    bias = mean - exact
    idx = np.arange(bias.size)
    fig, ax = _new((min(5.6, max(3.4, 1.6 + 0.17 * bias.size)), 3.1))
    target = d.get("target_bias")
    if isinstance(target, (int, float)) and math.isfinite(target):
        ax.axhspan(-target, target, color=GREEN, alpha=0.10, lw=0, label=f"±{target:.3g} (bias to detect)")
    ax.axhline(0.0, color=INK, lw=0.8)
    # an interval that excludes 0 is a rejected pair (the intervals are the test's, Bonferroni-adjusted)
    colors = [RED if abs(b) > h else BLUE for b, h in zip(bias, hw)]
    for i in idx:
        ax.errorbar(i, bias[i], yerr=hw[i], fmt="o", ms=3.2, color=colors[i], ecolor=colors[i],
                    elinewidth=1.0, capsize=1.8)
    labels = d.get("labels", d.get("moments"))
    if isinstance(labels, Sequence) and len(labels) == bias.size:
        ax.set_xticks(idx)
        if bias.size <= 6:
            ax.set_xticklabels([_short_label(str(s)) for s in labels], fontsize=7)
        else:
            ax.set_xticklabels([_short_label(str(s)) for s in labels], rotation=60, ha="right", fontsize=6.5)
    ax.set_xlim(-0.7, bias.size - 0.3)
    ax.set_xlabel("designed input pair" if is_kernel else "statistic")
    ax.set_ylabel(r"bias  mean $\hat{k} - k$" if is_kernel else "mean − expected")
    ax.grid(axis="x", visible=False)
    if target is not None:
        ax.legend(loc="upper right")
    return fig


def _short_label(s: str) -> str:
    s = s.replace("corr=", "ρ ").replace(" pair", "")
    return s if len(s) <= 14 else s[:13] + "…"


def _error_rate(d: Mapping[str, Any]) -> Figure | None:
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
    ax.set_xlabel("number of features m")
    ax.set_ylabel(quantity + r" of $\hat{k}$")
    ax.legend(loc="lower left")
    return fig


def _tails(d: Mapping[str, Any]) -> Figure | None:
    tails = d.get("tails")
    if not isinstance(tails, Sequence) or not tails or not all(isinstance(t, Mapping) for t in tails):
        return None
    eps = np.array([float(t["eps"]) for t in tails])
    bound = np.array([float(t["bound"]) for t in tails])
    fig, ax = _new()
    C, m = d.get("bound_C"), d.get("m_out", d.get("m"))
    if isinstance(C, (int, float)) and isinstance(m, (int, float)) and C > 0:
        g = np.linspace(0.7 * eps.min(), 1.15 * eps.max(), 200)
        ax.plot(g, np.minimum(1.0, 2 * np.exp(-m * g * g / (2 * C**4))), color=ORANGE, lw=1.2,
                label=f"Hoeffding bound (C = {C:.4g}, m = {int(m)})")
    ax.plot(eps, bound, "s", ms=4, color=ORANGE, mfc="white", label="bound at tested ε")
    width = 0.012 * (eps.max() - eps.min() or eps.max())
    for i, t in enumerate(tails):
        f = np.asarray(t.get("frequencies", [t.get("max_frequency", np.nan)]), dtype=float)
        jitter = (np.arange(f.size) - (f.size - 1) / 2) * width / max(1, f.size - 1) * 2
        ax.plot(eps[i] + jitter, f, "o", ms=2.2, color=BLUE, alpha=0.55,
                label="observed frequency, each pair" if i == 0 else None)
    ax.set_ylim(bottom=-0.01)
    ax.set_xlabel(r"$\varepsilon$")
    ax.set_ylabel(r"$P(|\hat{k} - k| \geq \varepsilon)$")
    ax.legend(loc="upper right")
    return fig


def _histograms(d: Mapping[str, Any]) -> Figure | None:
    hs = d.get("histograms", d.get("histogram"))
    if isinstance(hs, Mapping):
        hs = [hs]
    if not isinstance(hs, Sequence) or not hs or not all(isinstance(h, Mapping) for h in hs):
        return None
    hs = list(hs)[:6]
    cols = min(3, len(hs))
    rows = math.ceil(len(hs) / cols)
    fig = Figure(figsize=(2.5 * cols + 0.4, 2.2 * rows + 0.2), dpi=100)
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
        ax.stairs(dens, edges, fill=True, color=BLUE, alpha=0.35, label="observed")
        ax.stairs(dens, edges, color=BLUE, lw=0.8)
        if "pdf" in h:
            x = np.asarray(h.get("x", 0.5 * (edges[1:] + edges[:-1])), dtype=float)
            ax.plot(x, np.asarray(h["pdf"], dtype=float), color=ORANGE, lw=1.3, label="exact density")
        if "label" in h:
            ax.set_title(str(h["label"]), fontsize=8)
        if i == 0:
            ax.legend(loc="upper right", fontsize=6.5)
    fig.tight_layout()
    return fig


def _exactness(d: Mapping[str, Any]) -> Figure | None:
    deg = _arr(d, "degrees")
    err = _arr(d, "errors", "exactness_errors")
    if deg is None or err is None or deg.shape != err.shape or deg.ndim != 1:
        return None
    fig, ax = _new()
    from matplotlib.ticker import MaxNLocator

    tol = _arr(d, "tolerances")
    if tol is None and isinstance(d.get("tolerance"), (int, float)):
        tol = np.full(deg.shape, float(d["tolerance"]))
    bad = err > tol if tol is not None and tol.shape == err.shape else np.zeros(err.shape, bool)
    err = np.abs(err)
    positive = np.concatenate([err[err > 0], tol[tol > 0] if tol is not None else []])
    floor = float(np.min(positive)) / 10 if positive.size else 1e-17  # exact zeros are drawn here
    zero = err == 0
    ax.plot(deg[~bad & ~zero], err[~bad & ~zero], "o", ms=4, color=BLUE, label="|error| within tolerance")
    if np.any(zero):
        ax.plot(deg[zero], np.full(int(zero.sum()), floor), "v", ms=4, color=GREEN, label="exactly 0")
    if np.any(bad):
        ax.plot(deg[bad], np.abs(err[bad]), "X", ms=5, color=RED, label="|error| above tolerance")
    if tol is not None and tol.shape == err.shape:
        ax.step(deg, tol, where="mid", color=ORANGE, lw=1.2, ls="--", label="round-off tolerance")
    claimed = d.get("claimed_degree")
    if isinstance(claimed, (int, float)):
        ax.axvline(claimed + 0.5, color=GREY, lw=0.8, ls=":", label=f"claimed degree {claimed:g}")
    ax.set_yscale("log")
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_xlabel("polynomial degree")
    ax.set_ylabel("|quadrature − exact| / tolerance" if d.get("error_unit") == "tolerance"
                  else "|quadrature − exact|")
    ax.legend(loc="upper left")
    return fig


register_plotter("kernel-scatter", "Kernel estimate against the exact kernel",
                 "Each point is one designed input pair; on the dashed identity line the estimate is exact.",
                 _kernel_scatter)
register_plotter("bias", "Bias with simultaneous intervals",
                 "Mean minus exact value at each designed input pair (or moment), with the test's "
                 "Bonferroni-adjusted interval; red: the interval excludes 0. The band is the bias the check is "
                 "sized to detect.", _bias)
register_plotter("error-rate", "Mean squared error against m (log–log)",
                 "Monte Carlo theory predicts slope −1; the fitted line is weighted least squares on log MSE.",
                 _error_rate)
register_plotter("tails", "Tail frequencies against the Hoeffding bound",
                 "Observed frequency of an estimate error |estimate − k| ≥ ε at each designed pair, against "
                 "2·exp(−mε²/(2C⁴)).", _tails)
register_plotter("histograms", "Histograms against the exact densities",
                 "Observed distribution of each diagnostic statistic with its exact density.", _histograms)
register_plotter("exactness", "Exactness error by polynomial degree",
                 "Quadrature error on monomials of each degree; up to the claimed degree it must be round-off.",
                 _exactness)


def _adapted(d: Mapping[str, Any]) -> Figure | None:
    ma, ea = _arr(d, "m_adapted"), _arr(d, "error_adapted")
    mr, er = _arr(d, "m_reference"), _arr(d, "error_reference")
    if any(a is None or a.ndim != 1 for a in (ma, ea, mr, er)) or ma.shape != ea.shape or mr.shape != er.shape:
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
    ax.set_xlabel("number of features")
    ax.set_ylabel(r"held-out $\|K-\hat K\|_F/\|K\|_F$")
    ax.legend(loc="lower left")
    return fig


register_plotter("adapted", "Held-out kernel approximation error against the number of features",
                 "Relative Frobenius error on points the map was not fitted to, mean over seeds, for the adapted "
                 "basis and the random basis it is compared with (alber2017 Fig. 1, log-log).", _adapted)
