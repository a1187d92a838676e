"""A small progress bar for long runs, drawn on stderr only when it is a terminal.

    with Progress(1000, "sysrs") as bar:
        simulate(..., progress=bar.update)

draws, from the first update on, on one line redrawn in place (at most :data:`REDRAWS_PER_SECOND` times a
second, and once more at the end)::

    sysrs [##########----------]   500/1000  50.0%  812 runs/s  ETA 0:01

and ends the line with a newline when the context closes. On anything that is
not a terminal (a file, a pipe, a CI log) it prints nothing at all, so output
meant for machines stays clean.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from types import TracebackType
from typing import TextIO

__all__ = ["Progress"]

#: At most this many redraws per second.
REDRAWS_PER_SECOND = 10

BAR_WIDTH = 20


class Progress:
    """A progress bar of *total* steps on *stream* (default ``sys.stderr``); a context manager.

    *enabled* None (the default) draws only when *stream* is a terminal
    (``isatty()``); False never draws (``--quiet``); True always draws. *clock*
    gives the time in seconds (``time.monotonic``; tests pass their own).
    Nothing is drawn before the first :meth:`update` (``update(0)`` shows the
    empty bar), so work that fails before it starts leaves no trace. *start*
    steps were done before (a resumed run's): the bar starts there, and the
    rate and the ETA count only the steps done since.

    >>> import io
    >>> with Progress(4, "runs", stream=io.StringIO()) as bar:  # not a terminal: silent
    ...     bar.update(4)
    >>> bar.done, bar.enabled
    (4, False)
    """

    def __init__(
        self,
        total: int,
        label: str = "",
        stream: TextIO | None = None,
        enabled: bool | None = None,
        *,
        clock: Callable[[], float] = time.monotonic,
        start: int = 0,
    ) -> None:
        if isinstance(total, bool) or not isinstance(total, int) or total < 0:
            raise ValueError(f"total must be a non-negative integer, got {total!r}")
        if isinstance(start, bool) or not isinstance(start, int) or not 0 <= start <= total:
            raise ValueError(f"start must be an integer in [0, total = {total}], got {start!r}")
        self.total = total
        self.label = label
        self.stream: TextIO = sys.stderr if stream is None else stream
        if enabled is None:
            isatty = getattr(self.stream, "isatty", None)
            enabled = bool(isatty()) if callable(isatty) else False
        self.enabled = enabled
        self.done = start
        self._start_done = start
        self._clock = clock
        self._start = clock()
        self._last_draw: float | None = None
        self._width = 0
        self._drawn_done = -1
        self._closed = False

    def update(self, steps: int = 1) -> None:
        """Record *steps* more steps done; redraw if the last redraw is old enough."""
        self.done = min(self.total, self.done + steps)
        now = self._clock()
        if self._last_draw is None or now - self._last_draw >= 1 / REDRAWS_PER_SECOND or self.done == self.total:
            self._draw(now)

    __call__ = update

    def line(self, now: float | None = None) -> str:
        """The bar's text for the current state (without the carriage return).

        >>> bar = Progress(200, "sysrs", enabled=False, clock=lambda: 0.0)
        >>> bar.done = 50
        >>> bar.line(now=2.0)
        'sysrs [#####---------------]    50/200   25.0%  25 runs/s  ETA 0:06'
        >>> resumed = Progress(200, "sysrs", enabled=False, clock=lambda: 0.0, start=40)
        >>> resumed.done = 50
        >>> resumed.line(now=2.0)   # 10 steps in 2 s: 5 a second, 150 left
        'sysrs [#####---------------]    50/200   25.0%  5 runs/s  ETA 0:30'
        """
        now = self._clock() if now is None else now
        fraction = self.done / self.total if self.total else 1.0
        filled = int(BAR_WIDTH * fraction)
        elapsed = max(now - self._start, 0.0)
        digits = len(str(self.total))
        parts = [
            f"[{'#' * filled}{'-' * (BAR_WIDTH - filled)}]",
            f"{self.done:>{digits + 2}}/{self.total}",
            f"{100 * fraction:5.1f}%",
        ]
        made = self.done - self._start_done
        if made > 0 and elapsed > 0:
            rate = made / elapsed
            parts.append(f"{rate:,.3g} runs/s" if rate < 100 else f"{rate:,.0f} runs/s")
            if self.done < self.total:
                parts.append(f"ETA {_duration((self.total - self.done) / rate)}")
            else:
                parts.append(f"in {_duration(elapsed)}")
        else:
            parts.append("ETA --")
        text = "  ".join(parts[1:])
        return f"{self.label} {parts[0]} {text}" if self.label else f"{parts[0]} {text}"

    def close(self) -> None:
        """Draw the final state and end the line (once); nothing when disabled or never drawn."""
        if self._closed:
            return
        if self.enabled and self._width:
            if self._drawn_done != self.done:
                self._draw(self._clock())
            self.stream.write("\n")
            self.stream.flush()
        self._closed = True

    def __enter__(self) -> Progress:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()

    def _draw(self, now: float) -> None:
        self._last_draw = now
        if not self.enabled or self._closed:
            return
        text = self.line(now)
        padding = " " * max(0, self._width - len(text))  # wipe what a longer previous line left
        self._width = len(text)
        self._drawn_done = self.done
        self.stream.write(f"\r{text}{padding}")
        self.stream.flush()


def _duration(seconds: float) -> str:
    """h:mm:ss or m:ss.

    >>> _duration(5.2), _duration(75), _duration(3725)
    ('0:06', '1:15', '1:02:05')
    """
    whole = int(-(-seconds // 1))  # round up: an ETA never claims less than is left
    hours, rest = divmod(whole, 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes}:{secs:02d}"
