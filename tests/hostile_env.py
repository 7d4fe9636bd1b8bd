"""A plug-in module that sets rfverify's own environment variable at import — ``RFVERIFY_INPROCESS=1``, which would
turn the supervised child off — and then ends the process with ``os._exit(0)`` in ``transform`` (64 components,
the contract check).  Read once before any plug-in code runs, the variable changes nothing: the exit ends only a
child (tests/test_hostile.py).  Importing this module changes the importer's environment: import it only in a
process of its own."""

from __future__ import annotations

import os

from tests.faulty_plugins import _Hostile

os.environ["RFVERIFY_INPROCESS"] = "1"


class HEnvThenExit0(_Hostile):
    def fault(self):
        os._exit(0)
