"""The inspect-ai task of examples/live: ``addone``, 40 questions read from the local file addone.jsonl.

``live run --inspect examples/live/inspect_task.py@addone`` runs it (see
docs/live.md); ``inspect eval examples/live/inspect_task.py@addone --model
example/strong`` runs it on its own, once inspect_model.py is imported.
"""

from __future__ import annotations

from pathlib import Path

from inspect_ai import Task, task
from inspect_ai.dataset import FieldSpec, json_dataset
from inspect_ai.scorer import match
from inspect_ai.solver import generate

DATA = Path(__file__).resolve().parent / "addone.jsonl"


@task
def addone() -> Task:
    """Each question's answer matched against its target (inspect's ``match`` scorer)."""
    dataset = json_dataset(str(DATA), FieldSpec(input="question", target="answer", id="id"))
    return Task(dataset=dataset, solver=generate(), scorer=match())
