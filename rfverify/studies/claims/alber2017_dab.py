"""Claim of alber2017 §4.2 that the supervised basis (SAB) is comparable in accuracy to the discriminatively trained
one (DAB), at a reduced scale on generated data; a heavy claim (about 3 s of CPU), evaluated with ``rfverify claims --heavy``
or by its id, appended to :data:`rfverify.studies.claims.alber2017.CLAIMS`.

Data: the project's 4-component mixture in d = 16 (:func:`rfverify.implementations.adapted.mixture_domain`) with 8
classes, the component and the sign of its first in-piece coordinate, so a class boundary runs inside every piece.
RB and SAB get a multinomial logistic classifier on their fixed features (scipy L-BFGS); DAB trains basis and
classifier together (Adam on the softmax cross-entropy, the paper's end-to-end training).  Fixed seeds.
"""

from __future__ import annotations


import numpy as np
from scipy import optimize

from rfverify.studies.claims._common import claim_list
from rfverify.studies.claims.verdicts import Finding

__all__ = ["CLAIMS", "sab_dab_study"]

CLAIMS, claim = claim_list("alber2017")

SEED = 20170607
_D, _GAMMA, _N, _CLASSES = 16, 0.5, 512, 8
_MS, _SEEDS, _SAB_STEPS, _DAB_STEPS = (8, 32), 3, 300, 600
#: "comparable": SAB's mean held-out accuracy within this many points of DAB's at every m
COMPARABLE_POINTS = 3.0


def _labels(X: np.ndarray) -> np.ndarray:
    c = np.argmax(X[:, :4], axis=1)
    return 2 * c + (X[np.arange(len(X)), (4 + 2 * c) % _D] > 0)


def _softmax_fit(F: np.ndarray, y: np.ndarray, l2: float = 1e-4) -> tuple[np.ndarray, np.ndarray]:
    """Multinomial logistic regression on fixed features: L-BFGS on the mean cross-entropy + l2/2 |V|^2."""
    n, m = F.shape
    Y = np.eye(_CLASSES)[y]

    def loss(theta: np.ndarray) -> tuple[float, np.ndarray]:
        V, c = theta[: m * _CLASSES].reshape(m, _CLASSES), theta[m * _CLASSES:]
        Z = F @ V + c
        Z -= Z.max(axis=1, keepdims=True)
        logp = Z - np.log(np.exp(Z).sum(axis=1, keepdims=True))
        R = (np.exp(logp) - Y) / n
        return (float(-np.sum(Y * logp) / n + 0.5 * l2 * np.sum(V * V)),
                np.concatenate([(F.T @ R + l2 * V).ravel(), R.sum(axis=0)]))

    res = optimize.minimize(loss, np.zeros(m * _CLASSES + _CLASSES), jac=True, method="L-BFGS-B",
                            options={"maxiter": 2000})
    return res.x[: m * _CLASSES].reshape(m, _CLASSES), res.x[m * _CLASSES:]


def _dab(X: np.ndarray, y: np.ndarray, m: int, seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """End-to-end: the RFF basis (W, b) and the classifier (V, c) trained together by Adam on the cross-entropy."""
    from rfverify.implementations.adapted import ADAM_BETA1, ADAM_BETA2, ADAM_EPS, _backprop, _forward
    from rfverify.implementations.rff import RandomFourierFeatures

    rb = RandomFourierFeatures(m, seed, gamma=_GAMMA).fit(X)
    params = [np.array(rb.W_, dtype=float), np.array(rb.b_, dtype=float), np.zeros((m, _CLASSES)), np.zeros(_CLASSES)]
    mom = [np.zeros_like(p) for p in params]
    vel = [np.zeros_like(p) for p in params]
    Y = np.eye(_CLASSES)[y]
    for t in range(1, _DAB_STEPS + 1):
        F, U = _forward(X, params[0], params[1])
        Z = F @ params[2] + params[3]
        Z -= Z.max(axis=1, keepdims=True)
        P = np.exp(Z)
        R = (P / P.sum(axis=1, keepdims=True) - Y) / len(X)
        dW, db = _backprop(X, U, True, R @ params[2].T)
        for p, g, mo, ve in zip(params, (dW, db, F.T @ R, R.sum(axis=0)), mom, vel):
            mo *= ADAM_BETA1
            mo += (1 - ADAM_BETA1) * g
            ve *= ADAM_BETA2
            ve += (1 - ADAM_BETA2) * g * g
            p -= 0.01 * (mo / (1 - ADAM_BETA1**t)) / (np.sqrt(ve / (1 - ADAM_BETA2**t)) + ADAM_EPS)
    return params[0], params[1], params[2], params[3]


def sab_dab_study(seeds: int = _SEEDS) -> dict:
    """{m: {"RB": [acc per seed], "SAB": [...], "DAB": [...]}}: held-out accuracy on 512 test points."""
    from rfverify.implementations.adapted import SupervisedAdaptedBasis, features, mixture_domain
    from rfverify.implementations.rff import RandomFourierFeatures

    out: dict = {m: {"RB": [], "SAB": [], "DAB": []} for m in _MS}
    for s in range(seeds):
        rng = np.random.default_rng([SEED, s])
        X, Xt = mixture_domain(_N, _D, rng), mixture_domain(_N, _D, rng)
        y, yt = _labels(X), _labels(Xt)
        for m in _MS:
            for name, fm in (("RB", RandomFourierFeatures(m, 10 * s + m, gamma=_GAMMA).fit(X)),
                             ("SAB", SupervisedAdaptedBasis(m, 10 * s + m, gamma=_GAMMA, n_steps=_SAB_STEPS).fit(X, y))):
                V, c = _softmax_fit(fm.transform(X), y)
                out[m][name].append(float(np.mean(np.argmax(fm.transform(Xt) @ V + c, axis=1) == yt)))
            W, b, V, c = _dab(X, y, m, 10 * s + m)
            out[m]["DAB"].append(float(np.mean(np.argmax(features(Xt, W, b) @ V + c, axis=1) == yt)))
    return out


@claim("sec4.2-sab-comparable-dab", "Section 4.2 (Fig. 1)",
       "Fig. 1 shows that the approach [SAB] is comparable in terms of classification accuracy to discriminatively "
       "trained basis (DAB)",
       f"reduced scale, generated data: 8-class mixture in d = {_D} ({_N} fit / {_N} test points), RB and SAB "
       f"({_SAB_STEPS} Adam steps on the alignment) with a multinomial logistic classifier, DAB trained end to end "
       f"({_DAB_STEPS} Adam steps), m = {', '.join(map(str, _MS))}, {_SEEDS} seeds; rule: SAB's mean accuracy within "
       f"{COMPARABLE_POINTS:g} points of DAB's at every m (heavy: --heavy)",
       notation=(("comparable", f"mean held-out accuracies within {COMPARABLE_POINTS:g} points", "Sec. 4.2, read "
                  "against the paper's own exception ('only for CoverType SAB performs significantly worse')"),
                 ("DAB", "basis and classifier trained jointly on the classification loss", "Sec. 3.2, DAB")),
       audit="added 2026-11-29 and audited against the notation rule: one reading; generated data, not the paper's, "
             "so the row records what a generated mixture shows and cannot count against the paper",
       heavy=True)
def _sab_dab() -> tuple[str, Finding]:
    res = sab_dab_study()
    mean = {m: {k: 100 * float(np.mean(v)) for k, v in row.items()} for m, row in res.items()}
    ok = all(abs(row["SAB"] - row["DAB"]) <= COMPARABLE_POINTS for row in mean.values())
    worst = max(mean, key=lambda m: abs(mean[m]["SAB"] - mean[m]["DAB"]))
    return ("Held-out accuracy RB / SAB / DAB (%, mean of " + f"{_SEEDS} seeds): "
            + "; ".join(f"{row['RB']:.1f} / {row['SAB']:.1f} / {row['DAB']:.1f} at m = {m}" for m, row in mean.items())
            + f". The largest |SAB - DAB| is {abs(mean[worst]['SAB'] - mean[worst]['DAB']):.1f} points (m = {worst}); "
            f"at m = {_MS[0]} RB is {min(mean[_MS[0]]['SAB'], mean[_MS[0]]['DAB']) - mean[_MS[0]]['RB']:.1f} points "
            "below the lower of the two. "
            "Generated data, not the paper's four data sets.",
            Finding(ok, empirical=True, power=f"{_SEEDS} seeds per m on generated data (8 classes, {_N} test points: "
                                              "one point of accuracy is 5 test points)"))
