"""docs/live.md's ``live run`` commands, run as written on examples/live, and Ctrl-C through each harness.

The page's ```bash blocks marked as run here (their ``<!-- not run: ... -->``
line names this file) are run command by command, from a scratch folder
holding the repository's ``examples/``, as a user would from the project's
root. The example models count their answers (``EXAMPLE_COUNT``), so each
test checks that the harness evaluated each recorded pair once, and no other.
The harnesses are the optional extras: these tests are skipped without them
and run by ``.ci/harnesses``.
"""

from __future__ import annotations

import json
import os
import shlex
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.harness_extras import harness
from tests.pages import ROOT, fences

pytestmark = pytest.mark.harness

PAGE = ROOT / "docs" / "live.md"
INSPECT = "examples/live/inspect_task.py@addone"


def _documented() -> list[list[str]]:
    """The commands of the page's blocks that this file runs, as argument lists (continuation lines joined)."""
    found = []
    for fence in fences(PAGE):
        if fence.language == "bash" and "test_live_docs.py" in fence.preceding:
            for line in fence.body.replace("\\\n", " ").splitlines():
                if line.strip():
                    found.append(shlex.split(line))
    return found


def _env(scratch: Path, **extra: str) -> dict[str, str]:
    env = dict(os.environ, EXAMPLE_COUNT=str(scratch / "answers.csv"), HF_DATASETS_OFFLINE="1", **extra)
    env.pop("EXAMPLE_SECONDS", None)
    return env | extra


def _answers(scratch: Path) -> list[str]:
    path = scratch / "answers.csv"
    return path.read_text().splitlines() if path.exists() else []


def _spent(scratch: Path, run: str) -> int:
    status = subprocess.run(
        [sys.executable, "-m", "sysrs_ref", "live", "status", "--dir", run, "--json"],
        cwd=scratch, capture_output=True, text=True, check=True,
    )  # fmt: skip
    spent: int = json.loads(status.stdout)["spent"]
    return spent


@pytest.fixture
def scratch(tmp_path: Path) -> Path:
    (tmp_path / "examples").symlink_to(ROOT / "examples", target_is_directory=True)
    return tmp_path


def test_the_page_shows_a_live_run_for_each_harness() -> None:
    commands = _documented()
    runs = [argv for argv in commands if argv[3:5] == ["live", "run"]]
    assert [argv[5] for argv in runs] == ["--inspect", "--lm-eval"]
    assert all(argv[:3] == ["python", "-m", "sysrs_ref"] for argv in commands)
    assert len(commands) == 4  # each run, and its read-back


def _run(flag: str) -> list[str]:
    """The page's ``live run`` command through *flag*'s harness."""
    return next(argv for argv in _documented() if flag in argv)


def _read_back(flag: str) -> list[str]:
    """The page's ``convert`` command reading *flag*'s logs back."""
    source = "inspect" if flag == "--inspect" else "lm-eval"
    return next(argv for argv in _documented() if "convert" in argv and argv[argv.index("--from") + 1] == source)


def _resume(argv: list[str]) -> list[str]:
    """*argv* without the settings of a new session (--model, --budget, --seed): the command that resumes it."""
    kept: list[str] = []
    skip = False
    for word in argv:
        if skip:
            skip = False
        elif word in ("--model", "--budget", "--seed"):
            skip = True
        else:
            kept.append(word)
    return kept


@pytest.mark.parametrize("flag", ["--inspect", "--lm-eval"])
def test_the_documented_commands_run_as_written(flag: str, scratch: Path) -> None:
    harness("inspect_ai" if flag == "--inspect" else "lm_eval")
    run, env = _run(flag), _env(scratch)
    done = subprocess.run([sys.executable, *run[1:]], cwd=scratch, env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    strong = "example/strong" if flag == "--inspect" else "example:name=strong"
    assert f"the chosen model is {strong}\n" in done.stdout
    assert done.stdout.startswith("started sysrs on 3 models x 40 samples in run")
    assert "phase 1: 15 of 45 pairs | spent 15 of 60 | 3 models active | 1 call |" in done.stdout  # progress
    answers = _answers(scratch)
    assert len(answers) == len(set(answers)) == _spent(scratch, run[run.index("--dir") + 1]) == 59
    back = _read_back(flag)
    read = subprocess.run([sys.executable, *back[1:]], cwd=scratch, env=env, capture_output=True, text=True)
    assert read.returncode == 0, read.stderr
    assert read.stdout.splitlines()[0].endswith("3 models x 15 queries")


@pytest.mark.parametrize(("flag", "seconds"), [("--inspect", "2"), ("--lm-eval", "0.5")])
def test_ctrl_c_in_a_call_keeps_it_and_the_resume_evaluates_nothing_twice(
    flag: str, seconds: str, scratch: Path
) -> None:
    """Each answer takes *seconds*: a Ctrl-C soon after the first call is recorded lands in the second."""
    harness("inspect_ai" if flag == "--inspect" else "lm_eval")
    run = _run(flag)
    folder = run[run.index("--dir") + 1]
    process = subprocess.Popen(
        [sys.executable, *run[1:]],
        cwd=scratch,
        env=_env(scratch, EXAMPLE_SECONDS=seconds),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert process.stdout is not None
    for line in process.stdout:  # the second call starts once the first is recorded
        if "spent 15 of 60" in line:
            break
    time.sleep(0.5)  # not a measurement: lets the second call start
    process.send_signal(signal.SIGINT)
    _, err = process.communicate(timeout=600)
    assert process.returncode == 130, err
    last = err.splitlines()[-1]  # after the harness's own lines
    assert last.startswith("interrupted: stopped, ") and last.endswith("; run again to resume"), err
    stopped = _spent(scratch, folder)
    assert len(_answers(scratch)) == stopped  # the call in flight was recorded: nothing evaluated and lost
    back = _read_back(flag)  # the documented read-back, after a stop
    read = subprocess.run([sys.executable, *back[1:]], cwd=scratch, env=_env(scratch), capture_output=True, text=True)
    assert read.returncode == 0, read.stderr
    done = subprocess.run(
        [sys.executable, *_resume(run)[1:]], cwd=scratch, env=_env(scratch), capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(f"resumed sysrs on 3 models x 40 samples in {folder}; spent {stopped} of 60")
    answers = _answers(scratch)
    assert len(answers) == len(set(answers)) == _spent(scratch, folder) == 59


def test_a_second_ctrl_c_stops_at_once_and_the_read_back_still_works(scratch: Path) -> None:
    """inspect leaves the log of a call given up unfinished: the documented read-back leaves it out."""
    harness("inspect_ai")
    run = _run("--inspect")
    folder = run[run.index("--dir") + 1]
    process = subprocess.Popen(
        [sys.executable, *run[1:]],
        cwd=scratch,
        env=_env(scratch, EXAMPLE_SECONDS="5"),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert process.stdout is not None
    for line in process.stdout:
        if "spent 15 of 60" in line:
            time.sleep(0.5)  # not a measurement: lets the second call start
            process.send_signal(signal.SIGINT)
        if line.startswith("Ctrl-C: waiting for the call in flight"):
            process.send_signal(signal.SIGINT)  # the second Ctrl-C, while the call runs (5 s an answer)
            break
    _, err = process.communicate(timeout=600)
    assert process.returncode == 130, err
    assert err.splitlines()[-1].startswith("interrupted: stopped at once, the call in flight (example/"), err
    assert _spent(scratch, folder) == 15
    read = subprocess.run(
        [sys.executable, *_read_back("--inspect")[1:]], cwd=scratch, env=_env(scratch), capture_output=True, text=True
    )
    assert read.returncode == 0, read.stderr
    assert "left out by --unfinished drop" in read.stdout  # the call given up
    done = subprocess.run(
        [sys.executable, *_resume(run)[1:]], cwd=scratch, env=_env(scratch), capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    assert len(set(_answers(scratch))) == _spent(scratch, folder) == 59
