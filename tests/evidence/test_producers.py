"""Every file of fixtures/producers/ — OTLP written by real MCP instrumentations — imports with
no traceback, each trial's derived chain is pinned (golden.json beside the files; rewrite with
--update-golden), and a second import of the same bytes changes nothing (issue 39.4)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from valuechain.pipeline.derive import derive_pending
from valuechain.pipeline.imports import ImportOptions, import_file
from valuechain.store import Database

PRODUCERS = Path(__file__).resolve().parents[2] / "fixtures" / "producers"
# MCPJam SDK results are no OTLP: tests/ingest/mcpjam pins their chains against their own goldens
SDK_RESULTS = {"mcpjam-sdk"}
FOLDERS = sorted(p for p in PRODUCERS.iterdir() if p.is_dir() and p.name not in SDK_RESULTS)

_CHAINS = """
SELECT t.trial_id, t.session_id, t.redacted, o.first_failed_stage, o.failure_category,
       list(c.stage || ' ' || c.state || ' ' || c.reason ORDER BY c.stage_index) AS chain
FROM trials t
JOIN trial_outcome o USING (trial_id)
JOIN stage_chain c USING (trial_id)
WHERE o.source = 'derived' AND c.source = 'derived'
GROUP BY ALL
"""
_ISSUES = "SELECT trial_id, code, count(*) AS n FROM trial_issues GROUP BY ALL"
_COUNTS = (
    "SELECT (SELECT count(*) FROM spans), (SELECT count(*) FROM trials),"
    " (SELECT count(*) FROM stage_chain), (SELECT count(*) FROM trial_issues)"
)


def _files(folder: Path) -> list[Path]:
    return sorted(
        p for p in folder.iterdir() if p.suffix in (".pb", ".json") and p.stem != "golden"
    )


def _observed(db: Database) -> list[dict[str, Any]]:
    issues: dict[str, dict[str, int]] = {}
    for trial, code, n in db.sql(_ISSUES).iter_rows():
        issues.setdefault(trial, {})[code] = n
    rows = []
    for r in db.sql(_CHAINS).iter_rows(named=True):
        rows.append(
            {
                "sessionId": r["session_id"],
                "redacted": r["redacted"],
                "firstFailedStage": r["first_failed_stage"],
                "failureCategory": r["failure_category"],
                "chain": r["chain"],
                "issues": issues.get(r["trial_id"], {}),
            }
        )
    # trial ids are random trace ids: order by what the trial is, not by its id
    return sorted(rows, key=lambda r: json.dumps(r, sort_keys=True))


@pytest.mark.parametrize("folder", FOLDERS, ids=[f.name for f in FOLDERS])
def test_producer_files_import_and_their_chains_are_golden(
    folder: Path, update_golden: bool
) -> None:
    assert (folder / "README.md").is_file(), f"{folder.name}: each producer folder has a README"
    found: dict[str, Any] = {}
    for path in _files(folder):  # one store per file: a file's trials are its own
        with Database(":memory:") as db:
            first = import_file(db, path, 1, ImportOptions())
            assert first.outcome == "imported", (path.name, first)
            derive_pending(db)
            found[path.name] = _observed(db)
            before = db.sql(_COUNTS).rows()
            again = import_file(db, path, 2, ImportOptions())
            assert db.sql(_COUNTS).rows() == before, (
                f"{path.name}: a second import changed the store"
            )
            assert _observed(db) == found[path.name]
            del again
    golden = folder / "golden.json"
    if update_golden:
        golden.write_text(json.dumps(found, indent=2, sort_keys=True) + "\n")
    assert found == json.loads(golden.read_text())
