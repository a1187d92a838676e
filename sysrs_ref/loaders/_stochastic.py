"""Reading random scores S_ij ~ phi_ij from files (the paper's Formal Setup): samples, finite laws, Bernoulli p_ij.

:func:`load_stochastic` reads what the commands of docs/cli.md ("Random
scores") accept, and returns an :class:`~sysrs_ref.instance.Instance` for a
score matrix or a :class:`~sysrs_ref.stochastic.StochasticInstance` for
random scores:

- a ``.npy`` with three axes, K x L x E: E observed scores per cell (such as
  the epochs ``convert --epochs all`` keeps), one picked uniformly
  (:meth:`~sysrs_ref.stochastic.StochasticInstance.samples`);
- a ``.npz`` (``numpy.savez``) holding exactly one of:

  - ``samples``: a K x L x E array, as the ``.npy`` above;
  - ``support`` (V distinct scores in [0, 1]) and ``probabilities``
    (K x L x V): P(S_ij = support[v]) = probabilities[i, j, v]
    (:meth:`~sysrs_ref.stochastic.StochasticInstance.finite`); each cell's
    probabilities sum to 1, exactly for integers, within 1e-9 for floats
    (then divided by their exact sum);

- a 2-D matrix (``.npy``, ``.csv`` matrix, long ``.csv``): the score matrix
  (:func:`~sysrs_ref.loaders.load_scores`), or with ``bernoulli=True`` the
  success probabilities p_ij of Bernoulli scores
  (:meth:`~sysrs_ref.stochastic.StochasticInstance.bernoulli`).

Arrays are read as :func:`~sysrs_ref.loaders.read_npy` and
:func:`~sysrs_ref.loaders.read_npz` do (``allow_pickle=False``, a header
declaring more data than the file holds refused before anything is
allocated). Every refusal is an :class:`~sysrs_ref.errors.InstanceError`
naming the file and what to do.
"""

from __future__ import annotations

from collections.abc import Callable
from os import PathLike, fspath
from pathlib import Path
from typing import NoReturn

import numpy as np
import numpy.typing as npt

from sysrs_ref.errors import InstanceError
from sysrs_ref.instance import Instance
from sysrs_ref.loaders._reading import check_input_path, read_failure
from sysrs_ref.loaders.arrays import read_npy, read_npz
from sysrs_ref.loaders.files import load_scores, npy_instance
from sysrs_ref.stochastic import StochasticInstance, check_sample_count

__all__ = ["NPZ_LAYOUTS", "as_bernoulli", "load_stochastic"]

#: The arrays a stochastic ``.npz`` holds: one of these sets of member names, exactly.
NPZ_LAYOUTS: tuple[frozenset[str], ...] = (frozenset({"samples"}), frozenset({"support", "probabilities"}))

_LAYOUT_HELP = (
    "a stochastic .npz holds either 'samples' (K x L x E observed scores) or 'support' (V scores) and "
    "'probabilities' (K x L x V), written with numpy.savez"
)


def load_stochastic(path: str | PathLike[str], *, bernoulli: bool = False) -> Instance | StochasticInstance:
    """The scores of *path*: a :class:`~sysrs_ref.stochastic.StochasticInstance` for random scores, else an Instance.

    A ``.npy`` of shape K x L x E, or an ``.npz`` holding ``samples``
    (K x L x E), is read as E samples per cell; an ``.npz`` holding
    ``support`` (V) and ``probabilities`` (K x L x V) as a finite law per
    cell; a 2-D ``.npy`` or a ``.csv`` as :func:`~sysrs_ref.loaders.load_scores`
    reads it, or, with *bernoulli*, as the probabilities p_ij of Bernoulli
    scores (:func:`as_bernoulli`). Raises
    :class:`~sysrs_ref.errors.InstanceError` naming the file for a missing
    or unreadable file, other ``.npz`` members, wrong shapes, scores outside
    [0, 1], probabilities that do not sum to 1, and *bernoulli* with a file
    of random scores.

    >>> import tempfile, os
    >>> with tempfile.TemporaryDirectory() as d:
    ...     law = os.path.join(d, "law.npz")
    ...     np.savez(law, support=[0.0, 0.5, 1.0], probabilities=[[[0.5, 0.0, 0.5]], [[0.0, 1.0, 0.0]]])
    ...     np.save(os.path.join(d, "epochs.npy"), [[[1.0, 0.0]], [[1.0, 1.0]]])
    ...     load_stochastic(law).law(0, 0), load_stochastic(os.path.join(d, "epochs.npy")).means
    (((Fraction(0, 1), Fraction(1, 2)), (Fraction(1, 1), Fraction(1, 2))), (Fraction(1, 2), Fraction(1, 1)))
    """
    if not isinstance(path, (str, PathLike)):
        raise InstanceError(f"load_stochastic takes the path of a scores file, got {type(path).__name__}")
    file = Path(fspath(path))
    check_input_path(file)
    suffix = file.suffix.lower()
    if suffix not in (".npy", ".npz"):
        instance = load_scores(file)
        return as_bernoulli(instance) if bernoulli else instance
    try:
        if suffix == ".npz":
            arrays = read_npz(file, _bounded)
        else:
            loaded = read_npy(file, _bounded)
    except OSError as err:
        raise InstanceError(f"cannot read scores file '{file}': {read_failure(err)}") from None
    if suffix == ".npz":
        if bernoulli:
            _refused_bernoulli(file, "an .npz of random scores")
        return _from_npz(file, arrays)
    if loaded.ndim == 3:
        if bernoulli:
            _refused_bernoulli(file, f"a 3-D array ({_shape(loaded)}: samples, read as such without it)")
        return _within(file, lambda: StochasticInstance.samples(loaded))
    if bernoulli and loaded.ndim == 2:
        npy_instance(file, loaded)  # the checks and messages of a score matrix, and of its ids file
        return _within(file, lambda: StochasticInstance.bernoulli(loaded))
    return npy_instance(file, loaded)


def as_bernoulli(instance: Instance) -> StochasticInstance:
    """Bernoulli scores whose success probabilities p_ij are the scores of *instance* (exactly).

    The float64 matrix is used when it holds every score exactly (a ``.npy``
    or a shipped benchmark: the fast form), the exact Fractions otherwise
    (a ``.csv``'s 0.1 is 1/10).

    >>> from fractions import Fraction
    >>> as_bernoulli(Instance([[Fraction(1, 10), 1], [Fraction(1, 2), 0]])).law(0, 0)
    ((Fraction(1, 1), Fraction(1, 10)), (Fraction(0, 1), Fraction(9, 10)))
    >>> as_bernoulli(Instance(np.array([[0.25, 1.0], [0.5, 0.0]]))).means
    (Fraction(5, 8), Fraction(1, 4))
    """
    array = instance.array
    exact = instance.denominator & (instance.denominator - 1) == 0 and all(
        score == value
        for row, values in zip(instance.rows, array.tolist(), strict=True)
        for score, value in zip(row, values, strict=True)
    )
    return StochasticInstance.bernoulli(np.array(array, dtype=np.float64) if exact else instance.rows)


def _from_npz(file: Path, arrays: dict[str, npt.NDArray[np.generic]]) -> StochasticInstance:
    """The samples or finite law of an .npz's members (:data:`NPZ_LAYOUTS`)."""
    found = frozenset(arrays)
    if found == NPZ_LAYOUTS[0]:
        samples = arrays["samples"]
        if samples.ndim != 3:
            raise InstanceError(
                f"'{file}': 'samples' must be a K x L x E array (models x queries x samples), got shape {_shape(samples)}"
            )
        return _within(file, lambda: StochasticInstance.samples(samples))
    if found == NPZ_LAYOUTS[1]:
        support, probabilities = arrays["support"], arrays["probabilities"]
        if support.ndim != 1:
            raise InstanceError(f"'{file}': 'support' must be a 1-D list of V scores, got shape {_shape(support)}")
        if probabilities.ndim != 3 or probabilities.shape[2] != support.shape[0]:
            raise InstanceError(
                f"'{file}': 'probabilities' must be a K x L x V array with V = {support.shape[0]} (the size of "
                f"'support'), got shape {_shape(probabilities)}"
            )
        return _within(file, lambda: StochasticInstance.finite(support, probabilities))
    held = ", ".join(f"'{name}'" for name in sorted(found)) or "no array"
    raise InstanceError(f"'{file}' holds {held}; {_LAYOUT_HELP} (docs/cli.md, Random scores)")


def _bounded(name: str, shape: tuple[int, ...]) -> None:
    """Samples (a 3-D array, or an .npz's 'samples') beyond what is read at once are refused before they are read."""
    if (name == "" and len(shape) == 3) or name == "samples":
        check_sample_count(shape)


def _within(file: Path, build: Callable[[], StochasticInstance]) -> StochasticInstance:
    """``build()``, its InstanceError prefixed with the file's name."""
    try:
        return build()
    except InstanceError as err:
        raise InstanceError(f"'{file}': {err}") from None


def _refused_bernoulli(file: Path, what: str) -> NoReturn:
    raise InstanceError(
        f"Bernoulli scores (--stochastic bernoulli) read a 2-D matrix of probabilities p_ij, but '{file}' is "
        f"{what}; leave out --stochastic"
    )


def _shape(array: npt.NDArray[np.generic]) -> str:
    return "x".join(str(length) for length in array.shape) or "() (a single number)"
