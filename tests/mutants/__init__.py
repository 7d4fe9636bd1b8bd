"""The mutant library: realistic, documented bugs in every plug-in kind, and equivalent mutants.

``LIBRARY`` is a list of :class:`rfverify.studies.calibration.Mutant` entries.  A bug entry names the
check(s) that must fail on it (``caught_by``); an *equivalent* mutant changes the code in a way
that is provably harmless for every property rfverify checks, and must pass the whole suite (the
proof is in its ``doc``).  Each entry carries the verify options it is judged with — the same as
the correct implementation it was derived from, so a mutant is held to exactly what the correct
scheme declares.

One module per plug-in kind holds that kind's entries (``BUGS`` and ``EQUIVALENT``) and the
mutants defined for the library: :mod:`.feature_map`, :mod:`.orthogonal`, :mod:`.transform`,
:mod:`.quadrature`, :mod:`.kernel`.  The planted bugs the kinds' own tests use live in the
``*_mutants`` modules (``rff_mutants``, ``zoo_mutants``, ``maxout_mutants``,
``compositional_mutants``, ``broken_orthogonal``, ``transform_mutants``, ``quadrature_mutants``,
``kernel_mutants``) and are reused by import.

A package, importable from the repository root without any ``sys.path`` setting
(``from tests.mutants import LIBRARY``).  Used by ``tests/test_mutant_library.py`` (every bug
caught at the default seed and a few others; every equivalent mutant passes) and by
``rfverify calibrate --mutants tests.mutants`` (power per mutant over many seeds).
"""

from __future__ import annotations

from rfverify.studies.calibration import Mutant

from . import feature_map, kernel, orthogonal, quadrature, transform

__all__ = ["LIBRARY", "BUGS", "EQUIVALENT", "CATEGORIES"]

_KINDS = (feature_map, orthogonal, transform, quadrature, kernel)

BUGS: list[Mutant] = [m for kind in _KINDS for m in kind.BUGS]
EQUIVALENT: list[Mutant] = [m for kind in _KINDS for m in kind.EQUIVALENT]
LIBRARY: list[Mutant] = BUGS + EQUIVALENT

#: The categories the issue asks the library to span (every one has at least one bug).
CATEGORIES = ("scaling", "distributions", "seeding", "caching", "dtype", "orientation", "normalisation", "ordering",
              "weights", "radial laws", "non-Haar samplers", "off-by-one stages", "input mutation")
