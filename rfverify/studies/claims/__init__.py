"""The published-claims registry: every statement from the papers that rfverify checks.

Each provider is a function returning dicts with keys ``id``, ``source``,
``location``, ``statement``, ``method``, ``verdict`` (``holds`` | ``fails`` |
``holds with a correction``) and ``evidence``.  Scheme modules register their
provider here (a ``"module:function"`` string, imported only when claims are
evaluated).  ``rfverify claims`` prints the table.
"""

from __future__ import annotations

import importlib
from dataclasses import asdict, dataclass
from typing import Any, Iterable

from rfverify.errors import UsageError

__all__ = ["Claim", "CLAIM_PROVIDERS", "register_claim_provider", "evaluate_claims", "VERDICTS"]

VERDICTS = ("holds", "fails", "holds with a correction")

#: Providers, in the order their claims are listed.
CLAIM_PROVIDERS: list[str] = [
    "rfverify.studies.claims.mroueh:evaluate_maxout_claims",
    "rfverify.studies.claims.daniely2017:evaluate_compositional_claims",
    "rfverify.studies.claims.alber2017:evaluate_alber2017_claims",
    "rfverify.studies.claims.munkhoeva2018:evaluate_munkhoeva2018_claims",
]


@dataclass(frozen=True)
class Claim:
    id: str
    source: str
    location: str
    statement: str
    method: str
    verdict: str
    evidence: str

    def __post_init__(self) -> None:
        if self.verdict not in VERDICTS:
            raise ValueError(f"claim {self.id}: verdict must be one of {VERDICTS}, got {self.verdict!r}")

    def to_dict(self) -> dict[str, str]:
        return asdict(self)


def register_claim_provider(spec: str) -> None:
    if spec not in CLAIM_PROVIDERS:
        CLAIM_PROVIDERS.append(spec)


def _load(spec: str) -> Any:
    mod, fn = spec.split(":")
    return getattr(importlib.import_module(mod), fn)


def _format_evidence(ev: Any) -> str:
    """Evidence as one readable string: numbers to 6 significant digits, dicts as key = value."""
    if isinstance(ev, str):
        return ev
    if isinstance(ev, dict):
        return "; ".join(f"{k} = {_format_evidence(v)}" for k, v in ev.items())
    if isinstance(ev, (list, tuple)):
        return "[" + ", ".join(_format_evidence(v) for v in ev) + "]"
    try:
        import numbers

        if isinstance(ev, numbers.Real) and not isinstance(ev, bool):
            return f"{float(ev):.6g}"
    except Exception:  # pragma: no cover
        pass
    return str(ev)


def evaluate_claims(sources: Iterable[str] | None = None) -> list[Claim]:
    """Evaluate every registered claim (optionally only those of the given paper sources)."""
    wanted = set(sources) if sources else None
    claims: list[Claim] = []
    for spec in CLAIM_PROVIDERS:
        for raw in _load(spec)():
            fields = {k: str(raw[k]) for k in ("id", "source", "location", "statement", "method", "verdict")}
            fields["evidence"] = _format_evidence(raw["evidence"])
            claim = Claim(**fields)
            if wanted is None or claim.source in wanted:
                claims.append(claim)
    if wanted is not None and not claims:
        known = sorted({c.source for c in evaluate_claims()})
        raise UsageError(f"no claims from {', '.join(sorted(wanted))}; sources are {', '.join(known)}")
    return claims
