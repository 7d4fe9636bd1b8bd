"""rfverify: statistical conformance testing for random-feature implementations.

The public facade.  ``verify(implementation, kind=..., **options)`` verifies a plug-in of any kind (a feature map
against a kernel by default) and returns a :class:`Report`; everything else is importable from its module.
Importing rfverify has no side effects beyond defining the kernel registry.
"""

from rfverify.version import __version__  # noqa: E402

from rfverify.errors import PluginError, RfverifyError, UsageError  # noqa: E402
from rfverify.kernels import Kernel, get_kernel, kernel_names, register_kernel  # noqa: E402
from rfverify.results import CheckResult, Effect, Report  # noqa: E402
from rfverify.kinds import check_names, get_kind  # noqa: E402
from rfverify.seeding import DEFAULT_SEED, SeedSource  # noqa: E402


def verify(implementation: object, *, kind: str = "feature-map", **options: object) -> Report:
    """Verify ``implementation`` as a plug-in of ``kind`` and return its :class:`Report`.

    ``kind``: ``feature-map`` (default), ``orthogonal``, ``transform``, ``quadrature`` or ``kernel``
    (:data:`rfverify.kinds.KINDS`); ``options`` are the keywords of that kind's ``verify_<kind>`` (the fields of
    its ``Options`` dataclass, and ``seed``, ``profile``, ``name``, ``checks``, ``xfail``, ``time_limit``,
    ``memory_limit``, ``strict_space``), e.g. for a feature map ``kernel``, ``kernel_params``, ``dim``, ``bound``
    (:func:`rfverify.kinds.feature_map.verify_feature_map`).  An unknown kind is a :class:`UsageError`, an option
    the kind does not take a TypeError.

    >>> verify("rfverify.implementations.orthogonal:haar_qr", kind="orthogonal", dim=4, profile="quick",
    ...        checks=["orthogonality"]).exit_code
    0
    """
    report: Report = get_kind(kind).verify_function()(implementation, **options)
    return report

__all__ = [
    "__version__",
    "verify",
    "check_names",
    "Report",
    "CheckResult",
    "Effect",
    "Kernel",
    "get_kernel",
    "kernel_names",
    "register_kernel",
    "SeedSource",
    "DEFAULT_SEED",
    "RfverifyError",
    "UsageError",
    "PluginError",
]
