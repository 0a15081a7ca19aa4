"""The synthetic export generator: determinism, counts, strict OTLP/JSON, §3.5 keys, gating."""

from __future__ import annotations

import gzip
import json
import re
from collections import Counter
from collections.abc import Iterator
from dataclasses import replace
from itertools import groupby
from pathlib import Path
from typing import Any

import pytest
from google.protobuf import json_format
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

from valuechain.synth import SynthConfig, generate_requests, write_export

SMALL = SynthConfig(runs=2, cases=5, models=3, reps=2, seed=11)
SAMPLE = Path(__file__).parents[2] / "fixtures" / "sample" / "sample-export.otlp.jsonl.gz"
SAMPLE_CONFIG = SynthConfig(runs=2, cases=3, models=2, reps=2, seed=5)  # fixtures/sample/README

OPAQUE_ID = re.compile(r"^[A-Za-z0-9_-]{1,128}$")  # CONTRACT §7.5
VARIANTS = {"stringValue", "boolValue", "intValue", "doubleValue", "arrayValue", "kvlistValue"}
SPAN_FIELDS = {"traceId", "spanId", "parentSpanId", "name", "kind", "status", "attributes"}
SPAN_FIELDS |= {"startTimeUnixNano", "endTimeUnixNano"}
# TRACE-FORMAT §3.5: keys a trial root must carry ("yes"; the matcher options because every
# generated case has expectations; the chain keys because the producer chain is exported).
REQUIRED_ROOT_KEYS = {
    "openinference.span.kind",
    "mcp.app.span.role",
    "session.id",
    "tag.tags",
    "mcp.app.project.id",
    "mcp.app.suite.id",
    "mcp.app.run.id",
    "mcp.app.run.config_revision",
    "mcp.app.run.case_set_fingerprint",
    "mcp.app.run.status",
    "mcp.app.run.trials_expected",
    "mcp.app.case.id",
    "mcp.app.case.key",
    "mcp.app.case.title",
    "mcp.app.case.is_negative",
    "mcp.app.authored.mode",
    "mcp.app.trial.id",
    "mcp.app.trial.iteration_number",
    "mcp.app.trial.repetition",
    "mcp.app.trial.variant_key",
    "mcp.app.trial.status",
    "mcp.app.trial.result",
    "mcp.app.variant.provider",
    "mcp.app.variant.model",
    "mcp.app.host.key",
    "mcp.app.setup.connection.outcome",
    "mcp.app.expect.tool_calls",
    "mcp.app.expect.output_defined",
    "mcp.app.match.argument_matching",
    "mcp.app.match.tool_call_order",
    "mcp.app.match.extra_tool_calls",
    "mcp.app.analyzer.version",
    "mcp.app.chain.verified",
    "mcp.app.measurements.schema_version",
    *(f"mcp.app.stages.{i}.{f}" for i in range(6) for f in ("name", "state", "reason")),
    *(f"mcp.app.measurements.{i}.reach" for i in range(6)),
}
CONTENT_KEY = re.compile(  # TRACE-FORMAT §3.6: omitted when include_content = false
    r"^(input\.value|output\.value|llm\.input_messages\..*|llm\.output_messages\.\d+\.message"
    r"\.content|.*tool_call\.function\.arguments|gen_ai\.tool\.call\.(arguments|result)|"
    r"gen_ai\.(input|output)\.messages|mcp\.app\.expect\.output|mcp\.app\.widget\.console_errors)$"
)


def value(any_value: dict[str, Any]) -> Any:
    (variant, raw), *_ = any_value.items()
    if variant == "arrayValue":
        return [value(item) for item in raw.get("values", [])]
    return int(raw) if variant == "intValue" else raw


def attributes(span: dict[str, Any]) -> dict[str, Any]:
    return {kv["key"]: value(kv["value"]) for kv in span["attributes"]}


def spans_of(request: dict[str, Any]) -> list[dict[str, Any]]:
    return [s for rs in request["resourceSpans"] for ss in rs["scopeSpans"] for s in ss["spans"]]


def roots(requests: list[dict[str, Any]]) -> Iterator[dict[str, Any]]:
    for request in requests:
        yield attributes(spans_of(request)[0])


@pytest.fixture(scope="module")
def small() -> list[dict[str, Any]]:
    return list(generate_requests(SMALL))


def test_same_config_same_bytes_other_seed_other_bytes(tmp_path: Path) -> None:
    paths = [tmp_path / name for name in ("a.jsonl.gz", "b.jsonl.gz", "c.jsonl.gz")]
    for path, seed in zip(paths, (SMALL.seed, SMALL.seed, SMALL.seed + 1), strict=True):
        write_export(path, SynthConfig(runs=1, cases=3, seed=seed), ndjson=True, gzip=True)
    assert paths[0].read_bytes() == paths[1].read_bytes()
    assert paths[0].read_bytes() != paths[2].read_bytes()
    first, again = list(generate_requests(SMALL)), list(generate_requests(SMALL))
    assert json.dumps(first) == json.dumps(again)


def test_one_trace_per_trial_and_counts(tmp_path: Path, small: list[dict[str, Any]]) -> None:
    trials = SMALL.runs * SMALL.cases * SMALL.models * SMALL.reps
    assert len(small) == trials
    assert all(len(request["resourceSpans"]) == 1 for request in small)
    assert len({spans_of(request)[0]["traceId"] for request in small}) == trials
    for request in small:
        assert len({span["traceId"] for span in spans_of(request)}) == 1
    per_run = Counter(root["mcp.app.run.id"] for root in roots(small))
    assert len(per_run) == SMALL.runs
    assert set(per_run.values()) == {trials // SMALL.runs}
    assert {root["mcp.app.run.trials_expected"] for root in roots(small)} == {trials // SMALL.runs}
    summary = write_export(tmp_path / "x.json", SMALL)
    assert (summary.runs, summary.trials, summary.traces) == (SMALL.runs, trials, trials)
    assert summary.spans == sum(len(spans_of(request)) for request in small)
    assert summary.bytes_written == (tmp_path / "x.json").stat().st_size


def assert_any_value(any_value: Any) -> None:
    assert isinstance(any_value, dict)
    assert len(any_value) == 1, any_value
    ((variant, raw),) = any_value.items()
    assert variant in VARIANTS, variant
    if variant == "intValue":
        assert isinstance(raw, str) and re.fullmatch(r"-?\d+", raw)
    elif variant == "doubleValue":
        assert isinstance(raw, float)
    elif variant == "boolValue":
        assert isinstance(raw, bool)
    elif variant == "stringValue":
        assert isinstance(raw, str)
    elif variant == "arrayValue":
        assert set(raw) == {"values"}
        for item in raw["values"]:
            assert_any_value(item)


def assert_span(span: dict[str, Any], ids: set[str], window: tuple[int, int]) -> None:
    assert set(span) <= SPAN_FIELDS, set(span) - SPAN_FIELDS
    assert re.fullmatch(r"[0-9a-f]{32}", span["traceId"]) and int(span["traceId"], 16)
    assert re.fullmatch(r"[0-9a-f]{16}", span["spanId"]) and int(span["spanId"], 16)
    if "parentSpanId" in span:
        assert span["parentSpanId"] in ids
    assert type(span["kind"]) is int and span["kind"] in {1, 3}  # §1.6: INTERNAL, CLIENT
    for field in ("startTimeUnixNano", "endTimeUnixNano"):
        assert isinstance(span[field], str) and re.fullmatch(r"[1-9]\d*", span[field])
    start, end = int(span["startTimeUnixNano"]), int(span["endTimeUnixNano"])
    assert window[0] <= start <= end <= window[1]
    if "status" in span:
        assert type(span["status"]["code"]) is int and span["status"]["code"] in {1, 2}
    keys = [kv["key"] for kv in span["attributes"]]
    assert len(keys) == len(set(keys)), "duplicate attribute keys"
    for kv in span["attributes"]:
        assert set(kv) == {"key", "value"}
        assert_any_value(kv["value"])


def test_every_request_is_canonical_otlp_json(small: list[dict[str, Any]]) -> None:
    for request in small:
        (rs,) = request["resourceSpans"]
        assert set(rs) == {"resource", "scopeSpans"}
        for kv in rs["resource"]["attributes"]:
            assert_any_value(kv["value"])
        root, *children = spans_of(request)
        assert "parentSpanId" not in root and attributes(root)["mcp.app.span.role"] == "trial"
        ids = {span["spanId"] for span in spans_of(request)}
        assert len(ids) == 1 + len(children)
        window = (int(root["startTimeUnixNano"]), int(root["endTimeUnixNano"]))
        for span in (root, *children):
            assert_span(span, ids, window)
        assert all("parentSpanId" in child for child in children)
    for request in small[:4]:  # every field name and JSON type is one the OTLP proto knows
        json_format.Parse(json.dumps(request), ExportTraceServiceRequest())


def test_trial_roots_carry_the_required_keys(small: list[dict[str, Any]]) -> None:
    seen = set()
    for root in roots(small):
        assert set(root) >= REQUIRED_ROOT_KEYS, REQUIRED_ROOT_KEYS - set(root)
        for key in ("mcp.app.run.id", "mcp.app.case.id", "mcp.app.suite.id"):
            assert OPAQUE_ID.match(root[key]), root[key]
        variant = root["mcp.app.trial.variant_key"]
        assert variant.startswith(f"{root['mcp.app.variant.provider']}/")
        assert variant.endswith(f"@{root['mcp.app.host.key']}")
        identity = (root["mcp.app.run.id"], root["mcp.app.case.id"], variant)
        seen.add((*identity, root["mcp.app.trial.repetition"]))  # §3.5: unique per trial
        failed = [
            root[f"mcp.app.stages.{i}.name"]
            for i in range(6)
            if root[f"mcp.app.stages.{i}.state"] == "failed"
        ]
        assert root.get("mcp.app.stages.first_failed") == (failed[0] if failed else None)
        assert root["mcp.app.trial.result"] == ("failed" if failed else "passed")
    assert len(seen) == len(small)


def test_outcomes_are_mostly_passes_with_some_ordinary_failures() -> None:
    requests = generate_requests(SynthConfig(runs=2, cases=8, models=4, reps=3, seed=2))
    results = Counter(
        root.get("mcp.app.trial.failure_category", "") for root in roots(list(requests))
    )
    assert results[""] / sum(results.values()) > 0.75
    assert {"selection", "serverData"} <= set(results)  # wrong tools, tool errors


def test_redacted_export_withholds_content_and_says_so(small: list[dict[str, Any]]) -> None:
    redacted = list(generate_requests(replace(SMALL, redacted=True)))
    assert len(redacted) == len(small)
    for full, gated in zip(small, redacted, strict=True):
        (resource,) = [attributes(rs["resource"]) for rs in gated["resourceSpans"]]
        assert resource["mcp.app.export.include_content"] is False
        for before, after in zip(spans_of(full), spans_of(gated), strict=True):
            assert before["spanId"] == after["spanId"]  # gating changes no ids, times or verdicts
            assert before["endTimeUnixNano"] == after["endTimeUnixNano"]
            kept, had = attributes(after), attributes(before)
            assert not [key for key in kept if CONTENT_KEY.match(key)]
            withheld = {key for key in had if CONTENT_KEY.match(key)}
            assert set(kept.get("mcp.app.redacted_keys", [])) == withheld
            assert "arguments" not in kept.get("mcp.app.expect.tool_calls", "")
            assert "arguments" not in kept.get("mcp.app.match.result.expected", "")
            verdicts = {k: v for k, v in had.items() if ".stages." in k or ".grader." in k}
            assert verdicts.items() <= kept.items()


def test_ndjson_gzip_and_document_round_trip(tmp_path: Path, small: list[dict[str, Any]]) -> None:
    write_export(tmp_path / "x.jsonl", SMALL, ndjson=True)
    lines = (tmp_path / "x.jsonl").read_bytes().splitlines()
    assert [json.loads(line) for line in lines] == small
    write_export(tmp_path / "x.jsonl.gz", SMALL, ndjson=True, gzip=True)
    assert gzip.decompress((tmp_path / "x.jsonl.gz").read_bytes()).splitlines() == lines
    # one document: §3.3 puts each run's traces in one ResourceSpans
    write_export(tmp_path / "x.json.gz", SMALL, gzip=True)
    document = json.loads(gzip.decompress((tmp_path / "x.json.gz").read_bytes()))
    runs = groupby(small, key=lambda request: attributes(spans_of(request)[0])["mcp.app.run.id"])
    expected = []
    for _, group in runs:
        requests = list(group)
        (first,) = requests[0]["resourceSpans"]
        spans = [span for request in requests for span in spans_of(request)]
        scope = first["scopeSpans"][0]["scope"]
        expected.append(
            {"resource": first["resource"], "scopeSpans": [{"scope": scope, "spans": spans}]}
        )
    assert document == {"resourceSpans": expected}


def test_committed_sample_is_what_the_documented_call_writes(tmp_path: Path) -> None:
    summary = write_export(tmp_path / SAMPLE.name, SAMPLE_CONFIG, ndjson=True, gzip=True)
    assert SAMPLE.stat().st_size < 200_000
    # compare the decompressed bytes: another zlib build may compress the same text differently
    assert gzip.decompress(summary.path.read_bytes()) == gzip.decompress(SAMPLE.read_bytes())


def test_invalid_config_is_refused() -> None:
    with pytest.raises(ValueError, match=r"models 1\.\."):
        next(generate_requests(SynthConfig(models=99)))
    with pytest.raises(ValueError, match="runs, cases and reps"):
        next(generate_requests(SynthConfig(cases=0)))


def test_same_seed_different_shape_shares_no_ids() -> None:
    """Two exports made with one --seed but different shapes never collide on import."""

    def trace_ids(config: SynthConfig) -> set[str]:
        return {
            span["traceId"]
            for request in generate_requests(config)
            for rs in request["resourceSpans"]
            for ss in rs["scopeSpans"]
            for span in ss["spans"]
        }

    small = trace_ids(SynthConfig(runs=1, cases=1, models=1, reps=2, seed=7))
    large = trace_ids(SynthConfig(runs=1, cases=2, models=1, reps=2, seed=7))
    assert small and large and not small & large
