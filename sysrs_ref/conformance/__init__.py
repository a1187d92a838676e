"""The oracle for other implementations: test vectors, their schema, and the conformance runner.

- :func:`write_vectors` / :func:`load_vectors`: the vectors files (``data/vectors/``);
- :func:`run_cases`: an external implementation through the line-delimited JSON protocol;
- :func:`first_difference`: where an output first differs from the expected one;
- ``python -m sysrs_ref.conformance.adapter``: this package behind the protocol.
"""

from sysrs_ref.conformance.cases import FAMILIES
from sysrs_ref.conformance.compare import first_difference
from sysrs_ref.conformance.runner import CaseResult, run_cases
from sysrs_ref.conformance.schema import SCHEMA
from sysrs_ref.conformance.solve import solve
from sysrs_ref.conformance.vectors import default_vectors_dir, load_vectors, write_vectors

__all__ = [
    "FAMILIES",
    "SCHEMA",
    "CaseResult",
    "default_vectors_dir",
    "first_difference",
    "load_vectors",
    "run_cases",
    "solve",
    "write_vectors",
]
