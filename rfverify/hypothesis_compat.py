"""The one place rfverify reaches into Hypothesis' private internals, behind a version check that fails loudly.

Hypothesis (>= 6.131) draws, with probability 0.05 per choice, constants it collects from the source of every
"local" module in ``sys.modules``, so which examples a seeded search generates depends on what the process has
imported (measured: the same ``explore`` of rff-cossin tried 23 configurations of one coverage cell under
``rfverify.verify`` and 29 under ``rfverify report``).  :func:`search_constants_hidden` empties that pool during
an ``explore`` search, so its examples depend on the seed and the Hypothesis version only.  Hypothesis has no
public switch for it: the pool lives in ``hypothesis.internal.conjecture.providers``.

The patch is verified for the Hypothesis releases :data:`VERIFIED` names (the pin in ``pyproject.toml`` has the
same upper bound; ``tests/test_hypothesis_compat.py`` checks both and that the patch still has its effect).  On a
Hypothesis with local constants whose internals no longer have the names the patch needs,
:func:`search_constants_hidden` raises :class:`HypothesisIncompatible` — it never silently turns the patch off.
"""

from __future__ import annotations

from contextlib import contextmanager
from typing import Any, Iterator

__all__ = ["VERIFIED", "LOCAL_CONSTANTS_SINCE", "HypothesisIncompatible", "hypothesis_version",
           "search_constants_hidden"]

#: The Hypothesis releases the patch is verified with: ``lower <= version < upper`` (``pyproject.toml``'s pin).
VERIFIED = ((6, 80), (6, 171))
#: The first release that draws constants from the local modules' source.
LOCAL_CONSTANTS_SINCE = (6, 131)


class HypothesisIncompatible(RuntimeError):
    """The installed Hypothesis changed the private internals the seeded search relies on."""


def hypothesis_version() -> tuple[int, ...]:
    """The installed Hypothesis' version as a tuple of integers (``(6, 170, 17)``)."""
    import hypothesis

    return tuple(int(p) for p in hypothesis.__version__.split(".")[:3] if p.isdigit())


#: The constants cache of our searches (global constants only; kept apart from Hypothesis' own, which a user's
#: property tests in the same process fill with their local constants).
_SEARCH_CONSTANTS_CACHE: dict[Any, Any] = {}


@contextmanager
def search_constants_hidden() -> Iterator[None]:
    """During the ``with`` block Hypothesis draws no constants from the local modules' source, and its cache of
    constants is the search's own.  Before :data:`LOCAL_CONSTANTS_SINCE` there is nothing to hide."""
    if hypothesis_version()[:2] < LOCAL_CONSTANTS_SINCE:
        yield
        return
    try:
        from hypothesis.internal.conjecture import providers as _p

        empty = _p.Constants(integers=_p.SortedSet(), floats=_p.SortedSet(key=_p.float_to_int),
                             bytes=_p.SortedSet(), strings=_p.SortedSet())
        saved = (_p._get_local_constants, _p.CONSTANTS_CACHE)
    except (ImportError, AttributeError, TypeError) as exc:
        import hypothesis

        lo, hi = (".".join(map(str, v)) for v in VERIFIED)
        raise HypothesisIncompatible(
            f"Hypothesis {hypothesis.__version__} changed the internals rfverify's explore uses to make a seeded "
            f"search independent of the imported modules ({type(exc).__name__}: {exc}); install a verified "
            f"release (hypothesis>={lo},<{hi})") from exc
    # a plain dict in place of Hypothesis' LRUCache (the provider only gets and sets keys in it): a duck-typed
    # stand-in the stubs of the private module cannot express
    _p._get_local_constants, _p.CONSTANTS_CACHE = (lambda: empty), _SEARCH_CONSTANTS_CACHE  # type: ignore[assignment]
    try:
        yield
    finally:
        _p._get_local_constants, _p.CONSTANTS_CACHE = saved
