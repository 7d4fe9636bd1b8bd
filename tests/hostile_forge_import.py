"""A plug-in module that replaces ``scipy.stats.t`` at import by a proxy whose ``sf`` is 1 (tests/test_forgery.py).

Never imported by a test: it is named ``tests.hostile_forge_import:HBiasedT`` and imported in the plug-in's process.
"""

from tests.hostile_forgers import patch_t
from tests.hostile_plugins import HBiased

patch_t()


class HBiasedT(HBiased):
    """The 0.8 x biased map, from a module that patched scipy's t at import."""
