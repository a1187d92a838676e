"""The one place where sizes are checked: what a job needs is estimated from its sizes before it starts.

A function whose cost grows faster than its input (a K x K pass, an L x L
matrix, a tuple of K - 1 phases) states its need here as a :class:`Need`
(bytes of memory, seconds of work on one core) computed from the sizes it
was given, and :func:`check_need` refuses it with :class:`TooLargeError`
when the need is beyond this machine's memory (:func:`memory_limit`) or
beyond the time limit (:func:`time_limit`: an hour, or the environment
variable ``SYSRS_REF_TIME_LIMIT`` in seconds, ``0`` for none). The message
names the job, the sizes, the complexity and the estimate, so a user sees
at once what it would take. The command line and Python go through the
same check: the command line only prints its message (exit status 2).

The seconds are estimates from the complexity and a rate measured on a
2-core x86-64 machine (docs/benchmarks.md, "Sizes"); the limit is for jobs
that would run for hours or not fit, not a promise about minutes.
:func:`check_workers` bounds a number of worker processes.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass

from sysrs_ref._words import counted
from sysrs_ref.errors import TooLargeError

__all__ = [
    "MAX_WORKERS",
    "NOTE_SECONDS",
    "TIME_LIMIT_VARIABLE",
    "Need",
    "check_need",
    "check_workers",
    "duration",
    "memory_limit",
    "size_in_bytes",
    "time_limit",
]

#: The environment variable that sets the time limit in seconds (0: no limit).
TIME_LIMIT_VARIABLE = "SYSRS_REF_TIME_LIMIT"

#: The time limit when the variable is not set: one hour of estimated work.
_DEFAULT_SECONDS = 3600.0

#: A need within both of these always fits: checked without asking the system (a hot path stays fast).
_ALWAYS_BYTES = 64 * 2**20
_ALWAYS_SECONDS = 1.0

#: A command says how long a job will take, before it starts, when its estimate is above this many seconds.
NOTE_SECONDS = 10.0

#: The most worker processes a job may ask for (each holds a copy of its matrix and its own interpreter).
MAX_WORKERS = 256


@dataclass(frozen=True)
class Need:
    """What a job needs: *memory* bytes at once and *seconds* of work, and how that grows (*complexity*)."""

    what: str
    """The job and its sizes, as the message's subject ("anchor on L = 1,000,000 queries")."""
    complexity: str
    """How the need grows ("an L x L matrix of float64", "O(K^2) per run and budget")."""
    memory: int = 0
    seconds: float = 0.0


def size_in_bytes(count: int | float) -> str:
    """*count* bytes in the largest binary unit that keeps the number at least 1 (3 significant digits).

    >>> size_in_bytes(8 * 10**12), size_in_bytes(512), size_in_bytes(3 * 2**30)
    ('7.28 TiB', '512 bytes', '3 GiB')
    """
    value = float(count)
    for unit in ("bytes", "KiB", "MiB", "GiB", "TiB", "PiB"):
        if value < 1024 or unit == "PiB":
            return (
                f"{int(value)} bytes"
                if unit == "bytes"
                else f"{value:.3g} {unit}"
                if value < 100
                else f"{value:.0f} {unit}"
            )
        value /= 1024
    raise AssertionError("unreachable")


def duration(seconds: float) -> str:
    """*seconds* in words, in the largest unit that keeps the number at least 1.

    From a million years on, in scientific form, worked out from the
    logarithm: an int of any size (an enumeration's count of cases) is said
    without being turned into a float.

    >>> duration(45), duration(1), duration(5400), duration(3 * 86400 * 365)
    ('45 seconds', '1 second', '1.5 hours', '3.0 years')
    >>> duration(2 * 10**6 * 86400 * 365), duration(10**5000)
    ('2.0e+06 years', '3.2e+4992 years')
    """
    if seconds >= 10**6 * 86400 * 365:
        log = math.log10(seconds) - math.log10(86400 * 365)
        exponent = math.floor(log)
        mantissa = round(10 ** (log - exponent), 1)
        if mantissa >= 10:
            mantissa, exponent = 1.0, exponent + 1
        return f"{mantissa:.1f}e+{exponent:02d} years"
    for unit, size in (("years", 86400 * 365), ("days", 86400), ("hours", 3600), ("minutes", 60)):
        if seconds >= size:
            return f"{seconds / size:.1f} {unit}" if seconds < 100 * size else f"{seconds / size:,.0f} {unit}"
    return "1 second" if f"{seconds:.0f}" == "1" else f"{seconds:.0f} seconds"


def memory_limit() -> int:
    """The bytes a job may hold at once: this machine's physical memory, or less under a memory rlimit.

    >>> memory_limit() > 0
    True
    """
    try:
        physical = os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError, AttributeError):  # not POSIX: no estimate, no memory refusal
        physical = 2**62
    try:
        import resource

        soft = resource.getrlimit(resource.RLIMIT_AS)[0]
    except (ImportError, OSError, ValueError):
        soft = -1
    return min(physical, soft) if soft > 0 else physical


def time_limit() -> float:
    """The seconds of estimated work a job may take: ``SYSRS_REF_TIME_LIMIT`` if set (0: no limit), else an hour.

    A value that is not a non-negative number is ignored (the hour holds).

    >>> time_limit() > 0
    True
    """
    text = os.environ.get(TIME_LIMIT_VARIABLE, "")
    try:
        value = float(text)
    except ValueError:
        return _DEFAULT_SECONDS
    if not value >= 0:  # nan, negative
        return _DEFAULT_SECONDS
    return float("inf") if value == 0 else value


def check_need(need: Need, advice: str = "") -> Need:
    """*need*, if it fits the memory and time limits; else :class:`~sysrs_ref.errors.TooLargeError` saying what it needs.

    >>> check_need(Need("a test", "O(1)", memory=8, seconds=0.5)).memory
    8
    >>> check_need(Need("anchor on L = 1,000,000 queries", "an L x L matrix of float64", memory=8 * 10**12))
    Traceback (most recent call last):
    ...
    sysrs_ref.errors.TooLargeError: anchor on L = 1,000,000 queries would need 7.28 TiB of memory (an L x L matrix of float64), more than this machine's ...
    """
    if need.memory <= _ALWAYS_BYTES and need.seconds <= _ALWAYS_SECONDS:  # the common case, without a system call
        return need
    room = memory_limit()
    tail = f"; {advice}" if advice else ""
    if need.memory > room:
        raise TooLargeError(
            f"{need.what} would need {size_in_bytes(need.memory)} of memory ({need.complexity}), more than this "
            f"machine's {size_in_bytes(room)}: nothing was run{tail}"
        )
    limit = time_limit()
    if need.seconds > limit:
        raise TooLargeError(
            f"{need.what} would take about {duration(need.seconds)} ({need.complexity}), more than the limit of "
            f"{duration(limit)} ({TIME_LIMIT_VARIABLE}, in seconds; 0 lifts it): nothing was run{tail}"
        )
    return need


def check_workers(workers: object, name: str = "--workers") -> int:
    """*workers* as an int in 1 .. :data:`MAX_WORKERS`; :class:`~sysrs_ref.errors.TooLargeError` above it.

    A non-integer or one below 1 is a :class:`~sysrs_ref.errors.ParameterError` (:func:`sysrs_ref._checks.check_int`).

    >>> check_workers(2)
    2
    >>> check_workers(100_000)
    Traceback (most recent call last):
    ...
    sysrs_ref.errors.TooLargeError: --workers 100000 asks for 100,000 worker processes; at most 256 are started (more than the CPUs only share them)
    """
    from sysrs_ref._checks import check_int

    count = check_int(workers, name)
    if count > MAX_WORKERS:
        raise TooLargeError(
            f"{name} {count} asks for {counted(count, 'worker process', 'worker processes', grouped=True)}; "
            f"at most {MAX_WORKERS} are started (more than the CPUs only share them)"
        )
    return count
