"""Timing scripts and pytest-benchmark tests (a package, so that they import the suite's helpers as ``tests.<module>``)."""
