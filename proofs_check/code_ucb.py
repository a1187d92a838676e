"""Placeholder (filled below)."""

from proofs_check.registry import Claim

CLAIMS: tuple[Claim, ...] = ()
