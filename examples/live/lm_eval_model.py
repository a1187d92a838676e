"""An lm-eval model class that needs no network: ``example:name=strong`` (or ``middle``, ``weak``).

Import it before the run (``live run --import examples/live/lm_eval_model.py``)
so that lm-eval's registry knows the model ``example``; the answers are those
of :mod:`example_skills` (next to this file).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from lm_eval.api.model import LM
from lm_eval.api.registry import register_model

sys.path.insert(0, str(Path(__file__).resolve().parent))
from example_skills import answer  # from the folder of this file, put on the path above


@register_model("example")
class ExampleModel(LM):  # type: ignore[misc]  # lm-eval's classes are untyped here (optional extra)
    """Answers each question as the example model of skill *name* does (generation only)."""

    def __init__(self, name: str = "strong", **_: Any) -> None:
        super().__init__()
        self.name = name

    def generate_until(self, requests: Any, disable_tqdm: bool = False) -> list[str]:
        return [answer(self.name, str(request.args[0])) for request in requests]

    def loglikelihood(self, requests: Any, disable_tqdm: bool = False) -> list[Any]:
        raise NotImplementedError("the example model only generates")

    def loglikelihood_rolling(self, requests: Any, disable_tqdm: bool = False) -> list[Any]:
        raise NotImplementedError("the example model only generates")
