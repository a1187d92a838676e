"""The example models of examples/live: which question each one answers right, and a count of what they evaluate.

Both harnesses' example models answer ``What is N plus one?`` without a
network and without a tokenizer: a model of skill ``strong``, ``middle``
or ``weak`` answers ``N + 1`` for a fixed share of the questions (90%, 60%,
30%) and ``0`` for the others, so the best model is known. Two environment
variables help to watch a run:

- ``EXAMPLE_SECONDS``: seconds each answer takes (default 0), so that a
  Ctrl-C can land in the middle of a call;
- ``EXAMPLE_COUNT``: a file to which each answer appends one line
  ``model,question``, the count of evaluations actually made.
"""

from __future__ import annotations

import os
import re
import time

__all__ = ["SKILL", "answer"]

#: The share of the questions each example model answers right.
SKILL = {"strong": 0.9, "middle": 0.6, "weak": 0.3}

_QUESTION = re.compile(r"What is (\d+) plus one\?")


def answer(model: str, question: str) -> str:
    """The answer of the example model of skill *model* to *question* (waiting ``EXAMPLE_SECONDS`` first)."""
    found = _QUESTION.search(question)
    if found is None:
        return "?"
    number = int(found.group(1))
    time.sleep(float(os.environ.get("EXAMPLE_SECONDS", "0")))
    count = os.environ.get("EXAMPLE_COUNT")
    if count:
        with open(count, "a", encoding="utf-8") as tally:
            tally.write(f"{model},{number}\n")
    right = (number * 7919) % 40 < SKILL[model] * 40
    return str(number + 1) if right else "0"
