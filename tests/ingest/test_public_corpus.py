"""Real OTLP/JSON files other projects wrote (fixtures/public/corpus, issue 12 point 8).

Each file is imported on its own; its spans and traces are counted here with plain `json`,
independently of valuechain, and every span must be accounted for (kept, deduplicated or
quarantined). Each file yields exactly the issue codes pinned below, and the reading verbs
(`runs`, `funnel`, `trial`) answer in words on it — never a traceback.
"""

from __future__ import annotations

import base64
import hashlib
import json
import re
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

import valuechain
from valuechain.cli import main

CORPUS = Path(__file__).resolve().parents[2] / "fixtures" / "public" / "corpus"
README = CORPUS.parent / "README.md"

# file → (import issue codes, trial issue codes); the import summary's codes and the trials'.
# Several files are fragments of larger traces (W_ORPHAN_SPAN: a parent not exported) or
# join spans of several services' clocks (I_CHILD_OUTSIDE_PARENT).
EXPECTED: dict[str, tuple[set[str], set[str]]] = {
    "jaeger_otlp2jaeger-in.json": ({"I_DUPLICATE_IDENTICAL"}, {"W_ORPHAN_SPAN"}),
    "jaeger_integration_example_trace.json": (set(), {"W_MULTIPLE_ROOTS"}),
    "jaeger_integration_link_attributes_trace.json": (set(), set()),
    "jaeger_integration_log_tags_trace.json": (set(), set()),
    "jaeger_integration_scope_attributes_trace.json": (set(), set()),
    "jaeger_integration_multi_spot_tags_trace.json": (set(), set()),
    "jaeger_integration_process_tags_trace.json": (set(), set()),
    "jaeger_integration_tags_escaped_operator_trace_1.json": (set(), set()),
    "jaeger_memory_otel_traces_01.json": (set(), {"W_ORPHAN_SPAN"}),
    "jaeger_memory_db_traces_01.json": (set(), {"W_ORPHAN_SPAN"}),
    "jaeger_elasticsearch_otel_traces_01.json": (set(), {"W_ORPHAN_SPAN"}),
    "tempo_tempopb_trace_batches.json": ({"W_ENVELOPE_UNWRAPPED"}, {"W_ORPHAN_SPAN"}),
    "tempo_servicegraphs_trace-with-virtual-nodes.json": ({"I_BASE64_IDS", "I_ENUM_NAMES"}, set()),
    "tempo_servicegraphs_trace-with-expired-edges.json": (
        {"I_BASE64_IDS", "I_ENUM_NAMES"},
        {"W_ORPHAN_SPAN"},
    ),
    "tempo_servicegraphs_trace-with-queue-database_ils.json": (
        {"I_BASE64_IDS", "I_ENUM_NAMES", "W_ENVELOPE_UNWRAPPED", "W_LEGACY_IL_SPANS"},
        {"I_CHILD_OUTSIDE_PARENT"},
    ),
    "tempo_servicegraphs_trace-with-failed-requests_ils.json": (
        {"I_BASE64_IDS", "I_ENUM_NAMES", "W_ENVELOPE_UNWRAPPED", "W_LEGACY_IL_SPANS"},
        {"I_CHILD_OUTSIDE_PARENT"},
    ),
}


def _plain_spans(doc: dict[str, Any]) -> list[dict[str, Any]]:
    """Every span of a document, read the way the OTLP/JSON text spells it."""
    resources = doc.get("resourceSpans") or doc.get("batches") or []
    return [
        span
        for resource in resources
        for scope in resource.get("scopeSpans") or resource.get("instrumentationLibrarySpans") or []
        for span in scope.get("spans", [])
    ]


def _hex_id(text: str) -> str:
    """A trace id as lower-case hex: 32 hex digits as they are, else base64 (OTLP/JSON's two)."""
    if re.fullmatch(r"[0-9a-fA-F]{32}", text):
        return text.lower()
    return base64.b64decode(text).hex()


def _cli(*args: str | Path) -> str:
    result = CliRunner().invoke(main, [str(a) for a in args], catch_exceptions=False)
    assert "Traceback" not in result.output
    assert result.exit_code in (0, 1), result.output  # 1 only with its one red line
    return result.output


def test_the_corpus_is_every_listed_file_unchanged() -> None:
    files = {p.name for p in CORPUS.iterdir()}
    assert files == set(EXPECTED) and len(files) >= 12
    assert sum(p.stat().st_size for p in CORPUS.iterdir()) < 2 * 1024 * 1024
    readme = README.read_text()
    for path in CORPUS.iterdir():
        digest = hashlib.sha256(path.read_bytes()).hexdigest()
        assert f"{digest}  {path.name}" in readme, path.name


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_a_public_file_imports_with_every_span_counted(tmp_path: Path, name: str) -> None:
    path = CORPUS / name
    spans = _plain_spans(json.loads(path.read_bytes()))
    traces = {_hex_id(s["traceId"]) for s in spans}
    store_path = tmp_path / "corpus.duckdb"
    with valuechain.open(store_path) as store:
        report = store.import_paths([str(path)], strict=False)
        ledger = store.sql(
            "SELECT status, spans_read, span_rows, spans_quarantined, spans_deduplicated "
            "FROM imports"
        ).to_dicts()
        stored_traces = set(store.sql("SELECT trace_id FROM traces")["trace_id"])
        codes = set(store.sql("SELECT code FROM issues")["code"])
        trial_codes = set(store.sql("SELECT code FROM trial_issues")["code"])
        runs = store.runs()
        trial_id = store.sql("SELECT min(trial_id) AS t FROM trials")["t"][0]
    assert report is not None
    (row,) = ledger
    assert row["status"] == "ok"
    assert row["spans_read"] == len(spans)
    assert row["span_rows"] + row["spans_quarantined"] + row["spans_deduplicated"] == len(spans)
    assert stored_traces == traces
    assert (codes, trial_codes) == EXPECTED[name]
    # plain traces: source-only runs, no eval run, and every verb says so in words
    assert runs["eval_run"].to_list() == [False]
    listing = _cli("--store", store_path, "runs")
    assert "no eval run in this store" in listing and "∅" not in listing
    funnel = _cli("--store", store_path, "funnel", runs["run_id"][0])
    assert "no eval run in this store" in funnel
    assert "not an eval run" in _cli("--store", store_path, "trial", trial_id)
