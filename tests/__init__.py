"""The test suite (a package, so that its helper modules are imported as ``tests.<module>``)."""
