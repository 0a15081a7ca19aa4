"""The small surprises of a first session (issue 15), each pinned: parquet to a redirected
stdout, ``issues --source`` by name or sha, ``Z`` timestamps in every format, a dangling
symlink in the import summary, and a progress bar that says what it is doing."""

from __future__ import annotations

import io
import json
import os
import pty
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import polars as pl
import pytest
from cli_runner import red_line, run
from rich.console import Console

from valuechain.cli.progress import ImportBar
from valuechain.pipeline.progress import Phase


def _cli(*args: str | Path, **kwargs: object) -> subprocess.CompletedProcess[bytes]:
    code = "import sys; from valuechain.cli import main; sys.exit(main())"
    return subprocess.run(  # type: ignore[call-overload,no-any-return]
        [sys.executable, "-c", code, *map(str, args)], check=False, **kwargs
    )


def test_parquet_goes_to_a_redirected_stdout_and_not_to_a_terminal(
    filled: Path, tmp_path: Path
) -> None:
    target = tmp_path / "spans.parquet"
    with target.open("wb") as handle:
        done = _cli("--store", filled, "sql", "SELECT span_id FROM spans", "--format", "parquet",
                    stdout=handle, stderr=subprocess.PIPE)  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert pl.read_parquet(target).height == 3
    primary, secondary = pty.openpty()
    try:
        refused = _cli("--store", filled, "sql", "SELECT 1", "--format", "parquet",
                       stdout=secondary, stderr=subprocess.PIPE)  # fmt: skip
    finally:
        os.close(secondary)
        os.close(primary)
    assert refused.returncode == 1
    assert b"standard output is a terminal" in refused.stderr


def test_issues_source_by_basename_relative_path_or_sha(
    filled: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    rows = json.loads(run("--store", filled, "sql", "SELECT path, sha256 FROM imports",
                          "--format", "json").stdout)  # fmt: skip
    other = next(r for r in rows if r["path"].endswith("other.json"))

    def codes(source: str) -> list[str]:
        result = run("--store", filled, "issues", "--source", source, "--format", "json")
        assert result.exit_code == 0, result.output
        return [r["code"] for r in json.loads(result.stdout)]

    expected = codes(other["path"])
    assert expected == ["E_BAD_ID_ENCODING"]
    assert codes("other.json") == expected
    assert codes(other["sha256"][:8]) == expected
    monkeypatch.chdir(tmp_path.parent)  # a relative path to the same file
    assert codes(f"{tmp_path.name}/other.json") == expected
    unknown = run("--store", filled, "issues", "--source", "nothing.json")
    assert unknown.exit_code == 1
    assert "no imported source has this path" in red_line(unknown)


def test_timestamps_are_iso_utc_with_z_in_every_format(filled: Path) -> None:
    query = "SELECT min(start_time) AS t FROM spans"
    as_csv = run("--store", filled, "sql", query, "--format", "csv").stdout.splitlines()[1]
    as_json = json.loads(run("--store", filled, "sql", query, "--format", "json").stdout)[0]["t"]
    as_table = run("--store", filled, "sql", query).stdout.splitlines()[1].strip()
    assert as_csv == as_json == as_table
    assert as_csv.endswith("Z") and "+0000" not in as_csv


def test_a_dangling_symlink_is_named_in_the_import_summary(
    store: Path, otlp: SimpleNamespace, tmp_path: Path
) -> None:
    folder = tmp_path / "exports"
    folder.mkdir()
    (folder / "a.json").write_text(json.dumps(otlp.request(otlp.span(1))))
    (folder / "gone.json").symlink_to(tmp_path / "deleted.json")
    result = run("--store", store, "import", folder)
    assert result.exit_code == 0
    text = " ".join(result.stdout.split())
    assert (
        f"skipped 1 file in the directories named, a symlink to {tmp_path}/deleted.json, "
        f"which does not exist: {folder}/gone.json"
    ) in text


def test_the_bar_labels_each_phase_with_its_own_unit() -> None:
    console = Console(file=io.StringIO(), force_terminal=True, width=100, color_system=None)
    with ImportBar(console) as bar:
        bar.start(Phase.DECODE, 2_000_000, "1/2 run.json")
        bar.advance(1_000_000)
        decode = _render(bar)
        bar.start(Phase.DERIVE, 40, "at analyzer 12")
        bar.advance(10)
        derive = _render(bar)
        bar.start(Phase.COMMIT, None, "1/2 run.json")
        commit = _render(bar)
    assert "decode 1/2 run.json" in decode and "1.0 MB/2.0 MB" in decode
    assert "derive at analyzer 12" in derive and "10/40 traces" in derive
    assert "MB" not in derive  # the speed is the phase's own, in its unit
    assert commit.startswith("commit 1/2 run.json")


def _render(bar: ImportBar) -> str:
    progress = bar._progress
    console = Console(file=io.StringIO(), width=100, color_system=None)
    console.print(progress.make_tasks_table(progress.tasks))
    return console.file.getvalue()  # type: ignore[attr-defined,no-any-return]
