"""proofs_check: a symbolic, machine-checked audit of the algebra of the SySRs paper.

Run ``python -m proofs_check`` (``--json``, ``--list``, ``--claim ID``).
"""

from proofs_check.registry import Claim, Method, Outcome, Status, all_claims, claim_by_id

__all__ = ["Claim", "Method", "Outcome", "Status", "all_claims", "claim_by_id"]
