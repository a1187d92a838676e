"""Lazy re-exports for package ``__init__`` files (PEP 562): a public name is imported on first access."""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Mapping, Sequence

__all__ = ["lazy_exports"]


def lazy_exports(
    package: str, where: Mapping[str, str], public: Sequence[str]
) -> tuple[Callable[[str], object], Callable[[], list[str]]]:
    """The ``__getattr__`` and ``__dir__`` of *package*: each name of *where* imported from its module when first used.

    A name, once imported, is kept in the package's namespace, so the next
    access is an ordinary attribute lookup.

    >>> getattr_, dir_ = lazy_exports("sysrs_ref", {"Instance": "sysrs_ref.instance"}, ["Instance"])
    >>> getattr_("Instance").__name__, "Instance" in dir_()
    ('Instance', True)
    """
    namespace = vars(sys.modules[package])

    def __getattr__(name: str) -> object:
        if name not in where:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(where[name]), name)
        namespace[name] = value
        return value

    def __dir__() -> list[str]:
        return sorted(set(namespace) | set(public))

    return __getattr__, __dir__
