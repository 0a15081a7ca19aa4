"""Store-level bad cases: a store written by a newer valuechain, a damaged store file, a store
on a read-only file system, a disk that fills mid-import. Each says what happened and how to
fix it in one line, and the data already in the store stays intact (the ledger check runs on
every open, ``store/consistency.py``).
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner, Result
from filesystems import namespaces_work
from processes import ENV, contents

from valuechain.cli import main
from valuechain.store import Database
from valuechain.synth.config import SynthConfig
from valuechain.synth.writers import write_export

HERE = Path(__file__).resolve().parent
SMALL = Path(__file__).resolve().parents[2] / "fixtures" / "bad" / "zero_id.json"
# The real thing where the machine allows it; the nearest stand-in where it does not.
MECHANISM = os.environ.get("VALUECHAIN_TEST_FS") or ("tmpfs" if namespaces_work() else "fsize")


def cli(*args: str | Path) -> Result:
    return CliRunner().invoke(main, [str(a) for a in args], catch_exceptions=False)


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture
def store(tmp_path: Path) -> Path:
    path = tmp_path / "s.duckdb"
    assert cli("--store", path, "import", "--workers", "0", SMALL).exit_code == 0
    return path


@pytest.fixture(scope="module")
def big(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("big") / "big.jsonl"
    write_export(path, SynthConfig(runs=1, cases=10, models=2, reps=3, seed=5), ndjson=True)
    return path


@pytest.mark.parametrize("verb", [("runs",), ("import", str(SMALL)), ("derive",)])
def test_a_newer_store_is_refused_untouched(verb: tuple[str, ...], store: Path) -> None:
    with Database(store) as db:
        db.con.execute("UPDATE core.meta SET value = '99' WHERE key = 'schema_version'")
    before = _digest(store)
    result = cli("--store", store, *verb)
    assert result.exit_code == 1
    line = " ".join(result.stderr.split())
    assert "the store has schema version 99, newer than this valuechain" in line
    assert "upgrade valuechain; the store was not changed" in line
    assert _digest(store) == before


@pytest.mark.parametrize(
    "damage",
    ["header overwritten", "cut short", "not a database"],
)
@pytest.mark.parametrize("verb", [("runs",), ("import", str(SMALL))])
def test_a_damaged_store_file_is_named_and_left_as_it_is(
    damage: str, verb: tuple[str, ...], store: Path
) -> None:
    data = store.read_bytes()
    if damage == "header overwritten":
        data = b"\0" * 12288 + data[12288:]
    elif damage == "cut short":
        data = data[: len(data) // 3]
    else:
        data = b"timestamp,span\n1,2\n"
    store.write_bytes(data)
    result = cli("--store", store, *verb)
    assert result.exit_code == 1
    line = " ".join(result.stderr.split())
    assert line.startswith(f"error: {store}: "), line
    assert "Traceback" not in result.output
    if damage == "cut short":  # DuckDB opens it; the gap shows when a read reaches it
        assert "the store file is damaged (" in line or "cannot open the store (" in line
        assert "the file is damaged: restore a copy of the store" in line
        return
    assert "cannot open the store (" in line  # refused before a byte is written
    assert "the file is damaged or not a valuechain store, and was not changed" in line
    assert store.read_bytes() == data


def _scenario(name: str, folder: Path, big: Path) -> dict[str, object]:
    command = [sys.executable, str(HERE / "filesystems.py"), name, str(folder), MECHANISM]
    command += [str(SMALL), str(big)]
    if MECHANISM == "tmpfs":
        command = ["unshare", "-rm", *command]
    env = {**ENV, "PYTHONPATH": f"{ENV['PYTHONPATH']}:{HERE}"}
    done = subprocess.run(
        command, capture_output=True, text=True, env=env, timeout=900, check=False
    )
    assert done.returncode == 0, done.stderr
    report: dict[str, object] = json.loads(done.stdout.splitlines()[-1])
    return report


def test_a_disk_that_fills_mid_import_is_named_and_the_store_keeps_its_data(
    tmp_path: Path, big: Path
) -> None:
    folder = tmp_path / "disk"
    folder.mkdir()
    report = _scenario("full", folder, big)
    assert report["first"] == 0
    assert report["failed"] == 1, report
    said = " ".join(str(report["said"]).split())
    reason = "No space left on device" if MECHANISM == "tmpfs" else "File too large"
    assert f"the disk is full ({reason}): the command stopped" in said, said
    assert "free space on that disk (or move the store) and run the command again" in said
    assert "Traceback" not in said
    assert report["intact"] is True  # what was in the store before is all there, and only it
    assert report["again"] == 0, report["again_said"]  # with room again, the import completes


def test_a_store_on_a_read_only_file_system_reads_and_refuses_to_write(
    tmp_path: Path, big: Path
) -> None:
    folder = tmp_path / "ro"
    folder.mkdir()
    try:
        report = _scenario("read-only", folder, big)
    finally:
        folder.chmod(0o755)
    assert report["writer"] == 1
    said = " ".join(str(report["said"]).split())
    assert "cannot open the store (" in said
    assert "the store's folder cannot be written here: reading commands" in said, said
    assert report["reader"] == 0 and str(report["read"]).split() == ["n", "1"]
    assert report["unchanged"] is True


def test_the_store_survives_these_cases_for_the_ledger_check(store: Path) -> None:
    """The check every open runs: it names a store whose ledger and spans disagree."""
    assert contents(store)["rows:spans"] == (1,)
