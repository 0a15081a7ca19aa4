"""Every code block of README.md and of every docs page runs, doctest-style, so no page can
drift from the code (issues 15 and 42).

A block is fenced with its language: ``sh`` blocks run in bash (``set -e``), ``python`` blocks
in the interpreter running the tests, ``console`` blocks are transcripts — each ``$`` command
runs and its output (stdout and stderr, as a terminal shows them) must be the text under it,
exactly — and ``text`` blocks are diagrams, ``json`` and ``ts`` the specs' data and code: not
run. ``make`` lines run as ``make -n`` (the target exists and says what it would do:
``make test`` would run this very suite again).

The ``sh`` and ``python`` blocks of one page share one folder, in order, as a reader typing
them would; each ``console`` transcript starts in a folder of its own. Every folder starts as
``make demo`` leaves the checkout: the demo store ``valuechain-demo.duckdb`` and nothing else.
Commands run at 80 columns, without ``VALUECHAIN_STORE``. A plain ``valuechain …`` command
runs in-process (the CLI's own entry point, no interpreter start-up); anything using the
shell (a redirect, a pipe) runs in bash.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
from click.testing import CliRunner

from valuechain.cli import main
from valuechain.cli.app import err, out

ROOT = Path(__file__).resolve().parents[2]
# README.md and every page of the docs site (docs/**/*.md)
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
LANGUAGES = {"sh", "console", "python", "text", "json", "ts"}
_FENCE = re.compile(r"^```(\S*)\n(.*?)^```\n", re.M | re.S)


@dataclass(frozen=True)
class Block:
    language: str
    text: str
    line: int  # where it starts in its page
    page: str  # the page, relative to the repository

    @property
    def name(self) -> str:
        return f"{self.page}:{self.line} ({self.language})"


def blocks(page: Path) -> list[Block]:
    source = page.read_text()
    where = page.relative_to(ROOT).as_posix()
    return [
        Block(m[1], m[2], source.count("\n", 0, m.start()) + 1, where)
        for m in _FENCE.finditer(source)
    ]


def _pages_with(*languages: str) -> list[Path]:
    return [p for p in PAGES if any(b.language in languages for b in blocks(p))]


def _env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("VALUECHAIN_")}
    env.update(
        COLUMNS="80",
        LINES="100",
        TERM="dumb",
        NO_COLOR="1",
        PATH=f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}",
    )
    return env


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder as ``make demo`` leaves it: the demo store only."""
    folder = tmp_path_factory.mktemp("demo")
    done = subprocess.run(
        ["valuechain", "demo"], cwd=folder, env=_env(), capture_output=True, check=False
    )
    assert done.returncode == 0, done.stdout.decode() + done.stderr.decode()
    return folder


def _fresh(demo: Path, into: Path) -> Path:
    into.mkdir(parents=True, exist_ok=True)
    for item in demo.iterdir():
        shutil.copy2(item, into / item.name)
    return into


def test_every_block_says_what_it_is() -> None:
    assert blocks(ROOT / "README.md"), "README.md has no code block"
    untagged = [b.name for p in PAGES for b in blocks(p) if b.language not in LANGUAGES]
    assert not untagged, f"fence each block as one of {sorted(LANGUAGES)}: {untagged}"


RUNNING = _pages_with("sh", "python")


@pytest.mark.parametrize("page", RUNNING, ids=[p.relative_to(ROOT).as_posix() for p in RUNNING])
def test_the_shell_and_python_blocks_of_a_page_run_in_order(
    page: Path, demo: Path, tmp_path: Path
) -> None:
    folder = _fresh(demo, tmp_path / "session")
    for block in blocks(page):
        if block.language == "sh":
            _run_sh(block, folder)
        elif block.language == "python":
            _run_python(block, folder)


def _run_sh(block: Block, folder: Path) -> None:
    for line in block.text.splitlines():
        command = line
        if re.match(r"^make\s", line):
            targets = line.split("#")[0].split(None, 1)[1]
            command = f"make -n -C {shlex.quote(str(ROOT))} {targets}"
        code, output = run_command(command, folder)
        assert code == 0, f"{block.name}: {command}\n{output}"


def _run_python(block: Block, folder: Path) -> None:
    script = folder / f"block_{block.line}.py"
    script.write_text(block.text)
    done = subprocess.run(
        [sys.executable, script.name], cwd=folder, env=_env(), capture_output=True, check=False
    )
    assert done.returncode == 0, f"{block.name}:\n{done.stdout.decode()}{done.stderr.decode()}"


def run_command(command: str, folder: Path) -> tuple[int, str]:
    """Exit code and output (stdout and stderr as a terminal interleaves them)."""
    words = shlex.split(command, comments=True)
    if not words:
        return 0, ""
    if words[0] == "valuechain" and not re.search(r"[|<>;&$`]", _unquoted(command)):
        return _in_process(words[1:], folder)
    done = subprocess.run(
        ["bash", "-c", "set -euo pipefail\n" + command],
        cwd=folder,
        env=_env(),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        check=False,
        timeout=600,  # a command that hangs fails its test, never the whole run
    )
    return done.returncode, done.stdout.decode()


def _unquoted(command: str) -> str:
    """``command`` without its quoted parts and its comment: what the shell would interpret."""
    return re.sub(r"'[^']*'|\"[^\"]*\"", "", command).split("#")[0]


def _in_process(args: list[str], folder: Path) -> tuple[int, str]:
    saved = (Path.cwd(), out.width, err.width)
    env = {k: None for k in os.environ if k.startswith("VALUECHAIN_")}
    try:
        os.chdir(folder)
        out.width = err.width = 80
        result = CliRunner(env=env).invoke(main, args, catch_exceptions=False)
    finally:
        os.chdir(saved[0])
        out.width, err.width = saved[1], saved[2]
    return result.exit_code, result.output


def transcript(block: Block) -> list[tuple[str, str]]:
    """The (command, expected output) pairs of a console block; a command continues on the
    next lines while a quote is open."""
    pairs: list[tuple[str, list[str]]] = []
    command: list[str] | None = None
    for line in block.text.splitlines():
        if command is not None:
            command.append(line)
            if _complete("\n".join(command)):
                pairs.append(("\n".join(command), []))
                command = None
        elif line.startswith("$ "):
            command = [line[2:]]
            if _complete(line[2:]):
                pairs.append((line[2:], []))
                command = None
        else:
            assert pairs, f"{block.name}: output before the first $ command"
            pairs[-1][1].append(line)
    assert command is None, f"{block.name}: a command whose quote never closes"
    return [(c, "\n".join(out)) for c, out in pairs]


def _complete(command: str) -> bool:
    try:
        shlex.split(command)
    except ValueError:
        return False
    return True


CONSOLE = [b for p in PAGES for b in blocks(p) if b.language == "console"]


@pytest.mark.parametrize("block", CONSOLE, ids=[b.name for b in CONSOLE])
def test_each_console_transcript_prints_what_it_shows(
    block: Block, demo: Path, tmp_path: Path
) -> None:
    folder = _fresh(demo, tmp_path / "console")
    for command, expected in transcript(block):
        _, output = run_command(command, folder)
        shown = "\n".join(line.rstrip() for line in output.splitlines())
        assert shown == "\n".join(line.rstrip() for line in expected.splitlines()), (
            f"{block.name}: $ {command}"
        )


def test_the_readme_stays_short_and_its_links_lead_somewhere() -> None:
    """The README is the landing page (issue 42.3): ≤ 200 lines, its detail in docs/."""
    text = (ROOT / "README.md").read_text()
    assert len(text.splitlines()) <= 200
    targets = re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", text)
    assert targets, "the README links into no docs page"
    missing = [t for t in targets if "://" not in t and not (ROOT / t).exists()]
    assert not missing, f"README.md links to files that do not exist: {missing}"
