"""rfverify: statistical conformance testing for random-feature implementations.

The public facade.  ``verify`` checks a feature map against a kernel and
returns a :class:`Report`; everything else is importable from its module.
Importing rfverify has no side effects beyond defining the kernel registry.
"""

from rfverify.version import __version__  # noqa: E402

from rfverify.errors import PluginError, RfverifyError, UsageError  # noqa: E402
from rfverify.kernels import Kernel, get_kernel, kernel_names, register_kernel  # noqa: E402
from rfverify.results import CheckResult, Effect, Report  # noqa: E402
from rfverify.kinds import check_names  # noqa: E402
from rfverify.kinds.feature_map import verify  # noqa: E402
from rfverify.seeding import DEFAULT_SEED, SeedSource  # noqa: E402

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
