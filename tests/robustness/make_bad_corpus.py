"""Write ``fixtures/bad/``: one small file per bad-input case (TRACE-FORMAT §1.2, §5.2 and the
fuzz tests' mutations). ``fixtures/bad/manifest.json`` (kept by hand) names each file's expected
issue code, a fragment of its message and the outcome; ``test_bad_corpus.py`` checks them.

    python tests/robustness/make_bad_corpus.py   # rewrites the files, never the manifest
"""

from __future__ import annotations

import base64
import copy
import gzip
import json
import struct
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests"))  # the builders every test uses (a script, not a test)

from conftest import START_NS as T0  # noqa: E402
from conftest import TRACE_ID as TRACE  # noqa: E402
from conftest import request, span  # noqa: E402
from valuechain.ingest.bytes.compression import zstd_compress  # noqa: E402

BAD = ROOT / "fixtures" / "bad"
EXAMPLE = ROOT / "fixtures/public/spec/examples/mcpjam-eval-run-2cases-2models-2reps.otlp.json"


def dumps(obj: Any) -> bytes:
    return json.dumps(obj).encode()


def lines(*objs: Any) -> bytes:
    return b"".join(dumps(o) + b"\n" for o in objs)


def nested(depth: int) -> dict[str, Any]:
    value: dict[str, Any] = {"stringValue": "bottom"}
    for _ in range(depth):
        value = {"arrayValue": {"values": [value]}}
    return value


def example_trace() -> dict[str, Any]:
    """The spec example's first trace alone (a one-trial export of an eight-trial run)."""
    doc = json.loads(EXAMPLE.read_text())
    first = doc["resourceSpans"][0]["scopeSpans"][0]["spans"][0]["traceId"]
    for rs in doc["resourceSpans"]:
        for ss in rs["scopeSpans"]:
            ss["spans"] = [s for s in ss["spans"] if s["traceId"] == first]
    return doc


def trial_root(doc: dict[str, Any]) -> dict[str, Any]:
    return next(s for s in all_spans(doc) if s["name"] == "eval.trial")


def all_spans(doc: dict[str, Any]) -> list[dict[str, Any]]:
    return [s for rs in doc["resourceSpans"] for ss in rs["scopeSpans"] for s in ss["spans"]]


def set_attr(target: dict[str, Any], key: str, value: dict[str, Any]) -> None:
    attrs = [a for a in target["attributes"] if a["key"] != key]
    target["attributes"] = [*attrs, {"key": key, "value": value}]


def contract_cases() -> dict[str, bytes]:
    out: dict[str, bytes] = {}
    doc = example_trace()
    out["contract_run_incomplete.json"] = dumps(doc)
    d = copy.deepcopy(doc)
    set_attr(trial_root(d), "mcp.app.trial.repetition", {"stringValue": "two"})
    out["contract_wrong_type.json"] = dumps(d)
    d = copy.deepcopy(doc)
    set_attr(trial_root(d), "mcp.app.trial.colour", {"stringValue": "blue"})
    out["contract_unknown_key.json"] = dumps(d)
    d = copy.deepcopy(doc)
    set_attr(d["resourceSpans"][0]["resource"], "mcp.app.export.schema_version", {"intValue": "99"})
    out["contract_version_ahead.json"] = dumps(d)
    d = copy.deepcopy(doc)
    set_attr(trial_root(d), "mcp.app.span.role", {"stringValue": "step"})
    out["contract_trial_root_missing.json"] = dumps(d)
    d = copy.deepcopy(doc)
    set_attr(all_spans(d)[1], "mcp.app.span.role", {"stringValue": "trial"})
    out["contract_two_trial_roots.json"] = dumps(d)
    d = copy.deepcopy(doc)
    other = copy.deepcopy(all_spans(d))
    for s in other:
        s["traceId"] = "f" * 32
    set_attr(
        next(s for s in other if s["name"] == "eval.trial"),
        "mcp.app.case.title",
        {"stringValue": "another"},
    )
    d["resourceSpans"][0]["scopeSpans"][0]["spans"].extend(other)
    out["contract_trial_id_conflict.json"] = dumps(d)
    d = copy.deepcopy(doc)
    call = next(s for s in all_spans(d) if s["name"].startswith("tools/call"))
    set_attr(call, "mcp.app.tool.outcome", {"stringValue": "transport_error"})
    out["contract_transport_error_without_code.json"] = dumps(d)
    d = copy.deepcopy(doc)
    evidence = {"arrayValue": {"values": [{"stringValue": "00000000000000ff"}]}}
    set_attr(trial_root(d), "mcp.app.stages.1.evidence.span_ids", evidence)
    out["contract_evidence_unresolved.json"] = dumps(d)
    d = copy.deepcopy(doc)  # a row out of stage order: the chain fails CONTRACT §2.1
    set_attr(trial_root(d), "mcp.app.stages.3.name", {"stringValue": "discovery"})
    out["contract_chain_invalid.json"] = dumps(d)
    d = copy.deepcopy(doc)  # a reach its stage's state does not admit: CONTRACT §4 disagreement
    set_attr(trial_root(d), "mcp.app.measurements.1.reach", {"stringValue": "notReached"})
    out["contract_measurements_invalid.json"] = dumps(d)
    return out


def cases() -> dict[str, bytes]:
    one = request(span(1), span(2, parentSpanId=f"{1:016x}"))
    doc = dumps(one)
    three = [dumps(request(span(i))) for i in (1, 2, 3)]
    big_ndjson = b"".join(lines(request(span(i))) for i in range(1, 40))
    out = {
        # framing and parsing (§5.2 first rows)
        "truncated_document.json": doc[: len(doc) * 2 // 3],
        "truncated_last_line.jsonl": three[0] + b"\n" + three[1] + b"\n" + three[2][:40],
        "corrupt_middle_line.jsonl": three[0] + b'\n{"resourceSpans": [oops\n' + three[2] + b"\n",
        "truncated.jsonl.gz": gzip.compress(big_ndjson, mtime=0)[:-200],
        "truncated.jsonl.zst": zstd_compress(big_ndjson)[:-100],
        "phoenix_spans.json": dumps(
            [{"context": {"trace_id": TRACE, "span_id": "1"}, "span_kind": "LLM", "name": "llm"}]
        ),
        "jaeger_ui.json": dumps(
            {"data": [{"traceID": TRACE, "spans": [{"traceID": TRACE, "spanID": "1"}]}]}
        ),
        "metrics_only.json": dumps({"resourceMetrics": [{"resource": {}, "scopeMetrics": []}]}),
        "other_signal_line.jsonl": lines(request(span(1)), {"resourceLogs": [{"resource": {}}]}),
        "bad_proto_record.bin": struct.pack(">I", 6) + b"\x0a\x04\xff\xff\xff\xff",
        "empty.json": b"",
        "record_too_deep.json": b"[" * 3000 + b"]" * 3000,
        # ids (§1.4)
        "missing_id.json": dumps(request(span(1, spanId=...), span(2))),
        "zero_id.json": dumps(request(span(1, traceId="0" * 32), span(2))),
        "bad_id_0x.json": dumps(request(span(1, spanId="0x0000000000000001"), span(2))),
        "bad_id_uuid.json": dumps(
            request(span(1, spanId="0b5a8e3c-2f41-4c1e-9d7a-1e2f3a4b5c6d"), span(2))
        ),
        "zero_parent.json": dumps(request(span(1, parentSpanId="0" * 16))),
        "base64_ids.json": dumps(
            request(
                span(
                    1,
                    traceId=base64.b64encode(bytes.fromhex(TRACE)).decode(),
                    spanId="AAAAAAAAAAE=",
                )
            )
        ),
        "mixed_id_encoding.json": dumps(request(span(1), span(2, spanId="AAAAAAAAAAI="))),
        # duplicates and trees (§5.2)
        "duplicate_identical.jsonl": lines(request(span(1)), request(span(1))),
        "duplicate_conflict.jsonl": lines(request(span(1)), request(span(1, name="other"))),
        "parent_cycle.json": dumps(
            request(span(1, parentSpanId=f"{2:016x}"), span(2, parentSpanId=f"{1:016x}"))
        ),
        "multiple_roots.json": dumps(request(span(1), span(2))),
        "orphan_span.json": dumps(request(span(1), span(2, parentSpanId=f"{9:016x}"))),
        "child_outside_parent.json": dumps(  # the child ends 1 µs after its parent
            request(
                span(1, endTimeUnixNano=str(T0 + 3000)),
                span(2, parentSpanId=f"{1:016x}", endTimeUnixNano=str(T0 + 4000)),
            )
        ),
        # times (§1.6)
        "negative_duration.json": dumps(request(span(1, endTimeUnixNano=str(T0)))),
        "missing_time.json": dumps(request(span(1, startTimeUnixNano=..., endTimeUnixNano="0"))),
        "time_out_of_range.json": dumps(
            request(
                span(
                    1,
                    startTimeUnixNano="11651379494838206464",
                    endTimeUnixNano="11651379494838206464",
                )
            )
        ),
        "numeric_int64.json": dumps(request(span(1, startTimeUnixNano=T0, endTimeUnixNano=T0 + 5))),
        # fields and values (§1.2, §1.5)
        "snake_case_keys.json": dumps(
            {
                "resource_spans": [
                    {
                        "resource": {},
                        "scope_spans": [
                            {
                                "scope": {},
                                "spans": [
                                    {
                                        "trace_id": TRACE,
                                        "span_id": f"{1:016x}",
                                        "name": "s",
                                        "start_time_unix_nano": str(T0),
                                        "end_time_unix_nano": str(T0 + 1),
                                    }
                                ],
                            }
                        ],
                    }
                ]
            }
        ),
        "legacy_il_spans.json": dumps(
            {
                "resourceSpans": [
                    {
                        "resource": {},
                        "instrumentationLibrarySpans": [
                            {"instrumentationLibrary": {"name": "old"}, "spans": [span(1)]}
                        ],
                    }
                ]
            }
        ),
        "enum_names.json": dumps(
            request(span(1, kind="SPAN_KIND_SERVER", status={"code": "STATUS_CODE_ERROR"}))
        ),
        "unknown_enum.json": dumps(request(span(1, kind=9))),
        "envelope_unwrapped.json": dumps({"result": request(span(1))}),
        "unknown_field.json": dumps(request(span(1, colour="blue"))),
        "unknown_anyvalue.json": dumps(
            request(span(1, attributes=[{"key": "k", "value": {"anyValue": "x"}}]))
        ),
        "multiple_variants.json": dumps(
            request(
                span(1, attributes=[{"key": "k", "value": {"stringValue": "a", "intValue": "1"}}])
            )
        ),
        "int_out_of_range.json": dumps(
            request(
                span(1, attributes=[{"key": "k", "value": {"intValue": "99999999999999999999"}}])
            )
        ),
        "wrong_type.json": dumps(
            request(span(1, attributes=[{"key": "k", "value": {"boolValue": "yes"}}]))
        ),
        "duplicate_attribute_key.json": dumps(
            request(
                span(
                    1,
                    attributes=[
                        {"key": "k", "value": {"intValue": "1"}},
                        {"key": "k", "value": {"intValue": "2"}},
                    ],
                )
            )
        ),
        "large_value.json": dumps(
            request(span(1, attributes=[{"key": "k", "value": {"stringValue": "x" * 2048}}]))
        ),
        "too_deep.json": dumps(request(span(1, attributes=[{"key": "k", "value": nested(70)}]))),
        "lone_surrogate.json": dumps(
            request(span(1, attributes=[{"key": "k", "value": {"stringValue": "a\ud800b"}}]))
        ),
        "invalid_utf8_bytes.json": dumps(
            request(span(1, attributes=[{"key": "k", "value": {"stringValue": "aXb"}}]))
        ).replace(b"aXb", b"a\xff\xfeb"),
        "nonstandard_nan.json": dumps(
            request(span(1, attributes=[{"key": "k", "value": {"doubleValue": float("nan")}}]))
        ),
        "dropped_at_source.json": dumps(request(span(1, droppedAttributesCount=3))),
        # hostile numbers and keys (issue 38.5)
        "integer_too_long.jsonl": three[0]
        + b"\n"
        + dumps(request(span(2, startTimeUnixNano=0))).replace(
            b'"startTimeUnixNano": 0', b'"startTimeUnixNano": 1' + b"0" * 10_000
        )
        + b"\n"
        + three[2]
        + b"\n",
        "double_out_of_range.json": dumps(
            request(span(1, attributes=[{"key": "k", "value": {"doubleValue": 1.5}}]))
        ).replace(b"1.5", b"1e999999"),
        "duplicate_json_key.json": dumps(request(span(1, name="first"))).replace(
            b'"name": "first"', b'"name": "first", "name": "second"'
        ),
        "empty_envelope.json": dumps(
            {
                "resourceSpans": [
                    {"resource": {}, "scopeSpans": []},
                    request(span(1))["resourceSpans"][0],
                ]
            }
        ),
        # sizes (§5.2, imported with the manifest's smaller caps)
        "decompression_bomb.json.gz": gzip.compress(
            dumps(
                request(
                    span(1, attributes=[{"key": "pad", "value": {"stringValue": " " * (1 << 20)}}])
                )
            ),
            mtime=0,
        ),
    }
    out.update(contract_cases())
    return out


# A file that cannot be read (E_UNREADABLE): a link to nothing. A file without read
# permission would not do: root, who runs many CI jobs, reads it anyway.
DANGLING = {"unreadable_dangling_link.json": "no-such-export.json"}


def main() -> None:
    BAD.mkdir(parents=True, exist_ok=True)
    for name, data in sorted(cases().items()):
        (BAD / name).write_bytes(data)
    for name, target in DANGLING.items():
        (BAD / name).unlink(missing_ok=True)
        (BAD / name).symlink_to(target)
    print(f"{len(cases()) + len(DANGLING)} files in {BAD.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
