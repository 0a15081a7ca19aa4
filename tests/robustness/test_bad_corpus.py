"""The bad-input corpus (``fixtures/bad/``, its manifest): each file, imported alone, has the
outcome, issue code and message the manifest names — and the store stays consistent (§5.1
per ledger row, the ledger matching the spans)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from processes import assert_ledger_balanced

from valuechain.cli import main
from valuechain.contract.issues import Code
from valuechain.store import Database
from valuechain.store.consistency import check_ledger

BAD = Path(__file__).resolve().parents[2] / "fixtures" / "bad"
MANIFEST: list[dict[str, Any]] = json.loads((BAD / "manifest.json").read_text())["cases"]


def test_the_manifest_names_every_file_once_and_only_known_codes() -> None:
    files = sorted(p.name for p in BAD.iterdir() if p.name != "manifest.json")
    assert sorted(case["file"] for case in MANIFEST) == files
    assert {case["code"] for case in MANIFEST} <= {c.value for c in Code}
    assert all(case["where"] in ("issues", "trial", "rejection") for case in MANIFEST)


@pytest.mark.parametrize("case", MANIFEST, ids=[c["file"] for c in MANIFEST])
def test_a_bad_input_yields_its_issue(case: dict[str, Any], tmp_path: Path) -> None:
    store = tmp_path / "s.duckdb"
    path = BAD / case["file"]
    args = ["--store", str(store), "import", "--workers", "0", *case.get("args", []), str(path)]
    result = CliRunner().invoke(main, args, catch_exceptions=False)
    assert "Traceback" not in result.output
    assert result.exit_code == (1 if case["outcome"] == "rejected" else 0), result.output
    text = " ".join(result.stdout.split())
    assert re.search(rf"\b{case['outcome']}\b", text), text  # the source's row says it
    if not store.exists():  # the path named nothing to read: no store is created for it
        assert case["where"] == "rejection" and case["code"] == "E_UNREADABLE", case
        assert case["fragment"] in " ".join(result.stderr.split())
        return
    with Database(store, read_only=True) as db:
        check_ledger(db.con, db.path)
        if case["where"] == "rejection":
            said = " ".join(result.stderr.split())  # the rejection's red line, unwrapped
            assert f"rejected: {path}: " in said, said
            assert case["fragment"] in said, said
            # a rejected source's issues are not stored: the summary lists them apart
            assert "of rejected sources: " in text and f"{case['code']} 1" in text
            assert db.fetch_one("SELECT count(*) FROM core.sources") == (0,)
            return
        view = "issues" if case["where"] == "issues" else "trial_issues"
        found = db.con.execute(
            f"SELECT message FROM {view} WHERE code = $code", {"code": case["code"]}
        ).fetchall()
        assert found, f"no {case['code']} in {view}"
        assert any(case["fragment"] in message for (message,) in found), found
        assert_ledger_balanced(db)
