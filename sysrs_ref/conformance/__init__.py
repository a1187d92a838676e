"""The oracle for other implementations: test vectors, their schema, and the conformance runner.

- :func:`write_vectors` / :func:`load_vectors`: the vectors files (``data/vectors/``);
  :data:`TAGS` (and :func:`load_tag_rules`), the rules the cases' tags name;
- :func:`run_cases`: an external implementation through the line-delimited JSON protocol;
- :func:`first_difference`: where an output first differs from the expected one;
- :data:`REFUSAL_KINDS`, :func:`refusal_kind`: the kinds of refusal, and the kind of an error;
- :data:`SCHEMA`, :func:`reply_schema`: the JSON Schemas of the vectors files and of a reply line;
- ``python -m sysrs_ref.conformance.adapter``: this package behind the protocol.
"""

from sysrs_ref.conformance.cases import FAMILIES
from sysrs_ref.conformance.compare import first_difference
from sysrs_ref.conformance.runner import CaseResult, run_cases
from sysrs_ref.conformance.schema import REFUSAL_KINDS, SCHEMA, reply_schema
from sysrs_ref.conformance.solve import refusal_kind, solve
from sysrs_ref.conformance.vectors import TAGS, default_vectors_dir, load_tag_rules, load_vectors, write_vectors

__all__ = [
    "FAMILIES",
    "REFUSAL_KINDS",
    "SCHEMA",
    "TAGS",
    "CaseResult",
    "default_vectors_dir",
    "first_difference",
    "load_tag_rules",
    "load_vectors",
    "refusal_kind",
    "reply_schema",
    "run_cases",
    "solve",
    "write_vectors",
]
