"""Hostile numbers (issue 38.5): a JSON number no decoder can hold is a counted issue with its
JSON path on every decode path — never a traceback, never a silent infinity.

- An integer of more than 4,300 digits (more than Python converts) makes its record unreadable:
  ``E_INVALID_RECORD`` naming the number's path, the record quarantined with its raw text, the
  source's other records read.
- A number beyond the range of a double (``1e999999``, or 400 digits) is ``W_INVALID_VALUE``
  where a double or a time belongs and ``W_INT_OUT_OF_RANGE`` for an ``intValue``, its literal
  kept — only the spelled ``Infinity`` is an infinity.
- A decimal *string* of 10,000 digits is out of range like any other too-large decimal.
"""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import orjson
import pytest
from ingest_checks import same

from valuechain.ingest.decode import DecodedSource, DecodeOptions, decode_export

PATHS = {
    "native": DecodeOptions(),
    "native, parts to msgspec": DecodeOptions(native_parts=False),
    "msgspec": DecodeOptions(native=False),
    "reference": DecodeOptions(native=False, fast=False),
}
HOLE = "__HOSTILE__"  # where the hostile literal goes, as a JSON string before it is replaced
SPAN = "resourceSpans[0].scopeSpans[0].spans[0]"
TEN_THOUSAND = "1" + "0" * 10_000
FOUR_HUNDRED = "9" * 400


def _attribute(value: dict[str, Any]) -> dict[str, Any]:
    return {"attributes": [{"key": "k", "value": value}]}


# where a number appears in a span: (fields of span 2, the JSON path of the number in it)
PLACES: dict[str, tuple[dict[str, Any], str]] = {
    "start time": ({"startTimeUnixNano": HOLE}, f"{SPAN}.startTimeUnixNano"),
    "end time": ({"endTimeUnixNano": HOLE}, f"{SPAN}.endTimeUnixNano"),
    "event time": (
        {"events": [{"name": "e", "timeUnixNano": HOLE}]},
        f"{SPAN}.events[0].timeUnixNano",
    ),
    "intValue": (_attribute({"intValue": HOLE}), f"{SPAN}.attributes[0].value.intValue"),
    "doubleValue": (_attribute({"doubleValue": HOLE}), f"{SPAN}.attributes[0].value.doubleValue"),
    "in an array": (
        _attribute({"arrayValue": {"values": [{"stringValue": "a"}, {"intValue": HOLE}]}}),
        f"{SPAN}.attributes[0].value.arrayValue.values[1].intValue",
    ),
    "in a kvlist": (
        _attribute({"kvlistValue": {"values": [{"key": "x", "value": {"doubleValue": HOLE}}]}}),
        f"{SPAN}.attributes[0].value.kvlistValue.values[0].value.doubleValue",
    ),
    "dropped count": ({"droppedAttributesCount": HOLE}, f"{SPAN}.droppedAttributesCount"),
}


def _export(otlp: SimpleNamespace, fields: dict[str, Any], literal: str, *, pretty: bool) -> bytes:
    """Span 1, span 2 carrying ``literal`` where ``fields`` put the hole, span 3: one request
    each, as NDJSON — or span 2's request alone as a pretty-printed document."""
    hostile = orjson.dumps(otlp.request(otlp.span(2, **fields)), option=orjson.OPT_INDENT_2)
    hostile = hostile.replace(f'"{HOLE}"'.encode(), literal.encode())
    if pretty:
        return hostile
    good = [orjson.dumps(otlp.request(otlp.span(n))) for n in (1, 3)]
    return b"\n".join([good[0], hostile.replace(b"\n", b""), good[1]]) + b"\n"


def _decode_all(data: bytes) -> DecodedSource:
    """``data`` decoded by every path — no traceback on any — which all agree; the reference's."""
    decoded = {name: decode_export(data, "x.jsonl", options) for name, options in PATHS.items()}
    reference = decoded.pop("reference")
    for other in decoded.values():
        same(other, reference)
    return reference


def _issues(decoded: DecodedSource, code: str) -> list[Any]:
    return [i for i in decoded.issues if i.code.value == code]


@pytest.mark.parametrize("place", PLACES)
@pytest.mark.parametrize("sign", ["", "-"])
def test_an_integer_of_ten_thousand_digits_quarantines_its_record(
    otlp: SimpleNamespace, place: str, sign: str
) -> None:
    fields, path = PLACES[place]
    decoded = _decode_all(_export(otlp, fields, sign + TEN_THOUSAND, pretty=False))
    (issue,) = _issues(decoded, "E_INVALID_RECORD")
    assert issue.json_path == path
    assert issue.line == 2 and issue.record_index == 1
    assert f"a JSON integer of 10,001 digits at {path}" in issue.message
    assert "4,300" in issue.message
    acct = decoded.accounting
    assert (acct.records_read, acct.records_ingested, acct.records_quarantined) == (3, 2, 1)
    (quarantined,) = decoded.tables["quarantine"].to_pylist()
    assert quarantined["json_path"] == path and TEN_THOUSAND in quarantined["raw_json"]
    assert decoded.span_count == 2


def test_the_number_is_located_in_a_pretty_printed_document(otlp: SimpleNamespace) -> None:
    fields, path = PLACES["in a kvlist"]
    data = _export(otlp, fields, TEN_THOUSAND, pretty=True)
    decoded = _decode_all(data)
    (issue,) = _issues(decoded, "E_INVALID_RECORD")
    assert issue.json_path == path
    assert issue.line == data[: data.index(TEN_THOUSAND.encode())].count(b"\n") + 1
    assert decoded.status == "rejected"  # its only record unreadable: no trace records


@pytest.mark.parametrize("literal", ["1e999999", "-1e999999", FOUR_HUNDRED, '"1e999999"'])
@pytest.mark.parametrize("place", ["doubleValue", "in a kvlist"])
def test_a_double_beyond_range_is_an_invalid_value_not_infinity(
    otlp: SimpleNamespace, literal: str, place: str
) -> None:
    fields, _ = PLACES[place]
    decoded = _decode_all(_export(otlp, fields, literal, pretty=False))
    (issue,) = _issues(decoded, "W_INVALID_VALUE")
    assert issue.json_path == f"{SPAN}.attributes[0].value"
    assert "beyond the range of a double" in issue.message
    if place == "doubleValue":
        assert issue.value_excerpt == literal.strip('"')[:199] + ("…" if len(literal) > 200 else "")
        (row,) = [r for r in decoded.tables["attributes"].to_pylist() if r["key"] == "k"]
        assert row["value_type"] == "double" and row["double_value"] is None
        assert row["json_value"] == literal
    else:  # nested: the kvlist keeps a null for it
        (row,) = [r for r in decoded.tables["attributes"].to_pylist() if r["key"] == "k"]
        assert row["json_value"] == '{"x":null}'
    assert decoded.accounting.records_quarantined == 0 and decoded.span_count == 3


def test_the_spelled_infinity_stays_an_infinity(otlp: SimpleNamespace) -> None:
    fields, _ = PLACES["doubleValue"]
    for literal in ('"Infinity"', "Infinity"):  # the proto3 string, Python's bare token
        decoded = _decode_all(_export(otlp, fields, literal, pretty=False))
        assert not _issues(decoded, "W_INVALID_VALUE")
        (row,) = [r for r in decoded.tables["attributes"].to_pylist() if r["key"] == "k"]
        assert row["double_value"] == float("inf")


@pytest.mark.parametrize(
    "literal", ["1e999999", FOUR_HUNDRED, f'"{TEN_THOUSAND}"', f'"-{"0" * 30}{TEN_THOUSAND}"']
)
def test_an_int_beyond_range_keeps_its_literal(otlp: SimpleNamespace, literal: str) -> None:
    fields, _ = PLACES["intValue"]
    decoded = _decode_all(_export(otlp, fields, literal, pretty=False))
    (issue,) = _issues(decoded, "W_INT_OUT_OF_RANGE")
    assert issue.json_path == f"{SPAN}.attributes[0].value"
    (row,) = [r for r in decoded.tables["attributes"].to_pylist() if r["key"] == "k"]
    assert (row["int_value"], row["json_value"]) == (None, literal.strip('"'))


@pytest.mark.parametrize("literal", ["1e999999", FOUR_HUNDRED, f'"{TEN_THOUSAND}"'])
@pytest.mark.parametrize("place", ["start time", "end time", "event time", "dropped count"])
def test_a_time_or_count_beyond_range_is_an_invalid_value(
    otlp: SimpleNamespace, literal: str, place: str
) -> None:
    fields, path = PLACES[place]
    decoded = _decode_all(_export(otlp, fields, literal, pretty=False))
    (issue,) = _issues(decoded, "W_INVALID_VALUE")
    assert path.startswith(issue.json_path)  # a dropped count's issue names its span
    assert issue.value_excerpt.startswith(literal.strip('"')[:100])
    assert decoded.accounting.records_quarantined == 0 and decoded.span_count == 3
