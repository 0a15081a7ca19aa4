"""`W_CHAIN_INVALID` (TRACE-FORMAT §5.2): a persisted chain that fails the CONTRACT §2.1
persisted-shape validator integrity-excludes its trial (`chainUnverified`), is reported once,
and is stored as sent — never repaired. The spec example's chains pass it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from valuechain.pipeline.imports import ImportOptions, import_paths
from valuechain.store import Database

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "fixtures/public/spec/examples/mcpjam-eval-run-2cases-2models-2reps.otlp.json"

# key → the value it gets on the first trial root (None: the key is removed)
MUTATIONS: dict[str, dict[str, Any]] = {
    "a row out of stage order": {"mcp.app.stages.3.name": {"stringValue": "discovery"}},
    "an unknown state": {"mcp.app.stages.2.state": {"stringValue": "sideways"}},
    "an unknown reason": {"mcp.app.stages.4.reason": {"stringValue": "becauseISaidSo"}},
    "a seventh row": {
        "mcp.app.stages.6.name": {"stringValue": "extra"},
        "mcp.app.stages.6.state": {"stringValue": "passed"},
    },
    # its other fields still sent: once a NOT NULL failure that aborted the derivation
    "a row missing": {"mcp.app.stages.5.name": None, "mcp.app.stages.5.state": None},
    "a first failed stage although none failed": {
        "mcp.app.stages.first_failed": {"stringValue": "call"}
    },
}


def _export(tmp_path: Path, changes: dict[str, dict[str, Any] | None]) -> Path:
    doc = json.loads(EXAMPLE.read_text())
    spans = [s for rs in doc["resourceSpans"] for ss in rs["scopeSpans"] for s in ss["spans"]]
    root = next(s for s in spans if s["name"] == "eval.trial")
    kept = [a for a in root["attributes"] if a["key"] not in changes]
    root["attributes"] = kept + [{"key": k, "value": v} for k, v in changes.items() if v]
    path = tmp_path / "export.json"
    path.write_text(json.dumps(doc))
    return path


def _imported(tmp_path: Path, changes: dict[str, dict[str, Any] | None]) -> Database:
    db = Database(tmp_path / "s.duckdb")
    report = import_paths(db, [_export(tmp_path, changes)], ImportOptions())
    assert [s.outcome for s in report.sources] == ["imported"]
    return db


def _invalid(db: Database) -> list[tuple[Any, ...]]:
    return db.con.execute(
        "SELECT occurrences, trial_id FROM trial_issues WHERE code = 'W_CHAIN_INVALID'"
    ).fetchall()


def _excluded(db: Database) -> list[tuple[Any, ...]]:
    return db.con.execute(
        "SELECT trial_id, exclusion_class, integrity_codes FROM trials "
        "WHERE exclusion_class IS NOT NULL"
    ).fetchall()


def test_the_spec_example_chains_pass_the_validator(tmp_path: Path) -> None:
    with _imported(tmp_path, {}) as db:
        assert _invalid(db) == []
        assert _excluded(db) == []


@pytest.mark.parametrize("changes", MUTATIONS.values(), ids=MUTATIONS.keys())
def test_an_invalid_persisted_chain_excludes_its_trial_and_is_kept_as_sent(
    changes: dict[str, dict[str, Any] | None], tmp_path: Path
) -> None:
    with _imported(tmp_path, changes) as db:
        [(occurrences, trial_id)] = _invalid(db)
        assert occurrences == 1
        assert _excluded(db) == [(trial_id, "integrity", ["W_CHAIN_INVALID"])]
        stored = db.con.execute(
            "SELECT stage_index, stage, state, reason FROM core.stage_chain "
            "WHERE source = 'producer' AND trial_id = $t ORDER BY stage_index",
            {"t": trial_id},
        ).fetchall()
        for key, value in changes.items():  # never repaired: each changed row as sent
            index, _, field = key.removeprefix("mcp.app.stages.").partition(".")
            if value is None or not index.isdigit():
                continue
            row = next(r for r in stored if r[0] == int(index))
            column = {"name": 1, "state": 2, "reason": 3}[field]
            assert row[column] == value["stringValue"]
        integrity = db.con.execute(  # the run's documents count it integrity-excluded
            "SELECT chain_source, count FROM slice_exclusions "
            "WHERE slice_dimension = 'overall' AND class = 'integrity' ORDER BY 1"
        ).fetchall()
        assert integrity and all(count == 1 for _, count in integrity), integrity
