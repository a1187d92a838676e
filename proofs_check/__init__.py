"""proofs_check: a machine-checked audit of the SySRs paper's algebra (sympy) and of the code's invariants (z3).

Run ``python -m proofs_check`` (``--json``, ``--list``, ``--claim ID``, ``--max-k K``).
"""

from proofs_check.claim import DEFAULT_MAX_K, Claim, Domains, Method, Outcome, Status
from proofs_check.registry import all_claims, claim_by_id

__all__ = ["DEFAULT_MAX_K", "Claim", "Domains", "Method", "Outcome", "Status", "all_claims", "claim_by_id"]
