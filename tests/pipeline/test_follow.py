"""``import --follow`` against a simulated rotating collector (TRACE-FORMAT §5.3).

A writer process (``collector_sim.py``) appends NDJSON lines in two writes each and rotates
the live file; the follower imports complete records only, in rotation order, and ends with
exactly what one import of all the lines holds. A restart resumes from the committed offsets;
Ctrl-C stops cleanly.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from valuechain.pipeline import follow as following
from valuechain.pipeline.decode_pool import DecodePool
from valuechain.pipeline.follow import Follower
from valuechain.pipeline.imports import ImportOptions, import_paths
from valuechain.store import Database
from valuechain.store.consistency import ledger_mismatches
from valuechain.synth import SynthConfig, write_export

SIM = Path(__file__).with_name("collector_sim.py")
OPTIONS = ImportOptions()


@pytest.fixture(scope="module")
def lines(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("follow") / "lines.jsonl"
    write_export(path, SynthConfig(runs=2, cases=2, models=2, reps=1, seed=21), ndjson=True)
    return path


def held(db: Database) -> dict[str, Any]:
    """What the store holds, whatever sources it came in: spans, chains, funnels."""
    q = {
        "spans": "SELECT trace_id, span_id, content_hash FROM core.spans",
        "chains": "SELECT * FROM core.stage_chain",
        "funnel": "SELECT * FROM core.stage_funnel",
        "attributes": "SELECT key, string_value, int_value FROM core.attributes a "
        "WHERE owner_type = 'span'",
    }
    return {k: sorted(db.con.execute(v).fetchall()) for k, v in q.items()}


def expected(lines: Path, tmp_path: Path) -> dict[str, Any]:
    with Database(tmp_path / "expected.duckdb") as db:
        assert import_paths(db, [lines]).ok
        return held(db)


def _writer(out: Path, lines: Path, *args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, str(SIM), str(out), str(lines), *args],
        stdout=subprocess.PIPE,
        text=True,
    )


def test_following_a_rotating_collector_ends_with_every_record_once(
    lines: Path, tmp_path: Path
) -> None:
    out = tmp_path / "collector"
    out.mkdir()
    writer = _writer(out, lines, "--rotate-every", "3", "--pause", "0.01", "--group", "svc-a")
    with Database(tmp_path / "s.duckdb") as db, DecodePool(0) as pool:
        follower = Follower(db, out, OPTIONS)
        rounds = []
        while writer.poll() is None:
            rounds.append(follower.round(pool))
            time.sleep(0.02)
        assert writer.wait() == 0
        rounds.append(follower.round(pool))  # what was written after the last look
        assert not follower.round(pool).changed  # and then nothing is left
        rotated = sorted(p.name for p in (out / "svc-a").iterdir())
        assert len(rotated) > 2 and "traces.json" in rotated
        sources = [s for r in rounds for s in r.sources]
        assert all(s.outcome == "imported" for s in sources), [s.error for s in sources]
        assert all(s.spans_deduplicated == 0 for s in sources)  # no record read twice
        assert held(db) == expected(lines, tmp_path)
        assert not ledger_mismatches(db.con)
        assert db.pending_derivation() is None


def test_a_half_written_line_waits_and_a_restart_resumes_from_the_ledger(
    lines: Path, tmp_path: Path
) -> None:
    out = tmp_path / "collector"
    out.mkdir()
    total = len(lines.read_bytes().splitlines())
    writer = _writer(out, lines, "--stop-after", str(total // 2))
    assert writer.stdout is not None and writer.stdout.readline().strip() == "stalled"
    live = out / "traces.json"
    store = tmp_path / "s.duckdb"
    with Database(store) as db:
        first = Follower(db, out, OPTIONS).round()
        (source,) = first.sources
        assert source.outcome == "imported"  # not partial: the half line was not read
        complete = live.read_bytes().rfind(b"\n") + 1
        assert source.path == f"{live}#0-{complete}"
        assert complete < live.stat().st_size
    writer.kill()
    writer.wait()
    rest = lines.read_bytes().splitlines(keepends=True)[total // 2 :]
    with live.open("ab") as handle:  # the collector comes back and finishes the line
        handle.write(rest[0][len(rest[0]) // 2 :])
        handle.writelines(rest[1:])
    with Database(store) as db:  # a new process: offsets from core.follow_files
        follower = Follower(db, out, OPTIONS)
        (source,) = follower.round().sources
        assert source.path == f"{live}#{complete}-{live.stat().st_size}"
        assert source.spans_deduplicated == 0
        assert not follower.round().changed
        assert held(db) == expected(lines, tmp_path)


def test_a_rotated_file_continues_from_the_live_files_offset(lines: Path, tmp_path: Path) -> None:
    out = tmp_path / "collector"
    out.mkdir()
    data = lines.read_bytes().splitlines(keepends=True)
    live = out / "traces.json"
    live.write_bytes(b"".join(data[:3]))
    with Database(tmp_path / "s.duckdb") as db:
        follower = Follower(db, out, OPTIONS)
        assert len(follower.round().sources) == 1
        with live.open("ab") as handle:
            handle.writelines(data[3:5])
        live.rename(out / "traces-2026-01-01T00-00-00.000.json")
        live.write_bytes(b"".join(data[5:]))
        sources = follower.round().sources
        assert [Path(s.path.partition("#")[0]).name for s in sources] == [
            "traces-2026-01-01T00-00-00.000.json",
            "traces.json",
        ]
        assert sources[0].path.endswith(f"#{len(b''.join(data[:3]))}-{len(b''.join(data[:5]))}")
        assert held(db) == expected(lines, tmp_path)


def test_a_live_file_rotated_while_read_is_read_again_under_its_new_name(
    lines: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    out = tmp_path / "collector"
    out.mkdir()
    data = lines.read_bytes().splitlines(keepends=True)
    live = out / "traces.json"
    live.write_bytes(b"".join(data[:3]))
    rotated = out / "traces-2026-01-01T00-00-00.000.json"
    half = len(data[-1]) // 2
    real = following.import_file

    def rotating(db: Database, path: Path, *args: Any, **kwargs: Any) -> Any:
        if path == live and not rotated.exists():  # the collector rotates as the read starts
            live.rename(rotated)
            live.write_bytes(b"".join(data[3:-1]) + data[-1][:half])
        return real(db, path, *args, **kwargs)

    monkeypatch.setattr(following, "import_file", rotating)
    with Database(tmp_path / "s.duckdb") as db:
        follower = Follower(db, out, OPTIONS)
        assert follower.round().sources == []  # what was read may be the next file's: dropped
        assert db.con.execute("SELECT count(*) FROM core.sources").fetchall() == [(0,)]
        sources = follower.round().sources
        assert [Path(s.path.partition("#")[0]).name for s in sources] == [rotated.name, live.name]
        assert sources[0].path.endswith(f"#0-{len(b''.join(data[:3]))}")
        with live.open("ab") as handle:
            handle.write(data[-1][half:])
        sources += follower.round().sources
        assert all(s.outcome == "imported" for s in sources), [s.error for s in sources]
        assert held(db) == expected(lines, tmp_path)
        assert not ledger_mismatches(db.con)


def test_a_rotated_file_deleted_once_read_keeps_what_was_read(
    lines: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    out = tmp_path / "collector"
    out.mkdir()
    rotated = out / "traces-2026-01-01T00-00-00.000.json"
    rotated.write_bytes(lines.read_bytes())
    real = following.import_file

    def deleting(db: Database, path: Path, *args: Any, **kwargs: Any) -> Any:
        record = kwargs["then"]

        def then(con: Any) -> None:  # the collector's retention removes it as it commits
            path.unlink()
            record(con)

        return real(db, path, *args, **{**kwargs, "then": then})

    monkeypatch.setattr(following, "import_file", deleting)
    with Database(tmp_path / "s.duckdb") as db:
        sources = Follower(db, out, OPTIONS).round().sources
        assert [s.outcome for s in sources] == ["imported"]
        assert held(db) == expected(lines, tmp_path)


def test_ctrl_c_stops_the_follow_command_cleanly(lines: Path, tmp_path: Path) -> None:
    out = tmp_path / "collector"
    out.mkdir()
    (out / "traces.json").write_bytes(lines.read_bytes())
    store = tmp_path / "s.duckdb"
    command = [sys.executable, "-m", "valuechain", "--store", str(store), "import"]
    follow = subprocess.Popen(
        [*command, "--follow", str(out), "--interval", "0.1"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "COLUMNS": "200"},
    )
    assert follow.stdout is not None
    assert follow.stdout.readline().startswith("following")
    deadline = time.monotonic() + 60
    while "derived" not in follow.stdout.readline() and time.monotonic() < deadline:
        pass
    follow.send_signal(signal.SIGINT)
    stdout, stderr = follow.communicate(timeout=60)
    assert follow.returncode == 0, stderr
    assert "stopped after" in stdout and "Traceback" not in stderr
    with Database(store, read_only=True) as db:
        assert held(db) == expected(lines, tmp_path)
