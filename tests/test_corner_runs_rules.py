"""The decision rules of :func:`rfverify.properties.corner_runs.at_corners`, with stub check bodies on a real
feature-map context (no statistics run, so each test takes milliseconds):

* which configurations run (the main one and the design's corners; ``grid``, ``declared_at_params`` and
  ``declared_at_config``; a pinned corner alone; a factory's declared space);
* what each corner's entry records (a pass, a failure, a corner where the check does not apply, a plug-in error);
* the verdict: the first failure, else a plug-in error at a corner after the other corners are judged, else the
  main configuration's result with every corner that ran named in its message.

The statistical behaviour at the corners (power, false alarms, replays) is in ``tests/test_corners.py``.
"""

from __future__ import annotations

import numpy as np
import pytest

from rfverify.corners import CornerNotApplicable, corner_budget
from rfverify.errors import PLUGIN_RAISED, PluginError
from rfverify.implementations.rff import RandomFourierFeatures
from rfverify.kinds import checks_for
from rfverify.kinds.feature_map import FeatureMapConfig
from rfverify.properties.corner_runs import at_corners, corners_of

RBF = dict(kernel="rbf", kernel_params={"gamma": 0.5}, dim=16, bound=2 ** 0.5)
#: The default design for RFF at d = 16 (gamma moves in [1e-3, 1e3]).
DESIGN = [(1, 1, "float64", {}), (16, 3, "float32", {}), (256, 65, "float64", {"gamma": 0.001}),
          (16, 65, "float64", {"gamma": 1000.0})]


def _ctx(impl=RandomFourierFeatures, check="unbiasedness", **kw):
    spec = next(s for s in checks_for("feature-map") if s.name == check)
    return FeatureMapConfig(impl, profile="default", **{**RBF, **kw}).context(spec)


class Stub:
    """A check body: records the configurations it ran at; ``at``: per d, what to do there."""

    def __init__(self, **at):
        self.at, self.seen = at, []

    def __call__(self, c):
        corner = c.corner
        self.seen.append(None if corner is None else (corner.d, corner.m, corner.dtype, dict(corner.params)))
        what = self.at.get(f"d{c.dim}", "pass") if corner is not None else self.at.get("main", "pass")
        if what == "not-applicable":
            raise CornerNotApplicable(f"nothing to judge at d = {c.dim}")
        if what == "raise":
            raise PluginError("MyMap", f"refused d = {c.dim}" + "!" * 400)
        status = "pass" if what == "skewed" else what
        return c.result(status, f"{status} at d = {c.dim}", pvalue=0.5, statistic=1.25,
                        details={"trials": 7, **({"untested_skewed": ["pair 3"]} if what == "skewed" else {})})


def _entries(res):
    return [(c["d"], c["n_components"], c["status"]) for c in res.details["corners"]]


def test_every_design_corner_runs_after_the_main_configuration_and_the_message_names_them():
    body = Stub()
    res = at_corners(_ctx(), body)
    assert body.seen == [None] + DESIGN
    assert res.status == "pass" and res.message == (
        "pass at d = 16; at 4 corner configurations too (d = 1, m = 1, float64; d = 16, m = 3, float32; "
        "d = 256, m = 65, float64, gamma=0.001; d = 16, m = 65, float64, gamma=1000.0)")
    assert "corner" not in res.details  # the main configuration's result
    first = res.details["corners"][0]
    assert first == {"d": 1, "n_components": 1, "dtype": "float64", "params": {}, "covers": "m = 1 and the smallest d",
                     "status": "pass", "statistic": 1.25, "pvalue": 0.5, "alpha": first["alpha"], "trials": 7}
    split = res.details["alpha_split"]
    assert split == {"main": split["main"], "per_corner": split["per_corner"], "corners_in_design": 4, "share": 0.5,
                     "check_alpha": _ctx().alpha}
    assert split["main"] == pytest.approx(_ctx().alpha / 2) and split["per_corner"] == pytest.approx(_ctx().alpha / 8)
    assert first["alpha"] == pytest.approx(split["per_corner"])


def test_one_corner_that_ran_is_named_in_the_singular_and_a_grid_by_its_widths():
    body = Stub(d1="not-applicable", d256="not-applicable", d16="not-applicable")
    res = at_corners(_ctx(), lambda c: body(c) if c.corner is None or c.corner.d != 256 else Stub()(c))
    assert res.message == "pass at d = 16; at 1 corner configuration too (d = 256, m = 65, float64, gamma=0.001)"
    grid = at_corners(_ctx(), Stub(d1="not-applicable", d16="not-applicable"), grid=(2, 8))
    assert grid.message == "pass at d = 16; at 1 corner configuration too (d = 256, m = 2/8, float64, gamma=0.001)"
    assert at_corners(_ctx(), Stub(main="pass", d1="not-applicable", d16="not-applicable", d256="not-applicable"),
                      ).message == "pass at d = 16"  # no corner ran: no note


def test_the_options_choose_the_configurations():
    body = Stub()
    at_corners(_ctx(), body, grid=True)
    # the grid changes only what a corner's body sees as its widths; the corners are the design's
    assert body.seen == [None] + DESIGN
    seen_grids = []
    at_corners(_ctx(), lambda c: (seen_grids.append(c.corner.grid if c.corner else None), Stub()(c))[1], grid=True)
    assert seen_grids == [None] + [corner_budget("default").rate_ms] * 4
    seen_grids.clear()
    at_corners(_ctx(), lambda c: (seen_grids.append(c.corner.grid if c.corner else None), Stub()(c))[1])
    assert seen_grids == [None] + [()] * 4  # by default a corner uses its own n_components
    body = Stub()
    at_corners(_ctx(), body, declared_at_params=True)  # the kernel parameters given stay
    assert body.seen == [None] + [(d, m, t, {}) for d, m, t, _ in DESIGN]
    body = Stub()
    fixed = at_corners(_ctx(space={"d": (16, 16)}), body, declared_at_params=True)
    # d fixed: both parameter corners become d = 16, m = 65, float64 once their parameters stay: one runs
    assert body.seen == [None, (16, 1, "float64", {}), (16, 3, "float32", {}), (16, 65, "float64", {})]
    assert len(fixed.details["corners"]) == 3
    body = Stub()
    res = at_corners(_ctx(), body, declared_at_config=True)  # a declaration about the main configuration
    assert body.seen == [None] and res.details["corners"] == [] and res.message == "pass at d = 16"


def test_a_pinned_corner_runs_alone_as_the_corner_it_is():
    body = Stub()
    ctx = _ctx(pins={"d": 3, "n_components": 5})
    res = at_corners(ctx, body, declared_at_config=True)  # a pinned corner runs whatever the check declares
    assert body.seen == [(3, 5, "float64", {})]
    assert res.message == "pass at d = 3"
    assert res.details["corner"] == {"d": 3, "n_components": 5, "dtype": "float64", "params": {}, "covers": "pinned"}
    assert _entries(res) == [(3, 5, "pass")] and res.details["alpha_split"]["corners_in_design"] == 4
    skip = at_corners(ctx, Stub(d3="not-applicable"))
    assert (skip.status, skip.message) == ("skip", "not applicable at the pinned configuration d = 3, "
                                                    "n_components=5, float64: nothing to judge at d = 3")
    assert skip.details["corner"]["d"] == 3 and _entries(skip) == [(3, 5, "skip")]
    assert skip.details["alpha_split"]["corners_in_design"] == 4


def test_the_first_failing_configuration_is_the_verdict():
    body = Stub(main="fail")
    res = at_corners(_ctx(), body)
    assert body.seen == [None] and res.status == "fail"
    assert res.details["corners"] == "not run: the main configuration did not pass"
    body = Stub(d256="fail")
    res = at_corners(_ctx(), body)
    assert body.seen == [None] + DESIGN[:3] and res.message == "fail at d = 256"
    assert res.details["corner"]["d"] == 256 and _entries(res) == [(1, 1, "pass"), (16, 3, "pass"), (256, 65, "fail")]
    assert res.details["corners"][-1]["message"] == "fail at d = 256"  # a corner that did not pass says why
    assert "message" not in res.details["corners"][0]
    skewed = at_corners(_ctx(), Stub(d1="skewed")).details["corners"][0]
    assert skewed["untested_skewed"] == ["pair 3"] and "untested_skewed" not in at_corners(
        _ctx(), Stub()).details["corners"][0]


def test_a_corner_where_the_check_does_not_apply_is_a_skip_with_its_reason():
    res = at_corners(_ctx(), Stub(d1="not-applicable"))
    assert res.status == "pass"
    assert res.details["corners"][0] == {"d": 1, "n_components": 1, "dtype": "float64", "params": {},
                                         "covers": "m = 1 and the smallest d", "status": "skip",
                                         "why": "nothing to judge at d = 1"}
    assert res.message.startswith("pass at d = 16; at 3 corner configurations too (d = 16, m = 3, float32; ")


def test_a_plugin_error_at_a_corner_is_the_verdict_after_the_other_corners_are_judged():
    body = Stub(d1="raise", d256="raise")
    res = at_corners(_ctx(), body)
    assert body.seen == [None] + DESIGN  # every corner still ran
    assert res.status == "error" and res.details["error_source"] == PLUGIN_RAISED
    msg = "MyMap: refused d = 1" + "!" * 400
    assert res.message == f"at the corner configuration d = 1, n_components=1, float64 (m = 1 and the smallest d): {msg}"
    assert res.details["corner"]["d"] == 1  # the first corner that raised
    assert res.details["alpha_split"]["corners_in_design"] == 4
    assert _entries(res) == [(1, 1, "error"), (16, 3, "pass"), (256, 65, "error"), (16, 65, "pass")]
    assert res.details["corners"][0] == {"d": 1, "n_components": 1, "dtype": "float64", "params": {},
                                         "covers": "m = 1 and the smallest d", "status": "error",
                                         "message": msg[:300]}
    fail_later = at_corners(_ctx(), Stub(d1="raise", d256="fail"))
    assert fail_later.status == "fail"  # a failure found after a plug-in error is the verdict


def _factory_declaring(lo, hi):
    def make(n_components, random_state):
        est = RandomFourierFeatures(n_components=n_components, random_state=random_state)
        est.rfverify_space = {"d": (lo, hi)}  # declared on the object the factory builds
        return est

    return make


def test_a_factory_s_declared_space_moves_the_corners():
    corners, with_main = corners_of(_ctx(_factory_declaring(4, 32)))
    assert with_main and [(c.d, c.m) for c in corners][:3] == [(4, 1), (16, 3), (32, 65)]

    def broken(n_components, random_state):
        raise RuntimeError("cannot build")

    assert [c.d for c in corners_of(_ctx(broken))[0]][:3] == [1, 16, 256]  # the other checks report that plug-in


def test_a_sphere_domain_s_corners_start_at_d_2_even_when_that_is_the_largest_d():
    corners, _ = corners_of(_ctx(domain="sphere", space={"d": (1, 2)}, dim=2))
    assert sorted({c.d for c in corners}) == [2]
    corners, _ = corners_of(_ctx(space={"d": (1, 2)}, dim=2))  # the Gaussian domain starts at d = 1
    assert sorted({c.d for c in corners}) == [1, 2]


def test_a_class_s_declared_space_is_read_once_by_the_configuration():
    """A class declaring ``rfverify_space`` is narrowed by the configuration already (``respace`` is None then):
    the corners follow the declaration without building the class again."""
    class Declared(RandomFourierFeatures):
        rfverify_space = {"d": (4, 32)}

    ctx = _ctx(Declared)
    assert ctx.respace is None
    corners, with_main = corners_of(ctx)
    assert with_main and [(c.d, c.m) for c in corners][:3] == [(4, 1), (16, 3), (32, 65)]


def test_a_callable_kernel_keeps_the_main_d_and_moves_no_parameter():
    """d cannot move for a kernel given as a callable (its dimension is the caller's) nor for a callable domain;
    nor can its parameters (it has none rfverify knows): the corners vary m and the dtype at d = 16."""
    def rbf(X, Y):
        return np.exp(-0.25 * ((X[:, None, :] - Y[None, :, :]) ** 2).sum(-1))

    corners, _ = corners_of(_ctx(kernel=rbf, kernel_params={}))
    assert {c.d for c in corners} == {16} and all(c.params == () for c in corners)
    corners, _ = corners_of(_ctx(domain=lambda n, d, rng: rng.standard_normal((n, d))))
    assert {c.d for c in corners} == {16}


def test_kernel_parameters_a_corner_moves_are_named_and_the_given_value_is_not_restated():
    from rfverify.implementations.composite import RBFPlusLaplacianFeatures

    two = _ctx(RBFPlusLaplacianFeatures, kernel="rbf_plus_laplacian",
               kernel_params={"rbf_gamma": 0.5, "laplacian_gamma": 0.25})
    res = at_corners(two, Stub(d1="not-applicable", d16="not-applicable"))
    assert res.message == ("pass at d = 16; at 1 corner configuration too "
                           "(d = 256, m = 65, float64, laplacian_gamma=0.001, rbf_gamma=0.001)")
    # a parameter given at its corner value is not moved there, so it is not restated
    corners, _ = corners_of(_ctx(kernel_params={"gamma": 0.001}))
    assert [c.params for c in corners] == [(), (), (), (("gamma", 1000.0),)]
