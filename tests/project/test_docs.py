"""The README and docs/ are tested: their examples run, their links resolve, every fence says what it is.

Conventions for the pages (the README's "Development" section states them for writers):

- a ```pycon fence is a Python session (``>>>`` prompts and the expected
  output); the pycon fences of a page run top to bottom in one namespace, by
  doctest, with ELLIPSIS and NORMALIZE_WHITESPACE;
- a ```console fence holds ``$ python ...`` commands, each followed by its
  expected output (stdout and stderr together; ``...`` matches anything); the
  commands of a page run in order in one scratch folder where the repository's
  ``data/`` and ``examples/`` are reachable under those names. A command
  must exit 0, or 2 when its shown output has a line starting with ``error:``;
- a ```bash, ```sh, ```shell or ```python fence is not run and must follow a
  ``<!-- not run: REASON -->`` line (the README's first two commands are run
  by .ci/run and checked by tests/project/test_readme.py);
- any other fence (```json, ```text, ...) is data, not run; every fence names its language.
"""

from __future__ import annotations

import doctest
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from tests.blas_kernels import FIT_PAGES, kernel_env, kernels
from tests.pages import FLAGS, ROOT, commands, fences

PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


def _ours(path: Path) -> bool:
    """Not in a hidden folder (.git, .venv, caches) nor in build output."""
    parts = path.relative_to(ROOT).parts
    return not any(part.startswith(".") or part in ("build", "dist") or part.endswith(".egg-info") for part in parts)


EVERY_MARKDOWN = sorted(p for p in ROOT.rglob("*.md") if _ours(p))
RUN_LANGUAGES = {"pycon", "console"}
DECLARED_LANGUAGES = {"bash", "sh", "shell", "python", "py"}
NOT_RUN = re.compile(r"^<!-- not run: \S.*-->$")


def page_id(page: Path) -> str:
    return str(page.relative_to(ROOT))


@pytest.fixture
def scratch(tmp_path: Path) -> Path:
    """A folder to run a page's examples in, with the repository's data/ and examples/ reachable by those names."""
    for name in ("data", "examples"):
        (tmp_path / name).symlink_to(ROOT / name, target_is_directory=True)
    return tmp_path


def test_there_are_pages_and_blocks_to_run() -> None:
    assert (ROOT / "docs").is_dir() and len(PAGES) >= 10
    runnable = [fence for page in PAGES for fence in fences(page) if fence.language in RUN_LANGUAGES]
    assert len(runnable) >= 20  # the docs show what they say by running it


@pytest.mark.parametrize("page", PAGES, ids=page_id)
def test_every_fence_says_whether_it_runs(page: Path) -> None:
    exempt = {0, 1} if page.name == "README.md" and page.parent == ROOT else set()  # the two commands: .ci/run
    shell_fences = 0
    for fence in fences(page):
        assert fence.language, f"{fence.where}: a fence must name its language (pycon, console, json, text, ...)"
        if fence.language in DECLARED_LANGUAGES:
            if shell_fences not in exempt:
                assert NOT_RUN.match(fence.preceding), (
                    f"{fence.where}: a ```{fence.language} block is not run; say why on the line before it, "
                    "as <!-- not run: REASON -->, or make it a ```console / ```pycon block that the tests run"
                )
            shell_fences += 1
        if fence.language == "pycon":
            assert fence.body.lstrip().startswith(">>>"), f"{fence.where}: a pycon block starts with >>>"
        if fence.language == "console":
            assert fence.body.lstrip().startswith("$ "), f"{fence.where}: a console block starts with '$ '"


@pytest.mark.slow
@pytest.mark.parametrize("page", [p for p in PAGES if any(f.language == "pycon" for f in fences(p))], ids=page_id)
def test_pycon_blocks_run(page: Path, scratch: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(scratch)
    monkeypatch.delenv("SYSRS_DATA", raising=False)
    parser = doctest.DocTestParser()
    examples = []
    for fence in fences(page):
        if fence.language == "pycon":
            for example in parser.get_examples(fence.body):
                example.lineno += fence.line  # report the page's line
                examples.append(example)
    test = doctest.DocTest(examples, {"__name__": "__docs__"}, page_id(page), str(page), 0, None)
    runner = doctest.DocTestRunner(optionflags=FLAGS)
    report: list[str] = []
    runner.run(test, out=report.append)
    assert runner.failures == 0, "".join(report)


@pytest.mark.slow
@pytest.mark.parametrize("page", [p for p in PAGES if any(f.language == "console" for f in fences(p))], ids=page_id)
def test_console_blocks_run(page: Path, scratch: Path) -> None:
    """Each command prints what the page shows; the pages about fits run under a forced BLAS kernel.

    :data:`~tests.blas_kernels.FIT_PAGES` run under the first of :func:`~tests.blas_kernels.kernels`
    (Prescott on x86-64), not the machine's own: the page shows what every machine prints, whatever kernel
    its OpenBLAS picks.
    """
    env = kernel_env(kernels()[0] if page in FIT_PAGES else None)
    checker = doctest.OutputChecker()
    for fence in fences(page):
        if fence.language != "console":
            continue
        for command, expected in commands(fence):
            argv = shlex.split(command)
            assert argv[0] == "python", f"{fence.where}: console commands start with python, not {argv[0]!r}"
            result = subprocess.run(
                [sys.executable, *argv[1:]], cwd=scratch, env=env, capture_output=True, text=True, timeout=600
            )
            got = result.stdout + result.stderr
            mistake = any(line.startswith("error:") for line in expected.splitlines())
            assert result.returncode == (2 if mistake else 0), (
                f"{fence.where}: `{command}` exited {result.returncode}:\n{got}"
            )
            assert checker.check_output(expected, got, FLAGS), (
                f"{fence.where}: `{command}` printed\n{got}\nbut the page shows\n{expected}"
                + (f"\n(under OPENBLAS_CORETYPE={env['OPENBLAS_CORETYPE']})" if "OPENBLAS_CORETYPE" in env else "")
            )


def _slug(heading: str) -> str:
    """GitHub's anchor of a heading: lower case, punctuation dropped, spaces to hyphens."""
    text = re.sub(r"[`*_]|<[^>]+>", "", heading.strip().lower())
    return re.sub(r"\s", "-", re.sub(r"[^\w\s-]", "", text))


def _anchors(page: Path) -> set[str]:
    seen: dict[str, int] = {}
    out = set()
    in_fence = False
    for line in page.read_text(encoding="utf-8").splitlines():
        if line.startswith("```"):
            in_fence = not in_fence
        heading = re.match(r"^#{1,6}\s+(.*)$", line)
        if heading and not in_fence:
            slug = _slug(heading.group(1))
            out.add(slug if slug not in seen else f"{slug}-{seen[slug]}")
            seen[slug] = seen.get(slug, 0) + 1
    return out


@pytest.mark.parametrize("page", EVERY_MARKDOWN, ids=page_id)
def test_relative_links_resolve(page: Path) -> None:
    text = re.sub(r"```.*?```", "", page.read_text(encoding="utf-8"), flags=re.S)
    for target in re.findall(r"\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)", text):
        if re.match(r"^[a-z]+:", target):
            continue  # http(s), mailto: not checked offline
        path_text, _, anchor = target.partition("#")
        linked = (page.parent / path_text).resolve() if path_text else page
        assert linked.exists(), f"{page_id(page)}: the link ({target}) points at nothing"
        assert ROOT in linked.parents or linked == ROOT, f"{page_id(page)}: the link ({target}) leaves the repository"
        if anchor and linked.suffix == ".md":
            assert anchor in _anchors(linked), f"{page_id(page)}: ({target}): no heading with the anchor #{anchor}"


def test_the_readme_is_a_front_page() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert len(readme.encode("utf-8")) <= 20_000
    for page in sorted((ROOT / "docs").glob("*.md")):
        assert f"(docs/{page.name})" in readme, f"the README's contents do not link docs/{page.name}"


def test_the_repository_stands_alone() -> None:
    """No file refers to a folder beside the repository or to the founding design note (the issue's grep)."""
    # written in parts so that this file passes too: a path into the folder beside the repository, the design note
    forbidden = re.compile("sha" + "red/|DESIGN" + r"\.md|" + '"sha' + 'red"')
    checked = 0
    for path in ROOT.rglob("*"):
        if path.is_file() and _ours(path) and path.suffix not in (".npz", ".npy", ".png", ".pyc"):
            found = forbidden.search(path.read_text(encoding="utf-8", errors="replace"))
            assert found is None, f"{path.relative_to(ROOT)} refers outside the repository: {found.group(0)!r}"
            checked += 1
    assert checked > 100
