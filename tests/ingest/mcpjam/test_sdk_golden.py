"""Every captured @mcpjam/sdk fixture file imports, and each trial's chain is the golden one.

Golden files (``fixtures/golden/mcpjam_sdk/``) hold, per source, every trial's case, variant,
repetition, the producer's own ``passed`` and valuechain's derived chain (state:reason per
link); fixtures/producers/mcpjam-sdk/README.md derives them by hand, case by case, and
test_sdk_hand_chains.py holds the two together. ``--update-golden`` rewrites.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import valuechain

ROOT = Path(__file__).resolve().parents[3]
PRODUCERS = ROOT / "fixtures" / "producers" / "mcpjam-sdk"
GOLDEN = ROOT / "fixtures" / "golden" / "mcpjam_sdk"
STAGES = ("connection", "discovery", "selection", "call", "response", "userValue")


def _sources() -> list[Path]:
    found: list[Path] = []
    for generation in sorted(p for p in PRODUCERS.iterdir() if (p / "captured").is_dir()):
        for folder in sorted((generation / "captured").iterdir()):
            if folder.name == "reporter":
                found.append(folder)  # its bodies, one a file, are one run
            else:
                found.extend(sorted(folder.glob("0*.json")))
        found.extend(sorted((generation / "derived").glob("*json")))
    return found


SOURCES = _sources()


def _golden_name(source: Path) -> str:
    return "__".join(source.relative_to(PRODUCERS).parts).replace(".", "_") + ".json"


def chains(store: valuechain.Store) -> list[dict[str, object]]:
    rows = store.sql(
        """
        SELECT t.run_id, t.case_title, t.provider, t.model, t.repetition, t.trial_result,
               t.exclusion_class,
               string_agg(c.stage || '=' || c.state || ':' || coalesce(c.reason, ''), ' '
                          ORDER BY c.stage_index) AS chain
        FROM trials t JOIN stage_chain c USING (trial_id)
        WHERE c.source = 'derived'
        GROUP BY ALL ORDER BY t.run_id, t.case_title, t.provider, t.model, t.repetition
        """
    )
    return rows.to_dicts()


def test_every_fixture_file_is_covered() -> None:
    assert len(SOURCES) >= 12, SOURCES


@pytest.mark.parametrize("source", SOURCES, ids=lambda p: "/".join(p.relative_to(PRODUCERS).parts))
def test_chain_is_golden(source: Path, tmp_path: Path, update_golden: bool) -> None:
    with valuechain.open(tmp_path / "s.duckdb") as store:
        paths = sorted(source.glob("0*.json")) if source.is_dir() else [source]
        report = store.import_paths(paths)
        assert report.ok, [s.error for s in report.rejected]
        assert report.issue_counts().get("E_INVALID_RECORD", 0) == 0
        got = chains(store)
    assert got and all(row["exclusion_class"] is None for row in got)
    golden = GOLDEN / _golden_name(source)
    if update_golden or not golden.exists():
        golden.parent.mkdir(parents=True, exist_ok=True)
        golden.write_text(json.dumps(got, indent=1, ensure_ascii=False) + "\n")
    assert got == json.loads(golden.read_text())
