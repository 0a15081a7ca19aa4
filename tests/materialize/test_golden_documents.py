"""Golden analytics documents: the spec example export (TRACE-FORMAT §3.9) end to end.

import → derive → materialize with a fixed clock must give byte-for-byte the document in
``fixtures/golden/spec_example_stage_analytics/``. Rewrite it deliberately with
``pytest --update-golden`` and review the diff.
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import orjson

import valuechain
from valuechain.materialize.analytics import materialize_runs
from valuechain.pipeline.derive import derive_traces

GOLDEN = Path(__file__).resolve().parents[2] / "fixtures" / "golden"
EXAMPLE = "spec/examples/mcpjam-eval-run-2cases-2models-2reps.otlp.json"
FIXED = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)


def test_spec_example_document_is_golden(shared: Path, update_golden: bool) -> None:
    store = valuechain.open(":memory:")
    store.import_paths([shared / EXAMPLE], derive=False)
    derive_traces(store.db, None, materialize=False)
    assert materialize_runs(store.db.con, None, clock=lambda: FIXED) >= 1
    (run_id,) = store.runs()["run_id"].to_list()
    document = store.analytics_document(run_id)
    assert document is not None
    text = orjson.dumps(orjson.loads(document.to_json()), option=orjson.OPT_INDENT_2) + b"\n"
    golden = GOLDEN / "spec_example_stage_analytics" / "document.json"
    if update_golden:
        golden.write_bytes(text)
    assert text == golden.read_bytes()
    producer = store.analytics_document(run_id, chains="producer")
    assert producer is not None
    # derived chains equal the persisted ones on this export, so the funnels agree too
    assert orjson.loads(producer.to_json())["slices"] == orjson.loads(text)["slices"]
