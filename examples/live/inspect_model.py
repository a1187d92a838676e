"""An inspect-ai model provider that needs no network: ``example/strong``, ``example/middle``, ``example/weak``.

Import it before the run (``live run --import examples/live/inspect_model.py``)
so that inspect knows the provider ``example``; the answers are those of
:mod:`example_skills` (next to this file).
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import Any

from inspect_ai.model import ModelAPI, ModelOutput, modelapi

sys.path.insert(0, str(Path(__file__).resolve().parent))
from example_skills import answer  # from the folder of this file, put on the path above


@modelapi(name="example")
class ExampleModel(ModelAPI):  # type: ignore[misc]  # inspect-ai's classes are untyped here (optional extra)
    """Answers each question as the example model of skill ``self.model_name`` does."""

    async def generate(self, input: Any, tools: Any, tool_choice: Any, config: Any) -> ModelOutput:
        text = str(input[-1].text)
        reply = await asyncio.to_thread(answer, self.model_name, text)
        return ModelOutput.from_content(model=self.model_name, content=reply)
