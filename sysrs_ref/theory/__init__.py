"""The paper's theory as code: hardness measures, the correlation threshold, bounds."""

from sysrs_ref.theory.bounds import (
    Bound,
    bernstein_paired_bound,
    bernstein_wor_bound,
    h3_two_arm,
    lower_bound,
    lower_bound_pair,
    schedule_is_covered,
    sr_bound,
    sysrs_bound,
    ucbe_bound,
    ucbe_max_a,
)
from sysrs_ref.theory.exact import (
    DEFAULT_LIMIT,
    bayes_error,
    enumeration_size,
    error_probability,
    outcome_distribution,
)
from sysrs_ref.theory.exact_topm import (
    is_topm_correct,
    topm_distribution,
    topm_enumeration_size,
    topm_error_probability,
)
from sysrs_ref.theory.hardness import ArmHardness, Convention, Hardness, arm_hardness, hardness
from sysrs_ref.theory.threshold import corollary_gap_bound, cov_max, theta_star, theta_star_numerator

__all__ = [
    "DEFAULT_LIMIT",
    "ArmHardness",
    "Bound",
    "Convention",
    "Hardness",
    "arm_hardness",
    "bayes_error",
    "bernstein_paired_bound",
    "bernstein_wor_bound",
    "corollary_gap_bound",
    "cov_max",
    "enumeration_size",
    "error_probability",
    "h3_two_arm",
    "hardness",
    "is_topm_correct",
    "lower_bound",
    "lower_bound_pair",
    "outcome_distribution",
    "schedule_is_covered",
    "sr_bound",
    "sysrs_bound",
    "theta_star",
    "theta_star_numerator",
    "topm_distribution",
    "topm_enumeration_size",
    "topm_error_probability",
    "ucbe_bound",
    "ucbe_max_a",
]
