"""The built-in reference kernels (rbf, arc-cosine, polynomial, skewed chi2, Laplacian, maxout, linear, sigmoid).

Each is a :class:`~rfverify.kernels.base.KernelSpec` in :data:`BUILTINS`; :mod:`rfverify.kernels` registers them
explicitly (no registration by import side effect).
"""

from __future__ import annotations

import math

import numpy as np

from rfverify.kernels.base import KernelSpec, ParamSpec

__all__ = ["BUILTINS"]

#: The built-in kernel families, in the order they are registered.
BUILTINS: list[KernelSpec] = []


def _sqdist(X: np.ndarray, Y: np.ndarray) -> np.ndarray:
    # Exact-ish squared distances: expand then clip the round-off negatives.
    d2 = (X * X).sum(1)[:, None] + (Y * Y).sum(1)[None, :] - 2.0 * X @ Y.T
    return np.maximum(d2, 0.0)


def _rbf(X: np.ndarray, Y: np.ndarray, gamma: float) -> np.ndarray:
    return np.exp(-gamma * _sqdist(X, Y))


def _positive(v: float) -> bool:
    return math.isfinite(v) and v > 0


BUILTINS.append(
    KernelSpec(
        name="rbf",
        gram=_rbf,
        params={"gamma": ParamSpec(1.0, float, _positive, "gamma must be a finite number > 0",
                                   "k(x, y) = exp(-gamma ||x - y||^2)", search=(1e-3, 1e3, "log"))},
        doc="Gaussian kernel exp(-gamma ||x - y||^2); random Fourier features sample "
        "omega ~ N(0, 2 gamma I) (Rahimi & Recht 2007; cs4787 lecture 16).",
        # gamma * E||x - y||^2 = gamma * 2 s^2 d = 2 for independent points: values
        # exp(-2 (1 - rho)) over correlations rho in [-1, 1] span [e^-4, 1].
        length_scale=lambda d, gamma: 1.0 / math.sqrt(gamma * d),
        normalized=True,
    )
)


# --------------------------------------------------------------------------
# The scheme zoo's kernels: arc-cosine (shallow and deep),
# polynomial, skewed chi-squared, Laplacian.
# --------------------------------------------------------------------------


def _arccos_J_angle(order: int, t: np.ndarray) -> np.ndarray:
    """Cho & Saul (2009) eq. (3)-(4) as functions of the angle t in [0, pi]: J_0 = pi - t,
    J_1 = sin t + (pi - t) cos t, J_2 = 3 sin t cos t + (pi - t)(1 + 2 cos^2 t)."""
    c, s = np.cos(t), np.sin(t)
    if order == 0:
        return np.pi - t
    if order == 1:
        return s + (np.pi - t) * c
    return 3.0 * s * c + (np.pi - t) * (1.0 + 2.0 * c * c)


def _arccos_J(order: int, cos_t: np.ndarray) -> np.ndarray:
    """J_n of an angle given by its cosine (deeper layers, where only kernel values exist)."""
    return _arccos_J_angle(order, np.arccos(np.clip(cos_t, -1.0, 1.0)))


def _input_angles(X: np.ndarray, Y: np.ndarray) -> np.ndarray:
    """Angles between rows, accurate near 0 and pi: t = 2 atan2(|x^ - y^|, |x^ + y^|).

    arccos of a rounded cosine loses half the digits there (antipodal inputs gave
    J_0 ~ 5e-9 instead of 0); zero rows get t = pi/2 (the convention of the layer step).
    """
    nx = np.linalg.norm(X, axis=1)
    ny = np.linalg.norm(Y, axis=1)
    U = X / np.where(nx > 0, nx, 1.0)[:, None]
    V = Y / np.where(ny > 0, ny, 1.0)[:, None]
    diff = np.linalg.norm(U[:, None, :] - V[None, :, :], axis=2)
    summ = np.linalg.norm(U[:, None, :] + V[None, :, :], axis=2)
    t = 2.0 * np.arctan2(diff, summ)
    return np.where((nx[:, None] > 0) & (ny[None, :] > 0), t, np.pi / 2)


def _arccos_step(order: int, K: np.ndarray, dx: np.ndarray, dy: np.ndarray,
                 t: np.ndarray | None = None) -> tuple[np.ndarray, ...]:
    """One arc-cosine layer on a Gram block K with diagonals dx, dy (Cho & Saul 2009 eq. (9)):
    k'(x, y) = (1/pi) [k(x, x) k(y, y)]^{n/2} J_n(theta), cos theta = k(x, y) / sqrt(k(x, x) k(y, y));
    k'(x, x) = (1/pi) k(x, x)^n J_n(0).  A zero-norm input gets theta = pi/2.  ``t``: the angles,
    when known more accurately than from K (the first layer)."""
    norm = np.sqrt(np.outer(dx, dy))
    if t is None:
        with np.errstate(divide="ignore", invalid="ignore"):
            c = np.where(norm > 0, K / np.where(norm > 0, norm, 1.0), 0.0)
        J = _arccos_J(order, c)
    else:
        J = _arccos_J_angle(order, t)
    K1 = norm**order * J / np.pi
    j0 = float(_arccos_J_angle(order, np.zeros(1))[0]) / np.pi
    return K1, dx**order * j0, dy**order * j0


def _arccos_deep(X: np.ndarray, Y: np.ndarray, order: int, layers: int) -> np.ndarray:
    K, dx, dy = X @ Y.T, (X * X).sum(1), (Y * Y).sum(1)
    for layer in range(layers):
        K, dx, dy = _arccos_step(order, K, dx, dy, _input_angles(X, Y) if layer == 0 else None)
    return K


def _arccos(X: np.ndarray, Y: np.ndarray, order: int) -> np.ndarray:
    return _arccos_deep(X, Y, order, 1)


def _order_ok(v: int) -> bool:
    return v in (0, 1, 2)


_ORDER = ParamSpec(1, int, _order_ok, "order must be 0, 1 or 2", "arc-cosine order n (Theta(t) t^n activation)",
                   search=(0, 2))

BUILTINS.append(
    KernelSpec(
        name="arccos",
        gram=_arccos,
        params={"order": _ORDER},
        doc="arc-cosine kernel of order n (Cho & Saul 2009): (1/pi) ||x||^n ||y||^n J_n(theta); random "
        "features sqrt(2/m) max(0, w.x)^n with w ~ N(0, I) (Heaviside for n = 0).",
        # homogeneous of degree n in each argument: unit-norm inputs on average
        length_scale=lambda d, order: 1.0 / math.sqrt(d),
    )
)

BUILTINS.append(
    KernelSpec(
        name="arccos_deep",
        gram=_arccos_deep,
        params={"order": _ORDER,
                "layers": ParamSpec(2, int, lambda v: 1 <= v <= 16, "layers must be an integer in [1, 16]",
                                    "number of arc-cosine layers (1 is arccos)", search=(1, 4))},
        doc="deep arc-cosine kernel (Cho & Saul 2009 eq. (9)): k^(l+1)(x, y) = (1/pi) [k^(l)(x, x) "
        "k^(l)(y, y)]^{n/2} J_n(theta^(l)), k^(0) = <x, y>; features: layers of sqrt(2/m) max(0, W .)^n.",
        length_scale=lambda d, order, layers: 1.0 / math.sqrt(d),
    )
)


def _polynomial(X: np.ndarray, Y: np.ndarray, gamma: float, coef0: float, degree: int) -> np.ndarray:
    return (gamma * (X @ Y.T) + coef0) ** degree


BUILTINS.append(
    KernelSpec(
        name="polynomial",
        gram=_polynomial,
        params={"gamma": ParamSpec(1.0, float, _positive, "gamma must be a finite number > 0", "scale of <x, y>",
                                   search=(1e-3, 1e3, "log")),
                "coef0": ParamSpec(0.0, float, lambda v: math.isfinite(v) and v >= 0,
                                   "coef0 must be a finite number >= 0", "additive constant c",
                                   search=(0.0, 10.0, "linear")),
                "degree": ParamSpec(2, int, lambda v: 1 <= v <= 32, "degree must be an integer in [1, 32]",
                                    "degree p", search=(1, 5))},
        doc="polynomial kernel (gamma <x, y> + coef0)^degree (scikit-learn's parametrisation); "
        "TensorSketch / PolynomialCountSketch features (Pham & Pagh 2013).",
        length_scale=lambda d, gamma, coef0, degree: 1.0 / math.sqrt(gamma * d),  # gamma <x, x> ~ 1
    )
)


def _skewed_chi2(X: np.ndarray, Y: np.ndarray, skewedness: float) -> np.ndarray:
    c = skewedness
    lx = np.log(X + c)
    ly = np.log(Y + c)
    s = np.log(X[:, None, :] + Y[None, :, :] + 2.0 * c)
    return np.exp(np.sum(math.log(2.0) + 0.5 * lx[:, None, :] + 0.5 * ly[None, :, :] - s, axis=2))


def _skewed_domain(X: np.ndarray, skewedness: float) -> str | None:
    if X.size and float(np.min(X)) <= -skewedness:
        return (f"inputs must be > -skewedness = {-skewedness:g} in every coordinate, got a minimum of "
                f"{float(np.min(X)):.4g} (use the 'positive' domain)")
    return None


BUILTINS.append(
    KernelSpec(
        name="skewed_chi2",
        gram=_skewed_chi2,
        params={"skewedness": ParamSpec(1.0, float, _positive, "skewedness must be a finite number > 0",
                                        "shift c; inputs must be > -c", search=(1e-2, 1e2, "log"))},
        doc="skewed chi-squared kernel prod_i 2 sqrt(x_i + c) sqrt(y_i + c) / (x_i + y_i + 2c) (Li, Ionescu & "
        "Sminchisescu 2010); features sqrt(2/m) cos(W log(x + c) + b), W_ij ~ sech law (scikit-learn).",
        domain_error=_skewed_domain,
        normalized=True,
        domain="positive",
    )
)


def _laplacian(X: np.ndarray, Y: np.ndarray, gamma: float) -> np.ndarray:
    return np.exp(-gamma * np.abs(X[:, None, :] - Y[None, :, :]).sum(axis=2))


BUILTINS.append(
    KernelSpec(
        name="laplacian",
        gram=_laplacian,
        params={"gamma": ParamSpec(1.0, float, _positive, "gamma must be a finite number > 0",
                                   "k(x, y) = exp(-gamma ||x - y||_1)", search=(1e-3, 1e3, "log"))},
        doc="Laplacian kernel exp(-gamma ||x - y||_1) (scikit-learn's laplacian_kernel); random Fourier "
        "features with i.i.d. Cauchy(0, gamma) frequencies (Rahimi & Recht 2007).",
        # E|x_i - y_i| = 2 s / sqrt(pi) for independent N(0, s^2) coordinates: gamma d E|.| = 2.
        length_scale=lambda d, gamma: math.sqrt(math.pi) / (gamma * d),
        normalized=True,
    )
)


def _maxout(X: np.ndarray, Y: np.ndarray, q: int) -> np.ndarray:
    from rfverify.highprec.maxout import maxout_kernel

    return maxout_kernel(X, Y, q=q)


def _maxout_collision(X: np.ndarray, Y: np.ndarray, q: int) -> np.ndarray:
    from rfverify.highprec.maxout import maxout_collision_kernel

    return maxout_collision_kernel(X, Y, q=q)


_Q = ParamSpec(2, int, lambda v: 1 <= v <= 16, "q must be an integer in 1..16 (the tabulated range)",
               "number of Gaussian projections a maxout unit takes the max of", search=(1, 16))

BUILTINS.append(
    KernelSpec(
        name="maxout",
        gram=_maxout,
        params={"q": _Q},
        doc="true expected random-maxout kernel E[max_j <w_j, x> max_j <w_j, z>] = |x||z| K_q(rho), "
        "K_q(rho) = mu_q^2 + int_0^rho kappa_q (Price's theorem; NOT mroueh's Theorem 1); "
        "Chebyshev table, |error| <= 1e-10 |x||z|",
        accuracy=1e-10,  # highprec.maxout.NUMPY_KERNEL_ABS_ERROR
    )
)
BUILTINS.append(
    KernelSpec(
        name="maxout_collision",
        gram=_maxout_collision,
        params={"q": _Q},
        doc="collision kernel kappa_q(x, z) = P(argmax_j <w_j, x> = argmax_j <w_j, z>) (mroueh Remark 1); "
        "|error| <= 1e-10",
        normalized=True,
        accuracy=1e-10,  # highprec.maxout.NUMPY_KERNEL_ABS_ERROR
    )
)


# --------------------------------------------------------------------------
# The cs4787 lecture's "grand list": linear and the tanh "sigmoid" kernel, which is
# listed there but is NOT positive semi-definite in general; composites in rfverify.kernels.composition.
# --------------------------------------------------------------------------


def _linear(X: np.ndarray, Y: np.ndarray) -> np.ndarray:
    return X @ Y.T


BUILTINS.append(
    KernelSpec(
        name="linear",
        gram=_linear,
        params={},
        doc="linear kernel <x, y> (cs4787 lecture 16); exact features phi(x) = x.",
        length_scale=lambda d: 1.0 / math.sqrt(d),  # <x, x> ~ 1
    )
)


def _sigmoid(X: np.ndarray, Y: np.ndarray, gamma: float, coef0: float) -> np.ndarray:
    return np.tanh(gamma * (X @ Y.T) + coef0)


BUILTINS.append(
    KernelSpec(
        name="sigmoid",
        gram=_sigmoid,
        params={"gamma": ParamSpec(1.0, float, _positive, "gamma must be a finite number > 0", "scale of <x, y>"),
                "coef0": ParamSpec(0.0, float, math.isfinite, "coef0 must be a finite number", "offset r")},
        doc="sigmoid kernel tanh(gamma <x, y> + coef0) (cs4787 lecture 16's list; scikit-learn's sigmoid_kernel); "
        "NOT positive semi-definite in general: no feature map exists.",
        length_scale=lambda d, gamma, coef0: 1.0 / math.sqrt(gamma * d),  # gamma <x, x> ~ 1
        psd=False,
        psd_note="tanh(gamma <x, y> + coef0) is not positive semi-definite in general (Lin & Lin 2003, "
        "'A study on sigmoid kernels for SVM'): at points of very different norms, or once tanh saturates "
        "to sign(<x, y>), Gram matrices have negative eigenvalues",
    )
)
