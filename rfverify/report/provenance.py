"""Provenance of every written report: the versions and platform that produced it."""

from __future__ import annotations

import platform
import sys

__all__ = ["provenance"]


def _cpu() -> str:
    """The code paths numpy and its BLAS take on this CPU, e.g. ``"X86_V3 / Haswell"``.

    Transcendental functions (``np.cos``, ``np.exp``) and BLAS kernels are dispatched by CPU features, and
    different paths round differently in the last bit: two machines with the same versions but different
    CPUs (AVX2 vs AVX-512) give reports that agree to round-off, not byte for byte.
    """
    try:
        # numpy's stubs omit this private extension module; no public API lists the dispatched CPU features
        from numpy._core import _multiarray_umath as mu  # type: ignore[attr-defined]
        simd = [f for f in mu.__cpu_dispatch__ if mu.__cpu_features__.get(f)]
    except (ImportError, AttributeError):  # pragma: no cover - numpy < 2 or a private API change
        simd = []
    blas = "?"
    try:
        from threadpoolctl import threadpool_info

        blas = next((i.get("architecture") or "?" for i in threadpool_info() if i.get("user_api") == "blas"), "?")
    except Exception:  # pragma: no cover - threadpoolctl is a core dependency; be safe anyway
        pass
    return f"{simd[-1] if simd else 'baseline'} / {blas}"


def _numba() -> str:
    """numba's version, or ``"absent"`` (the structured transforms pick their backend by it)."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("numba")
    except PackageNotFoundError:
        return "absent"


def _hypothesis() -> str:
    """Hypothesis' version: the ``explore`` checks' verdicts and minimal examples depend on its search and
    shrinking engine (its choice of examples changes between releases), so two reports agree byte for byte only
    under the same Hypothesis."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("hypothesis")
    except PackageNotFoundError:  # pragma: no cover - a core dependency
        return "absent"


def provenance() -> dict[str, str]:
    """Versions, platform and CPU code paths that produced a report (recorded in every JSON and HTML page).

    Two runs with equal provenance give byte-identical JSON (``tests/test_reports_committed.py`` checks it);
    with any difference they agree in every verdict and to round-off in every number.
    """
    import numpy
    import scipy

    from rfverify.version import __version__

    return {
        "rfverify": __version__,
        "numpy": numpy.__version__,
        "scipy": scipy.__version__,
        "numba": _numba(),
        "hypothesis": _hypothesis(),
        "python": platform.python_version(),
        "platform": f"{sys.platform}-{platform.machine()}",
        "cpu": _cpu(),
    }


def source_commit() -> str:
    """The short git commit of the rfverify source tree (``+modified`` when tracked files outside ``reports/`` differ
    from it), or ``"unknown"`` (an installed wheel, no git)."""
    import subprocess
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent.parent
    try:
        out = subprocess.run(["git", "-C", str(root), "rev-parse", "--short=12", "HEAD"], capture_output=True,
                             text=True, timeout=5, check=False)
    except (OSError, subprocess.SubprocessError):
        return "unknown"
    commit = out.stdout.strip()
    if not (out.returncode == 0 and commit and all(c in "0123456789abcdef" for c in commit)):
        return "unknown"
    try:  # tracked source files changed since the commit (the generated reports aside): say so
        st = subprocess.run(["git", "-C", str(root), "status", "--porcelain", "--untracked-files=no", "--", ".",
                             ":(exclude)reports"], capture_output=True, text=True, timeout=5, check=False)
    except (OSError, subprocess.SubprocessError):
        return commit
    return commit + ("+modified" if st.returncode == 0 and st.stdout.strip() else "")


def generated_stamp() -> str:
    """'2026-11-29, rfverify 0.1.0, commit 4c21d65f1a2b': the date (UTC; ``SOURCE_DATE_EPOCH`` when set, for
    reproducible builds), the version and the source commit; never a path of the machine."""
    import datetime
    import os

    from rfverify.version import __version__

    epoch = os.environ.get("SOURCE_DATE_EPOCH")
    when = (datetime.datetime.fromtimestamp(int(epoch), tz=datetime.timezone.utc) if epoch and epoch.isdigit()
            else datetime.datetime.now(tz=datetime.timezone.utc))
    return f"{when.date().isoformat()}, rfverify {__version__}, commit {source_commit()}"
