"""A live session driven through lm-evaluation-harness itself: simple_evaluate on the documents asked for.

The task is a YAML file over a local JSON file, and the models an ``LM``
subclass registered through lm-eval's registry, answering without a network
according to the model's ``name`` argument. lm-eval is the optional ``lm-eval``
extra: without it these tests are skipped (``.ci/harnesses`` runs them with
the extra installed), and the error a user then gets is
tested apart.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path

import pytest

from sysrs_ref import select
from sysrs_ref.errors import LiveError
from sysrs_ref.instance import Instance
from sysrs_ref.live import Session, run
from sysrs_ref.loaders import load_lm_eval
from tests.harness_extras import harness

pytestmark = pytest.mark.harness

SKILL = {"strong": 0.9, "middle": 0.6, "weak": 0.3}
MODELS = [f"known:name={name}" for name in SKILL]
N = 12


def _correct(name: str, doc: int) -> bool:
    return (doc * 7919 % N) < SKILL[name] * N


def test_without_lm_eval_the_error_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    from sysrs_ref.live.lm_eval_harness import lm_eval_queries

    monkeypatch.setitem(sys.modules, "lm_eval", None)
    with pytest.raises(LiveError, match=r"the optional 'lm-eval' extra: pip install 'sysrs-ref\[lm-eval\]'"):
        lm_eval_queries("addone")


@pytest.fixture(scope="module")
def tasks(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """A folder holding the task addone: a YAML over a local JSON file of 12 documents."""
    root = tmp_path_factory.mktemp("lm_eval")
    os.environ.setdefault("HF_DATASETS_OFFLINE", "1")
    harness("lm_eval")
    from lm_eval.api.model import LM
    from lm_eval.api.registry import register_model

    @register_model("known")
    class Known(LM):  # type: ignore[misc]  # lm-eval's classes are untyped here (optional extra)
        def __init__(self, name: str = "strong", **_: object) -> None:
            super().__init__()
            self.name = name

        def generate_until(self, requests: Sequence[object], disable_tqdm: bool = False) -> list[str]:
            answers = []
            for request in requests:
                doc = int(str(request.args[0]).split()[1])  # type: ignore[attr-defined]  # lm-eval's classes are untyped here (optional extra)
                answers.append(str(doc + 1) if _correct(self.name, doc) else "0")
            return answers

        def loglikelihood(self, requests: object, disable_tqdm: bool = False) -> list[object]:
            raise NotImplementedError

        def loglikelihood_rolling(self, requests: object, disable_tqdm: bool = False) -> list[object]:
            raise NotImplementedError

    data = root / "addone.jsonl"
    data.write_text(
        "".join(json.dumps({"question": f"Add {i} and one", "answer": str(i + 1)}) + "\n" for i in range(N))
    )
    (root / "addone.yaml").write_text(
        "task: addone\ndataset_path: json\ndataset_kwargs:\n  data_files:\n    test: " + str(data) + "\n"
        "test_split: test\noutput_type: generate_until\ndoc_to_text: '{{question}}'\ndoc_to_target: '{{answer}}'\n"
        "generation_kwargs:\n  until: ['\\n']\nmetric_list:\n  - metric: exact_match\n    aggregation: mean\n"
        "    higher_is_better: true\n"
    )
    yield root


def _matrix() -> Instance:
    return Instance([[1 if _correct(name, j) else 0 for j in range(N)] for name in SKILL])


def test_a_session_driven_by_lm_eval_ends_as_select_and_resumes(tasks: Path, tmp_path: Path) -> None:
    from sysrs_ref.live.lm_eval_harness import lm_eval_evaluator, lm_eval_queries

    queries = lm_eval_queries("addone", include_path=tasks)
    assert queries == [f"addone/{i}" for i in range(N)]
    evaluate = lm_eval_evaluator("addone", metric="exact_match", output_path=tmp_path / "out", include_path=tasks)
    asked: list[tuple[str, str]] = []
    stopped: list[str] = []

    def stopping(model: str, batch: Sequence[str]) -> Sequence[object]:
        if not stopped and asked:
            stopped.append(model)
            raise KeyboardInterrupt  # Ctrl-C in the first batch, after one model's call
        asked.extend((model, query) for query in batch)
        return evaluate(model, batch)

    session = Session.create(tmp_path / "run", MODELS, queries, budget=20, seed=1)
    with session, pytest.raises(KeyboardInterrupt):
        run(session, stopping)
    assert asked and stopped
    with Session.open(tmp_path / "run") as session:
        report = run(session, stopping)
        recorded = dict(session.recorded())
    expected = select(_matrix(), 20, "sysrs", seed=1)
    assert (report.outcome.chosen, report.outcome.ranking) == (expected.chosen, expected.ranking)
    assert len(asked) == len(set(asked)) == report.outcome.spent  # no recorded pair was run again
    samples = sorted((tmp_path / "out").rglob("samples_addone_*.jsonl"))
    assert len(samples) == report.calls + 1
    back = load_lm_eval(tmp_path / "out", metric="exact_match", reruns="merge", missing="drop-queries")
    assert set(back.models) == set(MODELS)  # the results files name the session's model ids
    for path in samples:  # the harness's samples files convert back to the scores recorded
        table = load_lm_eval(path, metric="exact_match")
        for query, score in zip(table.queries, table.scores[0].tolist(), strict=True):
            assert recorded[(table.models[0], query)] == score


def test_live_run_drives_lm_eval_from_the_command_line(
    tasks: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from sysrs_ref.cli import main

    models = [arg for model in MODELS for arg in ("--model", model)]
    main(["live", "run", "--lm-eval", "addone", "--include-path", str(tasks), *models, "--metric", "exact_match",
          "--budget", "20", "--seed", "1", "--dir", str(tmp_path / "run"), "--json"])  # fmt: skip
    report = json.loads(capsys.readouterr().out)
    expected = select(_matrix(), 20, "sysrs", seed=1)
    assert (report["chosen"], report["spent"]) == (MODELS[expected.chosen], expected.spent)
    assert len(report["logs"]) == report["calls"] > 0


def test_an_unknown_model_is_reported_at_once_with_lm_evals_message(
    tasks: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from sysrs_ref.cli import main

    models = ["--model", "nosuch:name=strong", "--model", MODELS[0]]
    status = main(["live", "run", "--lm-eval", "addone", "--include-path", str(tasks), *models, "--metric",
                   "exact_match", "--budget", "20", "--dir", str(tmp_path / "run")])  # fmt: skip
    err = capsys.readouterr().err.splitlines()[-1]  # after the datasets library's own progress
    assert status == 2, err
    assert err.startswith("error: evaluate('nosuch:name=strong', ") and "lm-eval cannot build the model" in err
    assert "no model for this name found" in err and "(not retried)" in err and "--unfinished" not in err


def test_one_model_is_refused_in_words_a_user_knows(
    tasks: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from sysrs_ref.cli import main

    status = main(["live", "run", "--lm-eval", "addone", "--include-path", str(tasks), "--model", MODELS[0],
                   "--metric", "exact_match", "--budget", "20", "--dir", str(tmp_path / "run")])  # fmt: skip
    assert status == 2
    assert capsys.readouterr().err == (
        "error: starting a session needs two or more --model to choose between and a --budget "
        f"(got 1 --model ({MODELS[0]}))\n"
    )
