"""Random scores S_ij ~ phi_ij on the command line (docs/cli.md, "Random scores"): reading, every command, refusals.

The commands run in-process (:func:`sysrs_ref.cli.main`). Each result is compared with the Python API on the
StochasticInstance the file describes: ``select`` with ``random_stochastic_draw(seed, ...)``, ``hardness``,
``exact`` (``error_probability``) and ``simulate`` (``simulate_many``). A score matrix read without --stochastic
gives exactly the output it gave before random scores existed (no ``stochastic`` key, no extra line).
"""

from __future__ import annotations

import json
import tempfile
from collections.abc import Sequence
from fractions import Fraction
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import pytest
from hypothesis import given, settings

import sysrs_ref
from sysrs_ref import Instance, get_algorithm
from sysrs_ref.cli import main
from sysrs_ref.errors import DrawError, InstanceError
from sysrs_ref.live import Session
from sysrs_ref.live.driver import run as run_live
from sysrs_ref.loaders import as_bernoulli, load_scores, load_stochastic
from sysrs_ref.scores import fraction_text
from sysrs_ref.stochastic import StochasticDraw, StochasticInstance, random_stochastic_draw
from sysrs_ref.theory.hardness import hardness
from tests.param_types import AlgorithmParamValues
from tests.strategies import stochastic_files

ROOT = Path(__file__).resolve().parents[2]
TINY = ROOT / "data" / "fixtures" / "tiny_matrix.csv"
EPOCHS = ROOT / "data" / "fixtures" / "inspect" / "epochs"
EPOCH_LOGS = [
    EPOCHS / "2026-05-04T10-00-00+00-00_quiz_model-a.eval",
    EPOCHS / "2026-05-04T10-00-00+00-00_quiz_model-b.json",
]

#: p_ij of a 3 x 4 Bernoulli instance (exact decimals), model 0 best (mu = 5/8, 1/2, 3/8).
BERNOULLI_CSV = "0.5,0.75,0.5,0.75\n0.5,0.5,0.5,0.5\n0.25,0.5,0.25,0.5\n"
#: 3 x 4 x 3 samples: mu = 2/3, 1/2, 1/4 (model 0 best).
SAMPLES = np.array(
    [
        [[1, 1, 0], [1, 0, 1], [0.5, 0.5, 0.5], [1, 0, 0]],
        [[0, 1, 0], [0.5, 0.5, 0.5], [1, 1, 0], [0, 0, 1]],
        [[0, 0, 1], [0, 0, 0], [0.5, 0, 0], [0, 0.5, 1]],
    ]
)
#: A finite law on {0, 1/2, 1}, 3 x 2 cells (model 0 best: mu = 3/4, 1/2, 3/16).
SUPPORT = np.array([0.0, 0.5, 1.0])
PROBABILITIES = np.array(
    [
        [[0.0, 0.5, 0.5], [0.25, 0.0, 0.75]],
        [[0.5, 0.0, 0.5], [0.0, 1.0, 0.0]],
        [[0.75, 0.25, 0.0], [0.5, 0.5, 0.0]],
    ]
)


@pytest.fixture
def files(tmp_path: Path) -> dict[str, tuple[str, ...]]:
    """The --scores (and --stochastic) words of each kind of random scores, written into tmp_path."""
    (tmp_path / "p.csv").write_text(BERNOULLI_CSV)
    np.save(tmp_path / "samples.npy", SAMPLES)
    np.savez(tmp_path / "law.npz", support=SUPPORT, probabilities=PROBABILITIES)
    np.savez(tmp_path / "samples.npz", samples=SAMPLES)
    return {
        "bernoulli": ("--scores", str(tmp_path / "p.csv"), "--stochastic", "bernoulli"),
        "samples": ("--scores", str(tmp_path / "samples.npy")),
        "samples-npz": ("--scores", str(tmp_path / "samples.npz")),
        "finite": ("--scores", str(tmp_path / "law.npz")),
    }


EXPECTED_KIND = {"bernoulli": "bernoulli", "samples": "samples", "samples-npz": "samples", "finite": "finite"}


def _instance(kind: str) -> StochasticInstance:
    """The StochasticInstance each fixture file describes, built directly."""
    if kind == "bernoulli":
        rows = [[Fraction(cell) for cell in line.split(",")] for line in BERNOULLI_CSV.split()]
        return StochasticInstance.bernoulli(rows)
    if kind == "finite":
        return StochasticInstance.finite(SUPPORT, PROBABILITIES)
    return StochasticInstance.samples(SAMPLES)


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = main(list(argv))
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def _json(capsys: pytest.CaptureFixture[str], *argv: str) -> dict[str, Any]:
    status, out, err = _run(capsys, *argv, "--json")
    assert status == 0, err
    payload = json.loads(out)
    assert isinstance(payload, dict)
    return payload


def _error(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    status, out, err = _run(capsys, *argv)
    assert status == 2 and out == "" and len(err.splitlines()) == 1 and "Traceback" not in err, err
    return err


# -- reading -------------------------------------------------------------------------------------------


@pytest.mark.parametrize("kind", ["bernoulli", "samples", "samples-npz", "finite"])
def test_every_file_is_read_as_its_stochastic_instance(kind: str, files: dict[str, tuple[str, ...]]) -> None:
    words = files[kind]
    found = load_stochastic(words[1], bernoulli="--stochastic" in words)
    expected = _instance(kind)
    assert isinstance(found, StochasticInstance) and found.kind == EXPECTED_KIND[kind]
    assert found.shape == expected.shape and found.n_slots == expected.n_slots
    cells = [(i, j) for i in range(found.n_models) for j in range(found.n_queries)]
    assert [found.slots(i, j) for i, j in cells] == [expected.slots(i, j) for i, j in cells]
    assert found.means == expected.means


@settings(max_examples=40, deadline=None)
@given(arrays=stochastic_files())
def test_a_written_file_reads_back_exactly(arrays: dict[str, npt.NDArray[np.float64]]) -> None:
    """Any samples / finite-law / Bernoulli file reads back as the instance of its arrays, law for law."""
    with tempfile.TemporaryDirectory() as folder:
        if "bernoulli" in arrays:
            path = Path(folder, "p.npy")
            np.save(path, arrays["bernoulli"])
            found = load_stochastic(path, bernoulli=True)
            expected = StochasticInstance.bernoulli(arrays["bernoulli"])
        elif "samples" in arrays:
            path = Path(folder, "s.npy")
            np.save(path, arrays["samples"])
            found = load_stochastic(path)
            expected = StochasticInstance.samples(arrays["samples"])
        else:
            path = Path(folder, "law.npz")
            np.savez(path, support=arrays["support"], probabilities=arrays["probabilities"])
            found = load_stochastic(path)
            expected = StochasticInstance.finite(arrays["support"], arrays["probabilities"])
    assert isinstance(found, StochasticInstance)
    assert found.kind == expected.kind and found.shape == expected.shape
    assert all(found.law(i, j) == expected.law(i, j) for i in range(found.n_models) for j in range(found.n_queries))
    assert np.array_equal(found.thresholds, expected.thresholds)  # the same noise gives the same scores


def test_a_matrix_without_the_flag_is_the_matrix(tmp_path: Path) -> None:
    np.save(tmp_path / "m.npy", np.array([[1.0, 0.5], [0.0, 0.25]]))
    assert load_stochastic(tmp_path / "m.npy") == Instance(
        [[Fraction(1), Fraction(1, 2)], [Fraction(0), Fraction(1, 4)]]
    )
    assert load_stochastic(TINY) == load_scores(TINY)


def test_as_bernoulli_keeps_exact_decimals_and_uses_floats_when_exact() -> None:
    decimal = as_bernoulli(load_scores(TINY))
    assert decimal.means == load_scores(TINY).means
    tenth = as_bernoulli(Instance([[Fraction(1, 10)], [Fraction(1, 3)]]))
    assert tenth.law(1, 0) == ((Fraction(1), Fraction(1, 3)), (Fraction(0), Fraction(2, 3)))
    floats = as_bernoulli(Instance(np.array([[0.1], [0.3]])))
    assert floats.law(0, 0)[0] == (Fraction(1), Fraction(0.1))  # the float's exact value


# -- select ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("kind", ["bernoulli", "samples", "samples-npz", "finite"])
@pytest.mark.parametrize(("algorithm", "params"), [("sysrs", ()), ("sr", ()), ("ucbe", ("--a", "2")), ("us", ())])
def test_select_is_the_python_select_with_the_seeds_draw_and_noise(
    capsys: pytest.CaptureFixture[str],
    files: dict[str, tuple[str, ...]],
    kind: str,
    algorithm: str,
    params: tuple[str, ...],
) -> None:
    instance = _instance(kind)
    spec = get_algorithm(algorithm)
    for seed in (0, 7):
        payload = _json(
            capsys, "select", *files[kind], "--budget", "50%", "--algorithm", algorithm, *params, "--seed", str(seed)
        )
        draw = random_stochastic_draw(seed, *instance.shape, synchronized=spec.synchronized)
        given: AlgorithmParamValues = {"a": Fraction(params[1])} if params else {}
        expected = sysrs_ref.select(instance, "50%", algorithm, draw=draw, **given)
        assert (payload["chosen"], payload["ranking"], payload["spent"]) == (
            expected.chosen,
            list(expected.ranking),
            expected.spent,
        )
        assert payload["stochastic"] == {"kind": EXPECTED_KIND[kind], "slots": instance.n_slots}
        assert payload["true_best"] == sorted(instance.best) == [0]
        assert payload["correct"] == (expected.chosen in instance.best)


def test_select_text_says_what_was_read(capsys: pytest.CaptureFixture[str], files: dict[str, tuple[str, ...]]) -> None:
    status, out, _ = _run(capsys, "select", *files["finite"], "--budget", "4")
    assert status == 0
    assert out.splitlines()[-1] == (
        "random scores: S_ij follows its cell's law on 3 scores; the truth is mu_i = mean over j of E[S_ij]"
    )
    assert "best:    model 0, mean 0.7500" in out


def test_a_matrix_gives_todays_output_and_its_point_masses_the_same_run(capsys: pytest.CaptureFixture[str]) -> None:
    """Without --stochastic: no new key, no new line. A 0/1 matrix read as Bernoulli is point masses: same run."""
    payload = _json(capsys, "select", "--scores", str(TINY), "--budget", "12", "--seed", "3")
    expected = sysrs_ref.select(load_scores(TINY), 12, "sysrs", seed=3)
    assert payload == {
        "algorithm": "sysrs",
        "params": {},
        "K": 4,
        "L": 6,
        "budget": 12,
        "spent": expected.spent,
        "chosen": expected.chosen,
        "ranking": list(expected.ranking),
        "seed": 3,
        "true_best": [0],
        "correct": expected.chosen == 0,
    }
    _, text, _ = _run(capsys, "select", "--scores", str(TINY), "--budget", "12", "--seed", "3")
    assert "random" not in text and len(text.splitlines()) == 6
    degenerate = _json(
        capsys, "select", "--scores", str(TINY), "--budget", "12", "--seed", "3", "--stochastic", "bernoulli"
    )
    assert degenerate.pop("stochastic") == {"kind": "bernoulli", "slots": 2}
    assert degenerate == payload


def test_select_refuses_ucbe_lrf_on_random_scores(
    capsys: pytest.CaptureFixture[str], files: dict[str, tuple[str, ...]]
) -> None:
    err = _error(capsys, "select", *files["samples"], "--budget", "6", "--algorithm", "ucbe-lrf")
    assert "ucbe-lrf does not run on stochastic instances" in err


# -- hardness, exact, simulate --------------------------------------------------------------------------


@pytest.mark.parametrize("kind", ["bernoulli", "samples", "finite"])
def test_hardness_is_the_stochastic_hardness(
    capsys: pytest.CaptureFixture[str], files: dict[str, tuple[str, ...]], kind: str
) -> None:
    payload = _json(capsys, "hardness", *files[kind])
    h = hardness(_instance(kind))
    assert payload["exact"]["H3"] == (None if h.h3 is None else fraction_text(h.h3))
    assert payload["exact"]["H2"] == (None if h.h2 is None else fraction_text(h.h2))
    assert payload["exact"]["delta2"] == fraction_text(h.delta2)
    assert payload["stochastic"]["kind"] == kind
    _, text, _ = _run(capsys, "hardness", *files[kind])
    assert text.splitlines()[-1].startswith("  random scores: ")


def test_hardness_bernoulli_flag_is_the_stochastic_reading(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    (tmp_path / "p.csv").write_text(BERNOULLI_CSV)
    old = _json(capsys, "hardness", "--scores", str(tmp_path / "p.csv"), "--bernoulli")
    new = _json(capsys, "hardness", "--scores", str(tmp_path / "p.csv"), "--stochastic", "bernoulli")
    assert new.pop("stochastic") == {"kind": "bernoulli", "slots": 2}
    assert old == new


@pytest.mark.parametrize("kind", ["bernoulli", "finite"])
@pytest.mark.parametrize("algorithm", ["sysrs", "sr"])
def test_exact_is_the_exact_stochastic_error(
    capsys: pytest.CaptureFixture[str], files: dict[str, tuple[str, ...]], kind: str, algorithm: str
) -> None:
    from sysrs_ref.theory.exact import error_probability

    instance = _instance(kind)
    payload = _json(capsys, "exact", *files[kind], "--budget", "5", "--algorithm", algorithm)
    expected = error_probability(instance, algorithm, 5)
    assert payload["error"] == fraction_text(expected)
    assert payload["stochastic"] == {"kind": kind, "slots": instance.n_slots}


def test_exact_top_m_is_refused_on_random_scores(
    capsys: pytest.CaptureFixture[str], files: dict[str, tuple[str, ...]]
) -> None:
    err = _error(capsys, "exact", *files["finite"], "--budget", "4", "--top-m", "1")
    assert "exact --top-m is for a score matrix" in err


@pytest.mark.parametrize("kind", ["bernoulli", "samples", "finite"])
def test_simulate_is_simulate_many(
    capsys: pytest.CaptureFixture[str], files: dict[str, tuple[str, ...]], kind: str
) -> None:
    from sysrs_ref.simulation import simulate_many

    instance = _instance(kind)
    one = _json(capsys, "simulate", *files[kind], "--algorithm", "sysrs", "--budgets", "4,50%", "--runs", "20")
    (expected,) = simulate_many(instance, "sysrs", ["4", "50%"], 20, 0)
    assert one.pop("stochastic") == {"kind": kind, "slots": instance.n_slots}
    assert one == expected.to_json()
    several = _json(capsys, "simulate", *files[kind], "--algorithm", "all", "--budgets", "50%", "--runs", "10")
    results = simulate_many(instance, "all", ["50%"], 10, 0)
    assert several["stochastic"]["kind"] == kind
    assert several["algorithms"] == [result.to_json() for result in results]


# -- convert --epochs all, read back --------------------------------------------------------------------


def test_convert_epochs_all_is_read_back_as_samples(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    out = tmp_path / "epochs.npy"
    converted = [str(path) for path in EPOCH_LOGS]
    status, _, err = _run(
        capsys, "convert", "--from", "inspect", *converted, "--metric", "match", "--epochs", "all", "--out", str(out)
    )
    assert status == 0, err
    found = load_stochastic(out)
    assert isinstance(found, StochasticInstance) and (found.kind, found.shape, found.n_slots) == ("samples", (2, 10), 5)
    assert found.means == (Fraction(33, 50), Fraction(18, 25))  # 0.66 and 0.72, the epochs' means
    chose = _json(capsys, "select", "--scores", str(out), "--budget", "10", "--seed", "2")
    assert chose["stochastic"] == {"kind": "samples", "slots": 5}
    assert chose["true_best_names"] == ["local/model-b"] or chose["true_best_names"][0].endswith("model-b")
    assert _json(capsys, "hardness", "--scores", str(out))["stochastic"]["kind"] == "samples"
    err = _error(capsys, "subset", "--scores", str(out), "--method", "random", "--budget", "50%")
    assert "read it as samples of random scores" in err and "--epochs mean" in err


# -- refusals -------------------------------------------------------------------------------------------


def _write_npz(path: Path, **arrays: object) -> str:
    np.savez(path, **arrays)  # type: ignore[arg-type]
    return str(path)


def test_bad_stochastic_files_are_refused_with_what_to_do(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    cases = {
        "holds 'scores'; a stochastic .npz holds either 'samples'": _write_npz(tmp_path / "k.npz", scores=np.eye(2)),
        "'samples' must be a K x L x E array": _write_npz(tmp_path / "s.npz", samples=np.eye(2)),
        "'probabilities' must be a K x L x V array with V = 2": _write_npz(
            tmp_path / "v.npz", support=[0.0, 1.0], probabilities=np.full((2, 2, 3), 1 / 3)
        ),
        "the probabilities at model 1, query 0 sum to 0.5, not 1": _write_npz(
            tmp_path / "sum.npz", support=[0.0, 1.0], probabilities=[[[0.5, 0.5]], [[0.25, 0.25]]]
        ),
        "'support' must be a 1-D list": _write_npz(
            tmp_path / "sup.npz", support=[[0.0, 1.0]], probabilities=np.full((2, 1, 2), 0.5)
        ),
        "the support's scores must be distinct": _write_npz(
            tmp_path / "dup.npz", support=[1.0, 1.0], probabilities=np.full((2, 1, 2), 0.5)
        ),
    }
    np.save(tmp_path / "big.npy", np.full((2, 2, 2), 1.5))
    cases["sample at model 0, query 0, repeat 0 is 1.5, outside [0, 1]"] = str(tmp_path / "big.npy")
    for fragment, path in cases.items():
        err = _error(capsys, "select", "--scores", path, "--budget", "2")
        assert fragment in err and path in err, err
        with pytest.raises(InstanceError, match="'" + path):
            load_stochastic(path)


def test_bernoulli_needs_a_matrix(capsys: pytest.CaptureFixture[str], files: dict[str, tuple[str, ...]]) -> None:
    for kind in ("samples", "finite"):
        err = _error(capsys, "select", *files[kind], "--stochastic", "bernoulli", "--budget", "4")
        assert "read a 2-D matrix of probabilities p_ij" in err and "leave out --stochastic" in err
    err = _error(capsys, "select", "--scores", str(TINY), "--stochastic", "beta", "--budget", "4")
    assert "invalid choice: 'beta'" in err
    err = _error(capsys, "hardness", *files["samples"], "--bernoulli")
    assert "holds random scores (samples): leave out --bernoulli" in err


def test_a_missing_npz_names_the_file(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    err = _error(capsys, "select", "--scores", str(tmp_path / "gone.npz"), "--budget", "4")
    assert "gone.npz" in err


# -- live: real evaluations are random; replay must not re-evaluate -------------------------------------


@pytest.mark.parametrize("algorithm", ["sysrs", "ucbe"])
def test_a_live_session_with_random_scores_replays_exactly(tmp_path: Path, algorithm: str) -> None:
    """A session whose evaluator is random (a StochasticInstance's oracle, seeded noise) reopens to the same run.

    The oracle refuses a cell asked twice, so resuming after an interruption and reopening prove that replay
    reads the log and never evaluates again; the outcome is the reference's on the same draw and noise.
    """
    instance = StochasticInstance.samples(SAMPLES)
    noise = random_stochastic_draw(11, *instance.shape, synchronized=True).noise
    oracle = instance.oracle(noise)
    models, queries = ["m0", "m1", "m2"], ["q0", "q1", "q2", "q3"]

    def evaluate(model: str, asked: Sequence[str]) -> list[Fraction]:
        return [oracle(models.index(model), queries.index(query)) for query in asked]

    folder = tmp_path / "run"
    with Session.create(folder, models, queries, budget=9, algorithm=algorithm, seed=5) as session:
        first = session.pending()[:2]
        for model, query in first:  # a first process records two scores, then stops
            session.record(model, query, evaluate(model, (query,))[0])
    with Session.open(folder) as session:  # a second one resumes: what was recorded is not asked again
        run_live(session, evaluate)
        outcome, batches = session.outcome, session.status().to_json()
    log = (folder / "log.jsonl").read_text()
    with Session.open(folder, readonly=True) as replayed:
        assert replayed.outcome == outcome and replayed.status().to_json() == batches
        recorded = dict(replayed.recorded())
        assert recorded == {
            (m, q): instance.outcome(models.index(m), queries.index(q), noise[models.index(m)][queries.index(q)])
            for m, q in recorded
        }
    assert (folder / "log.jsonl").read_text() == log
    spec = get_algorithm(algorithm)
    draw = StochasticDraw(spec.random_draw(5, *instance.shape), noise)  # type: ignore[arg-type]
    assert outcome == sysrs_ref.select(instance, 9, algorithm, draw=draw)
    model, query = next(iter(recorded))
    with pytest.raises(DrawError, match="evaluated twice"):  # every recorded cell was asked once, by the run
        oracle(models.index(model), queries.index(query))


# -- reproduce ------------------------------------------------------------------------------------------


def test_reproduce_runs_samples_and_bernoulli_readings_in_their_own_caches(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """A samples .npy of the data folder is read as random scores; --stochastic bernoulli reads the matrices as p_ij.

    Each cell is the simulation of its StochasticInstance (same seed, same runs); the Bernoulli reading has
    its own cache, so it never serves (or overwrites) the matrices' entries.
    """
    from sysrs_ref.experiments import ReproduceOutcome, reproduce
    from sysrs_ref.simulation import simulate

    (tmp_path / "data").mkdir()
    np.save(tmp_path / "data" / "samples.npy", SAMPLES)
    (tmp_path / "data" / "p.csv").write_text(BERNOULLI_CSV)
    (tmp_path / "grid.txt").write_text("50%\n100%\n")
    grid = str(tmp_path / "grid.txt")

    def run(stochastic: str | None) -> ReproduceOutcome:
        return reproduce(
            tmp_path / "data",
            tmp_path / "out",
            grid=grid,
            algorithms="sysrs,sr",
            runs=30,
            seed=4,
            plots=False,
            stochastic=stochastic,
        )

    plain = run(None)
    curves = plain.summary.results.curves
    expected = simulate(StochasticInstance.samples(SAMPLES), "sr", ["50%", "100%"], 30, 4)
    assert [p.correct for p in curves[("samples", "sr")].points] == [row.correct for row in expected.rows]
    assert run(None).computed == 0  # the same reading: all cached
    (tmp_path / "data" / "samples.npy").unlink()
    status, out, err = _run(
        capsys,
        "reproduce",
        "--data",
        str(tmp_path / "data"),
        "--out",
        str(tmp_path / "out"),
        "--grid",
        str(tmp_path / "grid.txt"),
        "--algorithms",
        "sysrs,sr",
        "--runs",
        "30",
        "--seed",
        "4",
        "--no-plots",
        "--quiet",
        "--stochastic",
        "bernoulli",
        "--json",
    )
    assert status == 0, err
    assert json.loads(out)["computed"] == 2  # not the matrix's cells: the Bernoulli reading's own
    results = json.loads((tmp_path / "out" / "results.json").read_text())
    assert "bernoulli:" in json.dumps(results)
    expected = simulate(_instance("bernoulli"), "sysrs", ["50%", "100%"], 30, 4)
    again = run("bernoulli")
    assert again.computed == 0
    assert [p.correct for p in again.summary.results.curves[("p", "sysrs")].points] == [
        r.correct for r in expected.rows
    ]
    err = _error(
        capsys,
        "reproduce",
        "--data",
        str(tmp_path / "data"),
        "--out",
        str(tmp_path / "o2"),
        "--stochastic",
        "bernoulli",
        "--subset-selection",
    )
    assert "the subset selection needs score matrices" in err


def test_reproduce_finds_an_npz_of_finite_laws_in_a_folder_without_manifest(tmp_path: Path) -> None:
    """Without a MANIFEST.json every .npz of the folder is a dataset too; its cells simulate its finite laws."""
    from sysrs_ref.experiments import reproduce
    from sysrs_ref.simulation import simulate

    (tmp_path / "data").mkdir()
    np.savez(tmp_path / "data" / "law.npz", support=SUPPORT, probabilities=PROBABILITIES)
    (tmp_path / "grid.txt").write_text("100%\n")
    outcome = reproduce(
        tmp_path / "data",
        tmp_path / "out",
        grid=str(tmp_path / "grid.txt"),
        algorithms="sysrs",
        runs=20,
        seed=2,
        plots=False,
    )
    expected = simulate(StochasticInstance.finite(SUPPORT, PROBABILITIES), "sysrs", ["100%"], 20, 2)
    assert [p.correct for p in outcome.summary.results.curves[("law", "sysrs")].points] == [expected.rows[0].correct]
