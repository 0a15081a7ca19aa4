"""Overlapping exports through the store (TRACE-FORMAT §5.2, issue 12 points 1, 3 and 5).

The same spans exported twice — under another export envelope, or written by another exporter
that spells proto3 defaults out — are exact duplicates: one row, one trial, one chain. A copy
whose content really differs is a conflict: its trial is excluded (class `integrity`) and
counted once. Whatever the order, and in one import or several, a run's funnel is the one its
single export gives.
"""

from __future__ import annotations

import base64
import copy
import tempfile
from collections import Counter
from functools import cache
from pathlib import Path
from typing import Any

import orjson
import pytest
from hypothesis import given
from hypothesis import strategies as st
from ingest_builders import Write
from ingest_strategies import STORE

from valuechain.pipeline.imports import ImportOptions, import_paths
from valuechain.store import Database
from valuechain.synth import SynthConfig, generate_requests

RUST = Path(__file__).resolve().parents[2] / "fixtures" / "duplicates" / "opentelemetry-rust"
TWO_TRIALS = SynthConfig(runs=1, cases=2, models=1, reps=1, seed=3)
Request = dict[str, Any]


# ---------------------------------------------------------------------------- helpers
@cache
def _trial_requests() -> tuple[bytes, ...]:
    return tuple(orjson.dumps(r) for r in generate_requests(TWO_TRIALS))


def _export(**envelope: str) -> Request:
    """The two-trial run as one export document, its envelope keys overridden."""
    requests = [orjson.loads(r) for r in _trial_requests()]
    doc: Request = {"resourceSpans": [rs for r in requests for rs in r["resourceSpans"]]}
    for rs in doc["resourceSpans"]:
        for item in rs["resource"]["attributes"]:
            key = item["key"].removeprefix("mcp.app.export.")
            if key in envelope:
                item["value"] = {"stringValue": envelope[key]}
    return doc


def _spans(doc: Request) -> list[dict[str, Any]]:
    return [s for rs in doc["resourceSpans"] for ss in rs["scopeSpans"] for s in ss["spans"]]


def _role(span: dict[str, Any]) -> str | None:
    for item in span["attributes"]:
        if item["key"] == "mcp.app.span.role":
            return str(item["value"]["stringValue"])
    return None


def _import(db: Database, paths: list[Path], together: bool) -> None:
    batches = [paths] if together else [[p] for p in paths]
    for batch in batches:
        assert import_paths(db, batch, ImportOptions()).ok


def _run(db: Database) -> dict[str, Any]:
    """What the funnel says of the one run, and how many chains each trial id has."""
    (run,) = db.sql("SELECT included_trials, total_trials, excluded_integrity FROM runs").to_dicts()
    trials = db.sql("SELECT count(*) AS n, count(DISTINCT trial_id) AS ids FROM trials").row(0)
    chains = db.sql(
        "SELECT trial_id, source, analyzer_version, count(*) AS n FROM stage_chain GROUP BY ALL"
    )
    return {
        **run,
        "trial_rows": trials[0],
        "trial_ids": trials[1],
        "rows_per_chain": set(chains["n"].to_list()),
        "derived_chains": chains.filter(chains["source"] == "derived").height,
    }


def _documents(db: Database) -> list[dict[str, Any]]:
    docs = db.sql("SELECT document FROM analytics_documents ORDER BY ALL")["document"].to_list()
    out = []
    for text in docs:
        doc = orjson.loads(text)
        doc.pop("createdAt"), doc.pop("updatedAt")  # when it was materialized
        out.append(doc)
    return out


@cache
def _single_export_documents() -> tuple[bytes, ...]:
    with Database(":memory:") as db, tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "run.json"
        path.write_bytes(orjson.dumps(_export()))
        _import(db, [path], together=True)
        return tuple(orjson.dumps(d) for d in _documents(db))


def _issue_counts(db: Database) -> dict[str, int]:
    rows = db.sql("SELECT code, sum(occurrences) AS n FROM issues GROUP BY code").rows()
    return {code: int(n) for code, n in rows}


ORDERS = pytest.mark.parametrize("reverse", [False, True], ids=["in-order", "reversed"])
TOGETHER = pytest.mark.parametrize("together", [True, False], ids=["one-import", "two-imports"])


# ---------------------------------------------------------------------------- opentelemetry-rust
@ORDERS
@TOGETHER
def test_rust_spans_written_with_and_without_defaults_are_one_trace(
    db: Database, reverse: bool, together: bool
) -> None:
    paths = [RUST / "traces.json", RUST / "serialized_traces.json"]
    _import(db, paths[::-1] if reverse else paths, together)
    assert db.sql("SELECT span_count, root_count FROM traces").rows() == [(2, 1)]
    assert _issue_counts(db) == {"I_DUPLICATE_IDENTICAL": 2}  # no false conflict
    assert db.sql("SELECT count(*) FROM trial_issues").item() == 0  # no false multiple roots
    assert db.sql("SELECT count(*) FROM trials").item() == 1
    assert db.sql("SELECT count(*) FROM stage_chain").item() == 6


def test_rust_spans_with_swapped_parents_conflict_and_exclude_the_trial_once(
    db: Database,
) -> None:
    _import(db, [RUST / "traces.json", RUST / "failed_traces.json"], together=True)
    assert _issue_counts(db) == {"W_DUPLICATE_CONFLICT": 2}
    (trial,) = db.sql("SELECT exclusion_class, integrity_codes FROM trials").rows()
    assert trial == ("integrity", ["W_DUPLICATE_CONFLICT"])
    assert db.sql("SELECT count(*) FROM stage_chain").item() == 6  # one chain, not two
    (issue,) = db.sql("SELECT code, message FROM trial_issues").rows()
    assert issue[0] == "W_MULTIPLE_ROOTS"  # each version has its own root: one issue
    assert issue[1].startswith("2 parentless spans (")


# ---------------------------------------------------------------------------- envelopes
@ORDERS
@TOGETHER
def test_a_run_in_two_exports_with_different_envelopes_is_one_run(
    db: Database, write: Write, reverse: bool, together: bool
) -> None:
    run = write("run.json", _export())
    project = write(
        "project.json",
        _export(scope="project", created_time="2026-02-01T00:00:00Z", producer="backend/2"),
    )
    _import(db, [project, run] if reverse else [run, project], together)
    assert _run(db) == {
        "included_trials": 2,
        "total_trials": 2,
        "excluded_integrity": 0,
        "trial_rows": 2,
        "trial_ids": 2,
        "rows_per_chain": {6},
        "derived_chains": 2,
    }
    assert db.sql("SELECT count(*) FROM spans WHERE dup_group IS NOT NULL").item() == 0
    assert set(_issue_counts(db)) == {"I_DUPLICATE_IDENTICAL"}
    assert [orjson.dumps(d) for d in _documents(db)] == list(_single_export_documents())
    # both envelopes stay in the store, each once: the evidence of two exports
    scopes = db.sql(
        "SELECT string_value FROM attributes WHERE key = 'mcp.app.export.scope' ORDER BY 1"
    )
    assert scopes.to_series().to_list() == ["project", "run"]


@pytest.mark.parametrize("key", ["mcp.app.export.schema_version", "mcp.app.export.include_content"])
def test_the_envelope_keys_that_decide_how_spans_are_read_are_content(
    db: Database, write: Write, key: str
) -> None:
    other = _export()
    for rs in other["resourceSpans"]:
        for item in rs["resource"]["attributes"]:
            if item["key"] == key:
                item["value"] = {"stringValue": "changed"}
    _import(db, [write("a.json", _export()), write("b.json", other)], together=True)
    assert "W_DUPLICATE_CONFLICT" in _issue_counts(db)


# ---------------------------------------------------------------------------- conflicts
def _changed(role: str) -> Request:
    """The export with one span of the first trial changed (the first of that role)."""
    doc = _export(scope="project")
    span = next(s for s in _spans(doc) if _role(s) == role)
    span["name"] = f"{span['name']} (edited)"
    return doc


@ORDERS
@TOGETHER
@pytest.mark.parametrize("role", ["tool_call", "trial"])
def test_one_changed_span_excludes_its_trial_once(
    db: Database, write: Write, role: str, reverse: bool, together: bool
) -> None:
    paths = [write("run.json", _export()), write("edited.json", _changed(role))]
    _import(db, paths[::-1] if reverse else paths, together)
    assert _run(db) == {
        "included_trials": 1,
        "total_trials": 2,
        "excluded_integrity": 1,
        "trial_rows": 2,  # a root that arrived twice is still one trial
        "trial_ids": 2,
        "rows_per_chain": {6},
        "derived_chains": 2,
    }
    excluded = db.sql("SELECT integrity_codes FROM trials WHERE exclusion_class IS NOT NULL")
    assert excluded.to_series().to_list() == [["W_DUPLICATE_CONFLICT"]]
    assert _issue_counts(db)["W_DUPLICATE_CONFLICT"] == 1  # once, by the source that brought it
    assert db.sql("SELECT count(*) FROM trial_issues").item() == 0


# ---------------------------------------------------------------------------- summary, resources
def test_the_summary_counts_what_the_store_recorded_and_each_trace_once(
    db: Database, write: Write
) -> None:
    paths = [write("run.json", _export()), write("edited.json", _changed("tool_call"))]
    report = import_paths(db, paths, ImportOptions())
    assert dict(report.issue_counts()) == _issue_counts(db)
    assert report.issue_counts()["W_DUPLICATE_CONFLICT"] == 1
    per_source = db.sql(
        "SELECT source, code, sum(occurrences) AS n FROM issues GROUP BY ALL"
    ).rows()
    for source in report.sources:
        mine = {code: n for path, code, n in per_source if path == source.path}
        assert dict(source.issue_counts()) == mine
    assert report.total("traces") == 4  # two sources, two traces each
    assert report.traces == db.sql("SELECT count(*) FROM traces").item() == 2


@pytest.mark.parametrize("framing", ["compact", "ndjson", "pretty-with-defaults"])
def test_resources_are_stored_once_whatever_the_bytes(
    db: Database, write: Write, framing: str
) -> None:
    doc = _export()
    one = write("run.json", doc)
    if framing == "compact":
        again = orjson.dumps(doc)
    elif framing == "ndjson":
        again = b"".join(orjson.dumps(r) + b"\n" for r in map(orjson.loads, _trial_requests()))
    else:
        again = orjson.dumps(_with_defaults(doc, "hex"), option=orjson.OPT_INDENT_2)
    _import(db, [one, write("again.json", again)], together=True)
    owners = Counter(dict(db.sql("SELECT owner_type, count(*) FROM attributes GROUP BY 1").rows()))
    with Database(":memory:") as alone:
        _import(alone, [one], together=True)
        single = dict(alone.sql("SELECT owner_type, count(*) FROM attributes GROUP BY 1").rows())
        resources = alone.sql("SELECT count(*) FROM core.resources").item()
    assert dict(owners) == single  # 11.7: not doubled
    assert db.sql("SELECT count(*) FROM core.resources").item() == resources == 1
    for row in db.sql("SELECT * FROM imports").to_dicts():  # TRACE-FORMAT §5.1 still holds
        assert row["attributes_read"] == (
            row["attribute_rows"] + row["attributes_quarantined"] + row["attributes_deduplicated"]
        )


# ---------------------------------------------------------------------------- the property
def _b64(hex_id: str) -> str:
    return base64.b64encode(bytes.fromhex(hex_id)).decode()


def _with_defaults(doc: Request, ids: str) -> Request:
    """The same spans as another exporter writes them: every proto3 default spelled out,
    enum names for kinds, ids in base64 when asked."""
    out = copy.deepcopy(doc)
    for rs in out["resourceSpans"]:
        rs.setdefault("schemaUrl", "")
        rs["resource"].setdefault("droppedAttributesCount", 0)
        for ss in rs["scopeSpans"]:
            ss.setdefault("schemaUrl", "")
            ss["scope"].setdefault("version", "")
            ss["scope"].setdefault("attributes", [])
            for span in ss["spans"]:
                span.setdefault("traceState", "")
                span.setdefault("parentSpanId", "")
                span.setdefault("flags", 0)
                span.setdefault("events", [])
                span.setdefault("links", [])
                span.setdefault("droppedAttributesCount", 0)
                span.setdefault("droppedEventsCount", 0)
                span.setdefault("droppedLinksCount", 0)
                status = span.setdefault("status", {})
                status.setdefault("message", "")
                status.setdefault("code", 0)
                kinds = ["UNSPECIFIED", "INTERNAL", "SERVER", "CLIENT", "PRODUCER", "CONSUMER"]
                span["kind"] = f"SPAN_KIND_{kinds[int(span.get('kind', 0))]}"
                if ids == "base64":
                    for key in ("traceId", "spanId", "parentSpanId"):
                        if span[key]:
                            span[key] = _b64(span[key])
    return out


@STORE
@given(data=st.data())
def test_any_partition_of_overlapping_exports_gives_the_single_export_funnel(
    data: st.DataObject,
) -> None:
    doc = _export()
    spans = _spans(doc)
    exports = data.draw(st.integers(min_value=1, max_value=3), label="exports")
    # every span in at least one export, some in several (overlap)
    homes = [
        data.draw(st.sets(st.integers(0, exports - 1), min_size=1, max_size=exports), label="homes")
        for _ in spans
    ]
    files: list[bytes] = []
    for e in range(exports):
        envelope = data.draw(
            st.fixed_dictionaries(
                {
                    "scope": st.sampled_from(["run", "project"]),
                    "created_time": st.sampled_from(["2026-01-02T00:00:00Z", "2026-03-04T05:06Z"]),
                }
            ),
            label="envelope",
        )
        part = _export(**envelope)
        mine = [copy.deepcopy(s) for s, h in zip(spans, homes, strict=True) if e in h]
        mine = data.draw(st.permutations(mine), label="span order")
        part["resourceSpans"] = part["resourceSpans"][:1]
        part["resourceSpans"][0]["scopeSpans"] = [
            {**part["resourceSpans"][0]["scopeSpans"][0], "spans": list(mine)}
        ]
        style = data.draw(st.sampled_from(["as-is", "defaults", "defaults-base64"]), label="style")
        if style != "as-is":
            part = _with_defaults(part, "base64" if style.endswith("base64") else "hex")
        files.append(orjson.dumps(part))
    order = data.draw(st.permutations(range(exports)), label="import order")
    together = data.draw(st.booleans(), label="one import")
    with Database(":memory:") as db, tempfile.TemporaryDirectory() as folder:
        paths = []
        for i in order:
            path = Path(folder) / f"export-{i}.json"
            path.write_bytes(files[i])
            paths.append(path)
        _import(db, paths, together)
        assert [orjson.dumps(d) for d in _documents(db)] == list(_single_export_documents())
        assert db.sql("SELECT count(*) FROM spans WHERE dup_group IS NOT NULL").item() == 0
        assert db.sql("SELECT count(*) FROM spans").item() == len(spans)
