"""Shared fixtures and Hypothesis settings for the test suite."""

from hypothesis import settings

from tests.real_data import exported

# No per-example deadline: timing on a loaded 2-core CI machine must not fail a property.
# Examples stay random across runs (a new failing example is a real bug, printed with its seed).
settings.register_profile("sysrs", deadline=None, print_blob=True)
settings.load_profile("sysrs")

__all__ = ["exported"]
