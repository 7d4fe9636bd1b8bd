"""What a CLI start-up imports: every ``rfverify`` command builds the whole parser, so the parser must
not pull in the heavy libraries that only some commands use.  Measured at load 14 on the 2-core machine:
``rfverify --help`` took 1.7-2.1 s CPU while building the parser imported scipy.stats (1.4 s) and Hypothesis
(0.4 s); 0.33 s without them.  The test checks the module list, not the time."""

from __future__ import annotations

import subprocess
import sys

#: Libraries that only some commands need: loading one to build the parser is a start-up regression.
HEAVY = ("scipy", "hypothesis", "matplotlib", "dask", "distributed", "rich", "numba", "sklearn", "jinja2", "mpmath",
         "torch")


def _loaded_after(code: str) -> list[str]:
    probe = (f"import sys\n{code}\n"
             f"print(' '.join(sorted({{m.split('.')[0] for m in sys.modules}} & set({HEAVY!r}))))")
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120, check=True)
    return out.stdout.split()


def test_building_the_parser_imports_no_heavy_library():
    assert _loaded_after("from rfverify.cli import build_parser\nbuild_parser()") == []


def test_the_probe_sees_a_heavy_import():
    """The twin: a parser build that imports a heavy library (scipy.stats did, through the calibration module) is
    caught."""
    assert _loaded_after("from rfverify.cli import build_parser\nbuild_parser()\nimport mpmath") == ["mpmath"]


def test_the_facade_and_the_feature_map_kind_import_no_hypothesis():
    """Hypothesis is imported when a configuration space is made (a feature-map check), not with the kind."""
    assert "hypothesis" not in _loaded_after("import rfverify\nimport rfverify.kinds.feature_map")
    assert "hypothesis" in _loaded_after("from rfverify.kinds.feature_map import _default_space\n_default_space()")
