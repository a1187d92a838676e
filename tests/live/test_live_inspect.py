"""A live session driven through inspect-ai itself: its eval() on the samples asked for, its logs read back.

The task's data is in memory (a ``MemoryDataset``) and its models answer
without a network: a model API registered the inspect way (``@modelapi``),
whose answer to a sample depends on the model's name. inspect-ai is the
optional ``inspect`` extra: without it, these tests are skipped (``.ci/harnesses``
runs them with the extra installed), and the
error a user then gets is tested apart.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path

import pytest

from sysrs_ref import select
from sysrs_ref.errors import LiveError
from sysrs_ref.instance import Instance
from sysrs_ref.live import Session, run
from sysrs_ref.loaders import load_inspect
from tests.harness_extras import harness

pytestmark = pytest.mark.harness

SKILL = {"known/strong": 0.9, "known/middle": 0.6, "known/weak": 0.3}
N = 12


def _correct(model: str, sample: int) -> bool:
    """Whether *model* answers sample *sample* right: the lower samples for the more skilled model."""
    return (sample * 7919 % N) < SKILL[model] * N


def test_without_inspect_the_error_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    from sysrs_ref.live.inspect_harness import inspect_queries

    monkeypatch.setitem(sys.modules, "inspect_ai", None)
    with pytest.raises(
        LiveError, match=r"needs it installed, the optional 'inspect' extra: pip install 'sysrs-ref\[inspect\]'"
    ):
        inspect_queries(object())


@pytest.fixture(scope="module")
def task() -> object:
    inspect_ai = harness("inspect_ai")
    from inspect_ai.dataset import MemoryDataset, Sample
    from inspect_ai.model import ModelAPI, ModelOutput, modelapi
    from inspect_ai.scorer import match
    from inspect_ai.solver import generate

    @modelapi(name="known")
    class Known(ModelAPI):  # type: ignore[misc]  # inspect-ai's classes are untyped here (optional extra)
        async def generate(self, input: object, tools: object, tool_choice: object, config: object) -> object:
            text = str(input[-1].text)  # type: ignore[index]  # inspect-ai's classes are untyped here (optional extra)
            sample = int(text.split()[1])
            answer = str(sample + 1) if _correct(f"known/{self.model_name}", sample) else "0"
            return ModelOutput.from_content(model=self.model_name, content=answer)

    samples = [Sample(input=f"Add {i} and one", target=str(i + 1), id=i) for i in range(N)]
    return inspect_ai.Task(dataset=MemoryDataset(samples), solver=generate(), scorer=match(), name="addone")


def _matrix() -> Instance:
    return Instance([[1 if _correct(model, j) else 0 for j in range(N)] for model in SKILL])


def test_a_session_driven_by_inspect_ends_as_select(task: object, tmp_path: Path) -> None:
    from sysrs_ref.live.inspect_harness import inspect_evaluator, inspect_queries

    queries = inspect_queries(task)
    assert queries == [f"addone/{i}" for i in range(N)]
    evaluate = inspect_evaluator(task, scorer="match", log_dir=tmp_path / "logs")
    asked: list[tuple[str, str]] = []

    def counted(model: str, batch: Sequence[str]) -> Sequence[object]:
        asked.extend((model, query) for query in batch)
        return evaluate(model, batch)

    with Session.create(tmp_path / "run", list(SKILL), queries, budget=20, seed=1) as session:
        report = run(session, counted)
        recorded = dict(session.recorded())
    expected = select(_matrix(), 20, "sysrs", seed=1)
    assert (report.outcome.chosen, report.outcome.ranking) == (expected.chosen, expected.ranking)
    assert report.chosen == "known/strong" and len(asked) == len(set(asked)) == report.recorded
    logs = sorted((tmp_path / "logs").glob("*.eval"))
    assert len(logs) == report.calls
    for log in logs:  # the harness's logs convert back to the scores recorded
        table = load_inspect(log, metric="match")
        for query, score in zip(table.queries, table.scores[0].tolist(), strict=True):
            assert recorded[(table.models[0], query)] == score


def test_a_session_stopped_mid_batch_resumes_without_running_a_pair_twice(task: object, tmp_path: Path) -> None:
    from sysrs_ref.live.inspect_harness import inspect_evaluator, inspect_queries

    evaluate = inspect_evaluator(task, scorer="match", log_dir=tmp_path / "logs")
    asked: list[tuple[str, str]] = []
    stopped: list[str] = []

    def stopping(model: str, batch: Sequence[str]) -> Sequence[object]:
        if not stopped and len({pair[0] for pair in asked}) == 2 and model not in {pair[0] for pair in asked}:
            stopped.append(model)
            raise KeyboardInterrupt  # Ctrl-C during the first batch, after two models' calls
        asked.extend((model, query) for query in batch)
        return evaluate(model, batch)

    session = Session.create(tmp_path / "run", list(SKILL), inspect_queries(task), budget=20, seed=1)
    with session, pytest.raises(KeyboardInterrupt):
        run(session, stopping)
    before = len(asked)
    assert before > 0 and stopped
    with Session.open(tmp_path / "run") as session:
        assert len(session.recorded()) == before
        report = run(session, stopping)
    assert len(asked) == len(set(asked)) == report.outcome.spent  # no recorded pair was run again
    assert report.chosen == "known/strong"


TASK_FILE = """
from inspect_ai import Task, task
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.scorer import match
from inspect_ai.solver import generate


@task
def addone():
    samples = [Sample(input=f"Add {i} and one", target=str(i + 1), id=i) for i in range(12)]
    return Task(dataset=MemoryDataset(samples), solver=generate(), scorer=match())
"""


def test_live_run_drives_inspect_from_the_command_line_and_resumes(
    task: object, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import json

    from sysrs_ref.cli import main

    (tmp_path / "tasks.py").write_text(TASK_FILE)
    spec = f"{tmp_path / 'tasks.py'}@addone"
    models = [arg for model in SKILL for arg in ("--model", model)]
    run_dir = str(tmp_path / "run")
    main(["live", "run", "--inspect", spec, *models, "--scorer", "match", "--budget", "20", "--seed", "1",
          "--dir", run_dir, "--json"])  # fmt: skip
    first = json.loads(capsys.readouterr().out)
    expected = select(_matrix(), 20, "sysrs", seed=1)
    assert first["chosen"] == list(SKILL)[expected.chosen] and first["spent"] == expected.spent
    assert len(first["logs"]) == first["calls"] > 0
    main(["live", "run", "--inspect", spec, "--scorer", "match", "--dir", run_dir, "--json"])
    again = json.loads(capsys.readouterr().out)
    assert (again["calls"], again["recorded"], again["chosen"]) == (0, 0, first["chosen"])


def test_a_task_function_that_raises_is_one_line(
    task: object, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from sysrs_ref.cli import main

    (tmp_path / "tasks.py").write_text(
        "from inspect_ai import task\n\n@task\ndef addone():\n    raise ValueError('no data')\n"
    )
    status = main(["live", "run", "--inspect", f"{tmp_path / 'tasks.py'}@addone", "--model", "known/strong",
                   "--model", "known/weak", "--scorer", "match", "--budget", "20", "--dir", str(tmp_path / "run")])  # fmt: skip
    assert status == 2
    assert capsys.readouterr().err == (
        f"error: --inspect '{tmp_path / 'tasks.py'}@addone': addone() raised ValueError('no data')\n"
    )


def test_an_unknown_model_is_reported_at_once_with_inspects_message(
    task: object, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from sysrs_ref.cli import main

    (tmp_path / "tasks.py").write_text(TASK_FILE)
    status = main(["live", "run", "--inspect", f"{tmp_path / 'tasks.py'}@addone", "--model", "nosuch/model",
                   "--model", "known/weak", "--scorer", "match", "--budget", "20", "--dir", str(tmp_path / "run")])  # fmt: skip
    err = capsys.readouterr().err
    assert status == 2 and err.count("\n") == 1, err
    assert err.startswith("error: evaluate('nosuch/model', ") and "(not retried)" in err
    assert "Model API nosuch of model 'nosuch/model' not recognized" in err
