"""`synth --history`: a seeded multi-week archive, its manifest, and the store built from it.

The archive's shape is asserted through the store's public views (`runs`, `stage_trend`,
`Store.trend_blocked`), not through the generator's own plan: what a user sees is the claim.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import orjson
import polars as pl
import pytest
from click.testing import CliRunner

import valuechain
from valuechain.cli import main
from valuechain.errors import UsageError
from valuechain.synth.history import Timeline
from valuechain.synth.history_manifest import HistoryManifest, read_manifest

WEEKS = 6


def archive_bytes(folder: Path) -> dict[str, bytes]:
    return {path.name: path.read_bytes() for path in sorted(folder.iterdir())}


@pytest.fixture(scope="module")
def archive(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, HistoryManifest]:
    folder = tmp_path_factory.mktemp("history")
    return folder, valuechain.synth_history(folder, weeks=WEEKS, seed=0)


@pytest.fixture(scope="module")
def built(archive: tuple[Path, HistoryManifest]) -> Path:
    """The store built from the archive, closed (so a copy of the file is the whole store)."""
    folder, _ = archive
    path = folder.parent / "history.duckdb"
    with valuechain.open(path) as opened:
        reports = opened.import_history(folder)
    assert all(report.ok for _, report in reports)
    return path


@pytest.fixture
def store(built: Path) -> Iterator[valuechain.Store]:
    with valuechain.open(built, read_only=True) as opened:
        yield opened


def test_same_seed_same_bytes_other_seed_other_bytes(
    tmp_path: Path, archive: tuple[Path, HistoryManifest]
) -> None:
    folder, _ = archive
    again, other = tmp_path / "again", tmp_path / "other"
    valuechain.synth_history(again, weeks=WEEKS, seed=0)
    valuechain.synth_history(other, weeks=WEEKS, seed=1)
    assert archive_bytes(again) == archive_bytes(folder)
    theirs = archive_bytes(other)
    assert theirs.keys() == archive_bytes(folder).keys()
    assert all(theirs[name] != data for name, data in archive_bytes(folder).items())


def test_the_manifest_describes_the_files_it_lists(archive: tuple[Path, HistoryManifest]) -> None:
    folder, manifest = archive
    assert read_manifest(folder) == manifest == read_manifest(folder / "history.json")
    assert [file.path for file in manifest.files] == [f"week-0{w}.jsonl" for w in range(1, 7)]
    for file in manifest.files:
        data = (folder / file.path).read_bytes()
        assert (file.sha256, file.bytes) == (hashlib.sha256(data).hexdigest(), len(data))
        assert (file.week_end - file.week_start).days == 6
        ids = {run.run_id for run in manifest.runs if run.week == file.week}
        assert set(file.runs) == ids
    # the first weeks are for the previous analyzer, the rest for the current one
    assert [file.analyzer for file in manifest.files] == [11, 11, 12, 12, 12, 12]
    assert manifest.upgrade_week == Timeline.of(WEEKS).upgrade == 3


def test_the_cli_writes_the_same_archive_and_builds_the_same_store(
    tmp_path: Path, archive: tuple[Path, HistoryManifest], store: valuechain.Store
) -> None:
    folder, _ = archive
    cli = tmp_path / "cli"
    result = CliRunner().invoke(
        main,
        ["synth", "--history", str(WEEKS), "--out", str(cli), "--store", str(tmp_path / "h.db")],
    )
    assert result.exit_code == 0, result.output
    assert archive_bytes(cli) == archive_bytes(folder)
    assert result.output.splitlines()[0].startswith(
        f"wrote {cli}: 6 weeks from 2026-01-05, 27 runs of 3 suites, "
    )
    assert "week-01.jsonl (week of 2026-01-05) at analyzer 11: 5 runs" in result.output
    with valuechain.open(tmp_path / "h.db", read_only=True) as built:
        mine = built.runs().drop("materialized_at").sort("run_id")
    assert mine.equals(store.runs().drop("materialized_at").sort("run_id"))


@pytest.mark.parametrize(
    ("args", "problem"),
    [
        (["--runs", "3"], "--runs: the archive of --history has its own shape and format"),
        (["--ndjson", "--gzip"], "--ndjson/--gzip: the archive of --history"),
    ],
)
def test_single_export_options_are_refused_with_history(
    tmp_path: Path, args: list[str], problem: str
) -> None:
    result = CliRunner().invoke(main, ["synth", "--history", "5", "--out", str(tmp_path), *args])
    assert result.exit_code == 1
    assert problem in result.output
    assert not list(tmp_path.iterdir())


def test_store_needs_history_and_history_needs_enough_weeks(tmp_path: Path) -> None:
    out = str(tmp_path / "x.json")
    result = CliRunner().invoke(main, ["synth", "--out", out, "--store", str(tmp_path / "s")])
    assert result.exit_code == 1
    assert "--store: only --history builds a store" in result.output
    result = CliRunner().invoke(main, ["synth", "--history", "4", "--out", str(tmp_path)])
    assert result.exit_code == 2
    assert "4 is not in the range 5<=x<=52" in result.output


@pytest.mark.parametrize("weeks", [4, 53])
def test_the_api_refuses_a_history_the_story_does_not_fit(tmp_path: Path, weeks: int) -> None:
    with pytest.raises(UsageError, match=f"a history has 5 to 52 weeks, not {weeks}"):
        valuechain.synth_history(tmp_path, weeks=weeks)
    assert not list(tmp_path.iterdir())


@pytest.mark.parametrize(
    ("edit", "where"),
    [
        (lambda doc: doc.update(kind="something else"), "history.json: kind"),
        (lambda doc: doc["files"][0].update(analyzer="eleven"), "history.json: files.0.analyzer"),
        (lambda doc: doc["runs"][2].pop("runId"), "history.json: runs.2.runId"),
    ],
)
def test_a_bad_manifest_names_the_field(
    tmp_path: Path, archive: tuple[Path, HistoryManifest], edit: object, where: str
) -> None:
    doc = orjson.loads((archive[0] / "history.json").read_bytes())
    edit(doc)  # type: ignore[operator]
    (tmp_path / "history.json").write_bytes(orjson.dumps(doc))
    with pytest.raises(UsageError) as raised:
        read_manifest(tmp_path)
    assert raised.value.where == str(tmp_path / where)
    assert "synth --history" in str(raised.value.hint)


def test_no_manifest_is_one_usage_error(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="cannot read the history manifest"):
        read_manifest(tmp_path)


# ----------------------------------------------------------------- the store built from it
def test_suites_run_groups_and_weeks(store: valuechain.Store) -> None:
    runs = store.runs()
    assert runs.height == 27
    per_suite = Counter(runs["suite_id"].to_list())
    assert sorted(per_suite.values()) == [3, 6, 18]  # calendar ad hoc, weather, tracker
    groups = runs.group_by("suite_id").agg(pl.col("run_group_id").n_unique())
    assert sorted(groups["run_group_id"].to_list()) == [1, 1, 2]  # null counts as one
    weeks = runs["completed_at"].dt.week().unique().sort().to_list()
    assert len(weeks) == WEEKS and weeks == list(range(weeks[0], weeks[0] + WEEKS))
    assert runs["config_revision"].n_unique() == 4  # tracker before/after, weather, calendar
    assert runs["case_set_fingerprint"].n_unique() == 4  # weather before/after its new case


def test_blocked_runs_say_why_and_old_weeks_are_unmeasured_until_recompute(
    store: valuechain.Store,
) -> None:
    outside = store.trend_blocked()
    blocked = outside.filter(pl.col("blockers").is_not_null())
    unmeasured = outside.filter(pl.col("blockers").is_null())
    assert Counter(tuple(b) for b in blocked["blockers"].to_list()) == {
        ("missingRunGroup",): 2,  # the ad-hoc runs of weeks 3 and 5 (week 1 is unmeasured)
        ("provisional",): 2,
    }
    runs = store.runs()
    older = runs.filter(pl.col("document_analyzer_versions") == [11])
    assert older.height == 9 and older["stale"].all()
    assert set(unmeasured["run_id"]) == set(older["run_id"])
    assert (runs["materialization_state"] == "provisional").sum() == 2


def response_rates(store: valuechain.Store) -> pl.DataFrame:
    return store.trend(stage="response").filter(
        (pl.col("chain_source") == "derived") & (pl.col("slice_dimension") == "overall")
    )


def test_the_regression_and_its_fix_show_in_one_partition(
    store: valuechain.Store, archive: tuple[Path, HistoryManifest]
) -> None:
    _, manifest = archive
    notes = {run.run_id: run.notes for run in manifest.runs}
    nightly = {run.run_group_id for run in manifest.runs if run.track == "nightly"}
    series = response_rates(store).filter(
        pl.col("run_group_id").is_in(nightly) & (pl.col("config_revision") == "cr_0011")
    )
    rates = dict(zip(series["run_id"], series["measured_pass_rate"], strict=True))
    regressed = [rate for run, rate in rates.items() if "regression" in notes[run]]
    healthy = [rate for run, rate in rates.items() if "regression" not in notes[run]]
    assert len(regressed) == 2 and len(healthy) == 3
    assert max(regressed) < 0.75
    assert min(healthy) > 0.9
    fixed = next(run for run in rates if "fix" in notes[run])
    assert rates[fixed] > max(regressed)


def test_recompute_joins_the_analyzer_11_weeks_to_the_current_partitions(
    tmp_path: Path, built: Path
) -> None:
    copy = tmp_path / "recomputed.duckdb"
    copy.write_bytes(built.read_bytes())
    with valuechain.open(copy) as upgraded:
        before = response_rates(upgraded)
        result = upgraded.recompute()
        assert (len(result.runs), result.trials) == (9, 107)
        after = response_rates(upgraded)
        outside = upgraded.trend_blocked()
    assert outside["blockers"].is_null().sum() == 0  # nothing unmeasured any more
    assert outside.height == 5  # three group-less runs, two provisional ones
    keys = ["run_group_id", "config_revision", "case_set_fingerprint"]
    assert after.select(keys).unique().height == before.select(keys).unique().height == 6
    assert after["run_id"].n_unique() == 22 == before["run_id"].n_unique() + 8
    assert set(after["stage_analyzer_version"]) == {12}
