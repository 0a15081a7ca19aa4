"""SDK requests built straight into the native decoder's table (`mcpjam.columns`) are the
table Arrow's JSON reader makes of their NDJSON lines, the size counted is that text's, and an
import through them stores exactly what an import through the text stores."""

from __future__ import annotations

import gc
import json
from pathlib import Path
from typing import Any

import pytest

import valuechain
from valuechain.ingest.mcpjam.columns import requests_table
from valuechain.ingest.mcpjam.translate import job_spans, ndjson
from valuechain.ingest.otlp import native
from valuechain.ingest.source import sdk_parts
from valuechain.ingest.source.native_parts import has_null
from valuechain.pipeline.sdk_sources import SDK_RESULTS

ROOT = Path(__file__).resolve().parents[3] / "fixtures" / "producers" / "mcpjam-sdk"
REPORT = next((ROOT / "repo-6d550c0" / "captured" / "suite-model-a").glob("0*.json"))
SOURCES = sorted(ROOT.glob("*/captured/suite-*/*.json")) + sorted(ROOT.glob("*/derived/*"))


def _jobs(data: bytes) -> list[tuple[Any, bytes, Any]]:
    """Each job's resource, NDJSON text and what `requests_table` built of it."""
    read = SDK_RESULTS.read(data, "report")
    assert read.refused is None
    out = []
    for job in read.jobs(1 << 14):
        requests, _ = job_spans(job, SDK_RESULTS.matcher)
        text = ndjson(job.facts.resource, requests)
        out.append((requests, text, requests_table(job.facts.resource, requests)))
    return out


def _report(queries: dict[int, str]) -> bytes:
    report = json.loads(REPORT.read_text())
    for k, query in queries.items():
        report["results"][k]["query"] = query
    return json.dumps(report).encode()


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: f"{p.parent.parent.name}/{p.name}")
def test_built_tables_are_the_parsed_text(path: Path) -> None:
    jobs = _jobs(path.read_bytes())
    assert jobs
    for requests, text, built in jobs:
        if not requests:
            continue
        assert built is not None
        assert built.table.equals(native.parse(text))
        assert built.size == len(text)


def test_escapes_are_counted_as_written() -> None:
    odd = 'tab\t ctrl\x01\x1f\x0b quote" back\\ é \u2028 \b\f\r\n nullable "null" [nul]'
    jobs = _jobs(_report({0: odd, 3: "\x00", 7: "😀 " * 5}))
    for _, text, built in jobs:
        assert built is not None
        assert built.table.equals(native.parse(text))
        assert built.size == len(text)


@pytest.mark.parametrize("query", ["a: null, b", "[null]", "x,  null }", '{"k":null}'])
def test_a_null_token_is_left_to_the_text(query: str) -> None:
    (_, text, built), *rest = _jobs(_report({0: query}))
    assert built is None and has_null(text)  # the native path would not take its line
    assert all(b is not None for _, _, b in rest)


def _stored(path: Path, store_path: Path) -> dict[str, Any]:
    with valuechain.open(store_path) as store:
        assert store.import_paths([path], workers=0, batch_bytes=64 << 10).ok
        return {
            table: store.sql(f"SELECT * {skip} FROM core.{table} ORDER BY ALL").rows()
            for table, skip in (
                ("spans", ""),
                ("attributes", ""),
                ("resources", ""),
                ("issues", ""),
                ("stage_chain", ""),
                ("sources", "EXCLUDE (imported_at)"),
            )
        }


def test_an_import_through_built_tables_stores_what_the_text_does(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "report.json"
    path.write_bytes(_report({2: "look: null, here", 20: 'odd\t"quoted"\x01'}))
    built = _stored(path, tmp_path / "built.duckdb")
    monkeypatch.setattr(sdk_parts, "requests_table", lambda *_: None)
    text = _stored(path, tmp_path / "text.duckdb")
    assert built == text
    assert len(built["spans"]) > 100
    assert gc.get_freeze_count() == 0  # the parse was frozen only while its jobs ran
