"""The command lines a new user runs: a usage error is one line on stderr and exit
status 2 (no traceback), help text is plain text, and no command warns about itself."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import engine
from engine.errors import SetupError
from tests.docs_pages import shell_blocks

ROOT = Path(__file__).resolve().parents[3]


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, *args], capture_output=True, text=True, timeout=120, cwd=ROOT
    )


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["--players", "1"], "uno_classic is played by 2 to 10 players, not 1"),
        (["--players", "11"], "uno_classic is played by 2 to 10 players, not 11"),
        (["--variant", "uno_duo", "--players", "3"], "uno_duo is played by 2 players, not 3"),
        (["--variant", "nope"], "invalid choice: 'nope'"),
        (["--target", "0"], "option 'target' must be between 1 and 100000"),
        (["--games", "0"], "--games must be at least 1"),
        (["--games", "many"], "invalid int value: 'many'"),
    ],
)
def test_simulate_usage_errors_are_one_line_and_exit_2(args: list[str], says: str) -> None:
    done = run("-m", "engine", "simulate", "--games", "1", *args)
    assert done.returncode == 2
    assert done.stdout == ""
    lines = done.stderr.splitlines()
    assert len(lines) == 1, done.stderr
    assert lines[0].startswith("python -m engine simulate: error: ")
    assert says in lines[0]


def test_a_missing_command_is_one_line_and_exit_2() -> None:
    done = run("-m", "engine")
    assert done.returncode == 2
    assert len(done.stderr.splitlines()) == 1
    assert "required" in done.stderr


def test_the_player_range_reads_naturally() -> None:
    """One count is "2 players", a range "2 to 10 players" (errors and the variant list)."""
    with pytest.raises(
        SetupError, match=r"^invalid_player_count: uno_duo is played by 2 players, not 5$"
    ):
        engine.find_variant("uno_duo").new_game(5, 1)
    with pytest.raises(
        SetupError, match=r"^invalid_player_count: dos is played by 2 to 4 players, not 5$"
    ):
        engine.find_variant("dos").new_game(5, 1)
    listing = run("-m", "engine", "variants").stdout.splitlines()
    assert len(listing) == len(engine.all_variants())
    for v in engine.all_variants():
        (line,) = [x for x in listing if x.split()[0] == v.id]
        assert f"({v.players_text()}, target {v.target})" in line
    assert not any(re.search(r"\b(\d+) to \1 players", x) for x in listing)


@pytest.mark.parametrize(
    "args",
    [
        ["-m", "engine", "--help"],
        ["-m", "engine", "simulate", "--help"],
        ["-m", "engine", "variants", "--help"],
        ["-m", "service", "--help"],
        ["benchmarks/run.py", "--help"],
        ["benchmarks/instructions.py", "--help"],
    ],
)
def test_help_is_plain_text(args: list[str]) -> None:
    done = run(*args)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("usage: ")
    assert "``" not in done.stdout


@pytest.mark.skipif(
    shutil.which("git") is None or not (ROOT / ".git").exists(), reason="not a git checkout"
)
def test_files_the_docs_commands_write_are_ignored_by_git() -> None:
    """Every file a command of the README or the docs writes with ``> file`` is in
    .gitignore."""
    written = sorted(
        {f for b in shell_blocks() for f in re.findall(r">\s*([\w.-]+\.\w+)\s*$", b, re.M)}
    )
    assert {"game.json", "moves.json", "s.json"} <= set(written)
    done = subprocess.run(
        ["git", "check-ignore", "--no-index", *written],
        capture_output=True, text=True, cwd=ROOT, timeout=60,
    )  # fmt: skip
    assert sorted(done.stdout.split()) == written


def test_docs_commands_need_no_uncommon_tool_and_end() -> None:
    """The shell blocks of the README and the docs use no ``uuidgen`` (not on every
    machine) and every event-stream command has a time limit."""
    lines = [x for b in shell_blocks() for x in b.splitlines()]
    assert lines and not any("uuidgen" in x for x in lines)
    streams = [x for x in lines if "/stream" in x and "curl" in x]
    assert streams and all("--max-time" in x for x in streams)
