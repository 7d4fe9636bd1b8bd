"""Provenance of every written report: the versions and platform that produced it."""

from __future__ import annotations

import platform
import sys

__all__ = ["provenance"]


def provenance() -> dict[str, str]:
    """rfverify, numpy, scipy and Python versions and the platform (recorded in every JSON and HTML page)."""
    import numpy
    import scipy

    from rfverify.version import __version__

    return {
        "rfverify": __version__,
        "numpy": numpy.__version__,
        "scipy": scipy.__version__,
        "python": platform.python_version(),
        "platform": f"{sys.platform}-{platform.machine()}",
    }
