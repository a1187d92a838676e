"""The optional harnesses (inspect-ai, lm-evaluation-harness) in the tests: skipped where absent, required in their tier.

The README's test command installs the dev extra, which leaves the two
harnesses out (together about 950 MB, and minutes of download): there the
tests that drive them are skipped. ``.ci/harnesses`` installs them and sets
``SYSRS_REQUIRE_HARNESSES=1``, under which a missing harness fails the test
instead of skipping it, so that tier cannot pass by skipping.
"""

from __future__ import annotations

import importlib
import os
from types import ModuleType

import pytest

REQUIRE = "SYSRS_REQUIRE_HARNESSES"
"""The environment variable that turns a missing harness from a skip into a failure."""


def harness(module: str) -> ModuleType:
    """Import the harness *module*, or skip the test (fail it when ``SYSRS_REQUIRE_HARNESSES=1``)."""
    if os.environ.get(REQUIRE) == "1":
        try:
            return importlib.import_module(module)
        except ImportError as error:
            pytest.fail(f"{REQUIRE}=1 but {module} is not importable: {error}")
    skipped: ModuleType = pytest.importorskip(module)
    return skipped
