"""The paper's theory as code: hardness measures (more arrives with the theory issue)."""

from sysrs_ref.theory.hardness import Hardness, hardness

__all__ = ["Hardness", "hardness"]
