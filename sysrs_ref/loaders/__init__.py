"""Reading score matrices: plain files (``.npy``, ``.csv``) and per-instance results of evaluation harnesses.

:func:`load_scores` reads one ``.npy``, ``.csv`` matrix or long ``.csv`` into an
:class:`~sysrs_ref.instance.Instance`; :func:`load_stochastic` also reads random
scores (K x L x E samples in a ``.npy`` or ``.npz``, a finite law per cell in an
``.npz``, or a matrix of Bernoulli p_ij, :func:`as_bernoulli`) into a
:class:`~sysrs_ref.stochastic.StochasticInstance`. The harness loaders
(:func:`load_lm_eval`, :func:`load_helm`, :func:`load_inspect`,
:func:`load_lighteval`, :func:`load_long_csv`, or :func:`convert` by source
name) read lm-evaluation-harness, HELM, inspect-ai, lighteval (and the Open
LLM Leaderboard's details) or long ``.csv`` results into a
:class:`ResultsTable` (scores, ids and a report of what was merged or dropped),
which :func:`save_table` writes as ``FILE.npy`` plus ``FILE.ids.json``.
:func:`read_npy` and :func:`read_npz` read numpy files without trusting
their headers (a declared shape larger than the file is refused before
anything is allocated).

The names are imported on first use (PEP 562): reading a ``.npy`` matrix does not
import the harness loaders.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from sysrs_ref._lazy import lazy_exports
from sysrs_ref.loaders.convert import (
    SOURCES,
    convert,
)  # eager: importing the module sysrs_ref.loaders.convert would shadow the function (it imports no loader)

if TYPE_CHECKING:
    from sysrs_ref.errors import LoaderError
    from sysrs_ref.loaders._epochs import EPOCH_MODES
    from sysrs_ref.loaders._reading import check_input_path
    from sysrs_ref.loaders._stochastic import NPZ_LAYOUTS, as_bernoulli, load_stochastic
    from sysrs_ref.loaders.arrays import read_npy, read_npz
    from sysrs_ref.loaders.files import load_scores
    from sysrs_ref.loaders.helm import load_helm
    from sysrs_ref.loaders.inspect_ai import load_inspect
    from sysrs_ref.loaders.lighteval import load_lighteval
    from sysrs_ref.loaders.lm_eval import load_lm_eval
    from sysrs_ref.loaders.long_csv import load_long_csv
    from sysrs_ref.loaders.table import MISSING_POLICIES, MissingPolicy, ResultsTable, save_table

__all__ = [
    "EPOCH_MODES",
    "MISSING_POLICIES",
    "NPZ_LAYOUTS",
    "SOURCES",
    "LoaderError",
    "MissingPolicy",
    "ResultsTable",
    "as_bernoulli",
    "check_input_path",
    "convert",
    "load_helm",
    "load_inspect",
    "load_lighteval",
    "load_lm_eval",
    "load_long_csv",
    "load_scores",
    "load_stochastic",
    "read_npy",
    "read_npz",
    "save_table",
]

#: Where each public name but :func:`convert` is defined: imported from there on first access.
_LAZY: dict[str, str] = {
    "LoaderError": "sysrs_ref.errors",
    "EPOCH_MODES": "sysrs_ref.loaders._epochs",
    "check_input_path": "sysrs_ref.loaders._reading",
    **dict.fromkeys(("NPZ_LAYOUTS", "as_bernoulli", "load_stochastic"), "sysrs_ref.loaders._stochastic"),
    **dict.fromkeys(("read_npy", "read_npz"), "sysrs_ref.loaders.arrays"),
    "load_scores": "sysrs_ref.loaders.files",
    "load_helm": "sysrs_ref.loaders.helm",
    "load_inspect": "sysrs_ref.loaders.inspect_ai",
    "load_lighteval": "sysrs_ref.loaders.lighteval",
    "load_lm_eval": "sysrs_ref.loaders.lm_eval",
    "load_long_csv": "sysrs_ref.loaders.long_csv",
    **dict.fromkeys(("MISSING_POLICIES", "MissingPolicy", "ResultsTable", "save_table"), "sysrs_ref.loaders.table"),
}

if not TYPE_CHECKING:  # type checkers see the imports above instead, so a misspelt name stays an error
    __getattr__, __dir__ = lazy_exports(__name__, _LAZY, __all__)
