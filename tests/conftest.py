"""Shared fixtures for the test suite."""

from data_paths import shared_data

__all__ = ["shared_data"]
