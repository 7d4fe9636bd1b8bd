"""A cheap Haar screen over the whole declared d range of an orthogonal sampler.

The Haar battery runs at the declared d and the corner dimensions; ``explore`` searches every d for the
deterministic properties only.  A sampler whose fast path above some d skips the sign correction of QR is exactly
orthogonal everywhere and Haar below that d, so neither sees it.  ``haar-screen`` draws a few matrices at
dimensions spread over every power-of-two band of the declared range (1, 2 … 3, 4 … 7, …, 128 … 255, 256 …)
and tests two statistics pooled per band whose Haar law is exact at every d.
"""

from __future__ import annotations


import numpy as np
from scipy import stats as sst

from rfverify.errors import PluginError
from rfverify.kinds.orthogonal import OrthogonalContext
from rfverify.profiles import budget
from rfverify.properties.haar import expected_trace_moments
from rfverify.registry import register_check
from rfverify.results import CheckResult, JSONValue
from rfverify.spaces import ORTHOGONAL_SPACE, declared_space
from rfverify.strategies import Range

__all__ = ["check_haar_screen", "bands", "screened_range"]

#: (dimensions drawn per band, matrices per dimension) per profile.


def bands(lo: int, hi: int) -> list[tuple[int, int]]:
    """The power-of-two bands [2^k, 2^(k+1) - 1] of the range lo … hi, clipped to it.

    >>> bands(1, 256)[-3:]
    [(64, 127), (128, 255), (256, 256)]
    """
    out, k = [], 0
    while 2 ** k <= hi:
        a, b = max(lo, 2 ** k), min(hi, 2 ** (k + 1) - 1)
        if a <= b:
            out.append((a, b))
        k += 1
    return out


def _stats(Q: np.ndarray, d: int, group: str) -> tuple[float, float, float, float] | None:
    """(sum of the diagonal's signs, its Haar variance, tr Q - E tr Q, Var tr Q) of one draw, or None where the
    statistic has no use (SO(1) = {1}; SO(2): the two diagonal entries are equal)."""
    if group == "SO" and d <= 2:
        return None
    m1, m2, _ = expected_trace_moments(d, group)
    diag = np.diagonal(Q)
    return float(np.sum(np.sign(diag))), float(d), float(np.trace(Q)) - m1, m2 - m1 * m1


def screened_range(ctx: OrthogonalContext) -> Range:
    """The d range screened: the sampler's declared ``rfverify_space`` d range (1 … 256 by default), narrowed by
    the caller's ``space``, a pinned d alone, within the kind's d range."""
    declared = declared_space(ctx.config.sampler.obj)
    declared = declared if isinstance(declared, dict) else {}
    lo, hi = declared.get("d", (ORTHOGONAL_SPACE.lo, ORTHOGONAL_SPACE.hi))
    narrowed = getattr(ctx.config, "caller_space", None) or {}
    caller = narrowed.get("d", narrowed.get("dim"))
    if isinstance(caller, (tuple, list)) and len(caller) == 2:
        lo, hi = max(int(lo), int(caller[0])), min(int(hi), int(caller[1]))
    pinned = getattr(ctx.config, "pins", {}).get("d")
    if pinned is not None:
        lo = hi = int(pinned)
    return Range(max(ORTHOGONAL_SPACE.lo, int(lo)), min(ctx.config.DIM_RANGE[1], int(hi)))


class SamplerFailed(Exception):
    """The sampler's PluginError at dimension ``d`` of a band (the check's error names d once)."""

    def __init__(self, d: int, error: PluginError) -> None:
        super().__init__(f"at d = {d}: {error}")
        self.d, self.error = d, error


def _band_row(ctx: OrthogonalContext, band: tuple[int, int], per_band: int, per_dim: int, rng: np.random.Generator,
              stream: tuple[object, ...]) -> dict[str, JSONValue] | None:
    """The pooled z of one band: ``per_band`` dimensions drawn in it, ``per_dim`` draws each (None: nothing to
    screen there); a sampler's failure is a :class:`SamplerFailed` naming d."""
    width = band[1] - band[0] + 1
    dims = sorted(int(v) for v in (band[0] + rng.choice(width, size=min(per_band, width), replace=False)))
    sums = np.zeros(4)
    draws = 0
    for d in dims:
        for t in range(per_dim):
            try:
                Q = np.asarray(ctx.config.sampler.draw(d, ctx.rng(*stream, d, t)), dtype=np.float64)
            except PluginError as exc:
                raise SamplerFailed(d, exc) from None
            got = _stats(Q, d, ctx.group)
            if got is not None:
                sums += got
                draws += 1
    if draws == 0:
        return None
    z_sign = sums[0] / np.sqrt(sums[1]) if sums[1] > 0 else 0.0
    z_trace = sums[2] / np.sqrt(sums[3]) if sums[3] > 0 else 0.0
    return {"band": _describe(band), "range": list(band), "dims": dims, "draws": draws, "z_sign": float(z_sign),
            "z_trace": float(z_trace)}


def shrink_band(ctx: OrthogonalContext, band: tuple[int, int], crit: float, per_band: int,
                per_dim: int) -> tuple[tuple[int, int], list[dict[str, JSONValue]]]:
    """The smallest d range inside a failing ``band`` where the screen still rejects: bisect it, keep the lower
    half that rejects (else the upper one), stop when neither half rejects alone or one d is left.  Each half is
    screened afresh (its own dimensions and draws, the same budget as a band) against the band tests' critical
    value ``crit``: a localisation of a failure already decided, not a new verdict.  Returns the range and the
    rows of the halves that rejected."""
    lo, hi = band
    steps: list[dict[str, JSONValue]] = []
    while hi > lo:
        mid = (lo + hi) // 2
        for half in ((lo, mid), (mid + 1, hi)):
            row = _band_row(ctx, half, per_band, per_dim, ctx.rng("haar-screen", "bisect", *half),
                            ("haar-screen", "bisect"))
            if row is not None and max(abs(row["z_sign"]), abs(row["z_trace"])) > crit:
                lo, hi = half
                steps.append(row)
                break
        else:
            break
    return (lo, hi), steps


def _describe(band: tuple[int, int]) -> str:
    return f"d = {band[0]}" if band[0] == band[1] else f"d {band[0]} … {band[1]}"


@register_check("orthogonal", "haar-screen", statistical=True,
                cost="quick 2 x 3, default 3 x 4, thorough 6 x 8 matrices (dimensions x draws) per power-of-two band")
def check_haar_screen(ctx: OrthogonalContext) -> CheckResult:
    """A Haar screen over the whole declared d range: diagonal signs and traces pooled per power-of-two band.

    Property: under Haar measure the signs of the diagonal entries of Q are fair and pairwise independent (left
    multiplication by a diagonal sign matrix of the group preserves Haar measure: one flip on O(d), two on SO(d),
    d >= 3), so their sum has mean 0 and variance d; and tr Q has the exact mean and variance of
    :func:`rfverify.properties.haar.expected_trace_moments` — at every d.
    Test: dimensions drawn at random in every power-of-two band of the declared range (1 … 256 unless the sampler
    declares ``rfverify_space = {"d": (lo, hi)}``; up to 1024), a few draws each (quick 2 x 3, default 3 x 4,
    thorough 6 x 8); per band the two pooled sums standardised by their exact Haar variance, two-sided normal
    z-tests, Bonferroni over bands x 2 at the check's own alpha share (``profile.family_alpha /
    statistical_count``).  A failure names the smallest d range where it shows: the smallest band that rejects,
    bisected (each half screened afresh at the same critical value, the lower half kept when both reject) until
    neither half rejects alone — and every band's z.
    Applies to: every sampler (SO(1) and SO(2) bands are not screened: their diagonal is fixed or equal).
    Catches: a fast path above some d that skips QR's sign correction (E tr Q about -sqrt(2d/pi)), a sampler
    biased towards the identity in part of the range only.
    Reference: F. Mezzadri (2007), How to generate random matrices from the classical compact groups, Notices AMS
    54(5), §5; P. Diaconis & M. Shahshahani (1994), J. Appl. Probab. 31A, Thm 4.
    """
    space = screened_range(ctx)
    per_band, per_dim = budget(ctx.profile, "haar-screen")
    rng = ctx.rng("haar-screen", "dims")
    group = ctx.group
    rows: list[dict[str, JSONValue]] = []
    for band in bands(space.lo, space.hi):
        try:
            row = _band_row(ctx, band, per_band, per_dim, rng, ("haar-screen",))
        except SamplerFailed as exc:
            return ctx.result("error", f"the sampler failed at d = {exc.d}: {exc.error}")
        if row is not None:
            rows.append(row)
    if not rows:
        return ctx.result("skip", f"no dimension of the declared range {space.lo} … {space.hi} can be screened "
                          f"on {group}(d) (SO(1), SO(2) only)")
    tests = 2 * len(rows)
    for row in rows:
        p = 2.0 * sst.norm.sf(max(abs(row["z_sign"]), abs(row["z_trace"])))
        row["p_adjusted"] = float(min(1.0, tests * p))
    crit = float(sst.norm.isf(ctx.alpha / (2.0 * tests)))
    details = {"bands": rows, "alpha": ctx.alpha, "critical_z": crit, "range": [space.lo, space.hi],
               "per_band": per_band, "per_dimension": per_dim}
    worst = min(rows, key=lambda r: r["p_adjusted"])
    failing = [r for r in rows if r["p_adjusted"] < ctx.alpha]
    if not failing:
        largest = max(max(abs(r["z_sign"]), abs(r["z_trace"])) for r in rows)
        return ctx.result("pass", f"{len(rows)} bands of d {space.lo} … {space.hi} screened "
                          f"({sum(r['draws'] for r in rows)} draws): diagonal signs and traces as under Haar measure "
                          f"(largest |z| {largest:.2f}, critical {crit:.2f})", statistic=float(largest),
                          pvalue=worst["p_adjusted"], details=details)
    return _localised(ctx, space, failing, crit, tests, per_band, per_dim, details)


def _localised(ctx: OrthogonalContext, space: Range, failing: list[dict[str, JSONValue]], crit: float, tests: int,
               per_band: int, per_dim: int, details: dict[str, JSONValue]) -> CheckResult:
    """The failure, at the smallest d range where it shows: the first failing band, bisected."""
    first = failing[0]  # bands are in increasing d: the smallest band where it shows
    try:
        shrunk, steps = shrink_band(ctx, tuple(first["range"]), crit, per_band, per_dim)
    except SamplerFailed as exc:
        return ctx.result("error", f"the sampler failed at d = {exc.d} while the failing band was bisected: "
                                   f"{exc.error}")
    details["shrunk_range"] = list(shrunk)
    details["bisection"] = steps
    where_shrunk = (f"{_describe(shrunk)} (the smallest d range where it shows, bisected from {first['band']}: "
                    + (", ".join(r["band"] for r in steps) if steps else "no half rejects alone") + ")")
    stat = "diagonal signs" if abs(first["z_sign"]) >= abs(first["z_trace"]) else "trace"
    z = first["z_sign"] if stat == "diagonal signs" else first["z_trace"]
    others = ", ".join(r["band"] for r in failing[1:])
    details["smallest_failing_band"] = first["band"]
    return ctx.fail(f"not Haar in part of the declared d range: {_describe(shrunk)}",
                    f"the {stat} pooled over {first['draws']} draws at d in {first['dims']} give z = {z:.2f}",
                    f"|z| <= {crit:.2f} (Bonferroni over {tests} band tests at alpha = {ctx.alpha:.3g})",
                    where=f"{where_shrunk}; the declared range is {space.lo} … {space.hi}"
                          + (f"; also {others}" if others else ""),
                    cause="a code path in this range that skips QR's sign correction (multiply Q's columns by "
                          "sign(diag R)), or draws from another law",
                    statistic=float(abs(z)), pvalue=first["p_adjusted"], details=details)
